package actions

import (
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine"
)

// optionalSpec maps /s, which the schema declares but does not require.
func optionalSpec(required string) string {
	return `
lpp: 1
name: opt
context:
  title: {type: string, default: ""}
  s:     {type: string, default: "unset"}
initial: ask
states:
  ask:
    do: llm.generate
    with:
      prompt: ask.md
      schema: {type: object, properties: {title: {type: string}, s: {type: string}}, required: ` + required + `}
      map: {title: /title, s: /s}
      repairs: 1
    next: [{to: done}]
  done: {final: true}
`
}

func TestCheckSpecWarnsOfMapToOptionalProperty(t *testing.T) {
	p := newProject(t, map[string]string{"a/spec.yaml": optionalSpec("[title]"), "a/ask.md": "x"})
	_, _, diags := p.check("a/spec.yaml", p.deps("a", ""))
	if diags.HasErrors() {
		t.Fatalf("errors: %v", diags.Errors())
	}
	var got []string
	for _, d := range diags.Warnings() {
		got = append(got, strings.TrimPrefix(d.String(), p.root+"/"))
	}
	want := `a/spec.yaml:14:31: warning: map.s of action "llm.generate": the schema does not require /s, so a valid reply may leave it out and s then keeps its value; add "s" to the schema's required, or give s a default that means "absent"`
	if len(got) != 1 || got[0] != want {
		t.Fatalf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}

	p = newProject(t, map[string]string{"a/spec.yaml": optionalSpec("[title, s]"), "a/ask.md": "x"})
	if _, _, diags := p.check("a/spec.yaml", p.deps("a", "")); len(diags) != 0 {
		t.Fatalf("every mapped property is required, yet: %v", diags)
	}
}

func TestGenerateLeavesVariableOfAbsentOptionalPropertyUnchanged(t *testing.T) {
	for _, c := range []struct {
		name, reply, s string
	}{
		{"absent", `{"title": "Lamps"}`, "unset"},
		{"present", `{"title": "Lamps", "s": "yes"}`, "yes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newProject(t, map[string]string{
				"a/spec.yaml": optionalSpec("[title]"),
				"a/ask.md":    "Name a book.",
				"a/demo.yaml": "replies:\n  - state: ask\n    text: '" + c.reply + "'\n",
			})
			rec := &recorder{}
			r, err := p.run("a/spec.yaml", p.deps("a", "demo.yaml"), nil, machine.WithObserver(rec))
			if err != nil {
				t.Fatal(err)
			}
			if r.State() != "done" || r.Var("title") != "Lamps" || r.Var("s") != c.s {
				t.Fatalf("state %s vars %v", r.State(), r.Vars())
			}
			if n := strings.Count(p.llm.String(), "\n"); n != 1 {
				t.Errorf("%d model calls, want 1 (no repair)", n)
			}
			note := "the reply leaves out /s, which the schema does not require: s keeps its value"
			if got := notes(rec.recs); strings.Contains(got, note) != (c.s == "unset") {
				t.Errorf("notes:\n%s", got)
			}
		})
	}
}

func TestGenerateNamesANullReplyInWords(t *testing.T) {
	for _, c := range []struct {
		name, reply, want string
	}{
		{"a null reply", `null`,
			`the model's reply in state "ask" is still invalid after 0 repair(s): the reply is null; send a JSON object valid against the schema, and nothing else`},
		{"a null property", `{"title": null}`,
			`the model's reply in state "ask" is still invalid after 0 repair(s): it does not satisfy the schema: validating /properties/title: type: null, want a string`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newProject(t, map[string]string{
				"a/spec.yaml": strings.Replace(optionalSpec("[title]"), "repairs: 1", "repairs: 0", 1),
				"a/ask.md":    "Name a book.",
				"a/demo.yaml": "replies:\n  - state: ask\n    text: '" + c.reply + "'\n",
			})
			_, err := p.run("a/spec.yaml", p.deps("a", "demo.yaml"), nil)
			if err == nil || !strings.HasSuffix(err.Error(), c.want) {
				t.Fatalf("got %v\nwant …%s", err, c.want)
			}
		})
	}
}

func TestGenerateRepairNamesANullReply(t *testing.T) {
	p := newProject(t, map[string]string{
		"a/spec.yaml": optionalSpec("[title]"),
		"a/ask.md":    "Name a book.",
		"a/demo.yaml": "replies:\n  - state: ask\n    text: 'null'\n  - state: ask\n    text: '{\"title\": \"Lamps\"}'\n",
	})
	rec := &recorder{}
	if _, err := p.run("a/spec.yaml", p.deps("a", "demo.yaml"), nil, machine.WithObserver(rec)); err != nil {
		t.Fatal(err)
	}
	want := "the reply was invalid (the reply is null; send a JSON object valid against the schema, and nothing else); asking again"
	if got := notes(rec.recs); !strings.Contains(got, want) {
		t.Fatalf("notes:\n%s\nwant %q", got, want)
	}
}
