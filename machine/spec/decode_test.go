package spec

import (
	"reflect"
	"testing"
)

func TestParseReadsShortAndLongForms(t *testing.T) {
	src := `lpp: 1
name: forms
description: every key
context:
  short: int
  long: {type: string, default: b, enum: [a, b], doc: a letter}
initial: one
states:
  one:
    do: log
    with: {message: hi, value: short + 1}
    set: {short: short + 1}
    next: two
    on_error: three
    note: first
  two:
    next:
      - three
      - {to: one, when: short < 3, set: {long: '"a"'}, note: again, warn: looping}
    on_error: {to: three, set: {short: "0"}}
  three: {final: true}
  four:
events:
  RESET: {from: "*", to: one}
  STOP: {from: [one, two], to: three, when: short > 9, note: enough}
limits: {max_transitions: 50}
`
	spec, diags := Parse("f.yaml", []byte(src))
	if len(diags) > 0 {
		t.Fatalf("unexpected diagnostics:\n%s", diags.PrettyAll([]byte(src)))
	}
	check := func(what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %#v, want %#v", what, got, want)
		}
	}
	check("Version", spec.Version, 1)
	check("Name", spec.Name, "forms")
	check("NamePos", spec.NamePos, Pos{2, 7})
	check("Description", spec.Description, "every key")
	check("short var", *spec.Var("short"), Var{Name: "short", Type: TypeInt, Default: 0, Pos: Pos{5, 3}, TypePos: Pos{5, 10}, DefPos: Pos{5, 3}})
	long := spec.Var("long")
	check("long type", long.Type, TypeString)
	check("long default", long.Default, "b")
	check("long enum", long.Enum, []string{"a", "b"})
	check("long doc", long.Doc, "a letter")
	check("long DefPos", long.DefPos, Pos{6, 33})
	check("Initial", spec.Initial, "one")
	check("InitialPos", spec.InitialPos, Pos{7, 10})
	check("StateNames", spec.StateNames(), []string{"one", "two", "three", "four"})

	one := spec.State("one")
	check("one.Do", one.Do, "log")
	check("one.DoPos", one.DoPos, Pos{10, 9})
	check("one.With", len(one.With), 2)
	check("one.With[1]", *one.With[1], Param{Name: "value", Value: "short + 1", Pos: Pos{11, 25}, VPos: Pos{11, 32}})
	check("one.Set", *one.Set[0], Assign{Var: "short", Expr: "short + 1", Pos: Pos{12, 11}, ExprPos: Pos{12, 18}})
	check("one.Next (short form)", *one.Next[0], Transition{To: "two", ToPos: Pos{13, 11}, Pos: Pos{13, 11}})
	check("one.OnError (short form)", one.OnError.To, "three")
	check("one.Note", one.Note, "first")

	two := spec.State("two")
	check("two.Next[0] (bare name in list)", two.Next[0].To, "three")
	tr := two.Next[1]
	check("long transition", []any{tr.To, tr.When, tr.WhenPos, tr.Note, tr.Warn, tr.Set[0].Expr, tr.Set[0].ExprPos},
		[]any{"one", "short < 3", Pos{19, 25}, "again", "looping", `"a"`, Pos{19, 49}})
	check("two.OnError (long form)", []any{two.OnError.To, two.OnError.Set[0].Expr}, []any{"three", "0"})
	check("three.Final", spec.State("three").Final, true)
	check("four (null state)", *spec.State("four"), State{Name: "four", Pos: Pos{22, 3}})

	check("RESET.From (*)", spec.Event("RESET").From, []string(nil))
	stop := spec.Event("STOP")
	check("STOP", []any{stop.From, stop.To, stop.When, stop.Note, stop.WhenPos}, []any{[]string{"one", "two"}, "three", "short > 9", "enough", Pos{25, 45}})
	check("Limits", spec.Limits, Limits{MaxTransitions: 50, Pos: Pos{26, 27}})
}

func TestParseReportsDecodingProblems(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"empty file", "", []string{"f.yaml:1:1: error: the spec is empty; start with `lpp: 1`, a `name`, `initial` and `states`"}},
		{"not a mapping", "[1, 2]", []string{"f.yaml:1:1: error: the spec must be a mapping of keys (lpp, name, context, initial, states, ...), not a list"}},
		{"unknown key with a suggestion", "lpp: 1\nname: x\nstaets: {}\n", []string{
			"f.yaml:3:1: error: unknown key \"staets\" in the spec; did you mean \"states\"?",
			"f.yaml:1:1: error: missing key \"states\"; a spec needs at least one state and one final state",
		}},
		{"duplicate key", "lpp: 1\nlpp: 1\nname: x\nstates: {a: {final: true}}\n", []string{
			"f.yaml:2:1: error: duplicate key \"lpp\" in the spec; remove one of them",
		}},
		{"tab indentation", "lpp: 1\nstates:\n\ta: {}\n", []string{
			"f.yaml:3:1: error: invalid YAML: found character that cannot start any token; this line is indented with a tab; YAML allows only spaces for indentation",
		}},
		{"an alias of an anchor the file does not mark, after a comment naming it", "# uses *nope below\nlpp: 1\nstates:\n  a: {final: true}\n  b: [x, *nope]\n", []string{
			"f.yaml:5:10: error: invalid YAML: unknown anchor 'nope' referenced; an alias (*nope) repeats a value marked earlier in the file with the anchor &nope (key: &nope VALUE): mark it, or write the value itself",
		}},
		{"unknown type with a suggestion", "lpp: 1\nname: x\ncontext: {n: strin}\nstates: {a: {final: true}}\n", []string{
			"f.yaml:3:14: error: unknown type \"strin\" for context variable \"n\"; did you mean \"string\"?",
		}},
		{"a context variable of type any: payload fields only, not did you mean int", "lpp: 1\nname: x\ncontext: {n: any}\nstates: {a: {final: true}}\n", []string{
			"f.yaml:3:14: error: context variable \"n\" cannot be of type any: only a payload field can; give it one of int, float, bool, string, list, map (a `set` from a field of type any checks the value against it), with `nullable: true` if it may hold null",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := Parse("f.yaml", []byte(tt.src))
			var got []string
			for _, d := range diags {
				got = append(got, d.String())
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got:\n%q\nwant:\n%q", got, tt.want)
			}
		})
	}
}

func TestSourceLineReadsEveryLine(t *testing.T) {
	src := []byte("one\r\ntwo\n\nfour\rfive\u2028six\u0085seven")
	for i, want := range []string{"", "one", "two", "", "four", "five", "six", "seven", ""} {
		if got := SourceLine(src, i); got != want {
			t.Errorf("sourceLine(%d) = %q, want %q", i, got, want)
		}
	}
	other := []byte("x\ny\n")
	if got := SourceLine(other, 2); got != "y" {
		t.Errorf("a second source: got %q", got)
	}
	if got := SourceLine(src, 2); got != "two" {
		t.Errorf("back to the first source: got %q", got)
	}
}

func TestExprPosFollowsBlockScalarsAndContinuationLines(t *testing.T) {
	src := []byte("a:\n  when: |\n    x > 0 &&\n      yy < 3\n  b: x > 0\n    && yy < 3\n")
	tests := []struct {
		start Pos
		text  string
		off   int
		want  Pos
	}{
		{Pos{2, 9}, "x > 0 &&\n  yy < 3\n", 11, Pos{4, 7}},
		{Pos{2, 9}, "x > 0 &&\n  yy < 3\n", 0, Pos{3, 5}},
		{Pos{5, 6}, "x > 0 && yy < 3", 9, Pos{6, 8}},
		{Pos{5, 6}, "x > 0 && yy < 3", 2, Pos{5, 8}},
		// expr puts the end of a text at its trailing line break: the
		// end of the block's last line, not the line after the block
		{Pos{2, 9}, "x > 0 &&\n  yy < 3\n", 17, Pos{4, 13}},
	}
	for _, tt := range tests {
		if got := ExprPos(src, tt.start, tt.text, tt.off); got != tt.want {
			t.Errorf("exprPos(%v, %q, %d) = %v, want %v", tt.start, tt.text, tt.off, got, tt.want)
		}
	}
}

func TestVarParseOverrideChecksTypeAndEnum(t *testing.T) {
	v := &Var{Name: "verdict", Type: TypeString, Enum: []string{"", "PASS", "FAIL"}}
	if got, err := v.ParseOverride("PASS"); err != nil || got != "PASS" {
		t.Errorf("PASS: %v %v", got, err)
	}
	if _, err := v.ParseOverride("PAS"); err == nil || err.Error() != `"PAS" is not one of ["", "PASS", "FAIL"]; did you mean "PASS"?` {
		t.Errorf("PAS: %v", err)
	}
	l := &Var{Name: "items", Type: TypeList}
	if _, err := l.ParseOverride("[1] [2]"); err == nil || err.Error() != `"[1] [2]" is not a JSON list` {
		t.Errorf("trailing text: %v", err)
	}
	if got, err := l.ParseOverride(` [1, "a"] `); err != nil || !reflect.DeepEqual(got, []any{1, "a"}) {
		t.Errorf("list: %v %v", got, err)
	}
}
