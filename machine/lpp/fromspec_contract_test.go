package lpp

import (
	"errors"
	"strings"
	"testing"

	mspec "github.com/lppctl/lppctl/machine/spec"
)

// The import writes a terminal contract's non_null outputs as the final
// state's final_requires, named after the output and positioned at it in
// the JSON; FromSpec writes the contract back as it was, not twice.
func TestImportWritesTheTerminalContractAsFinalRequires(t *testing.T) {
	bp, spec := importSpec(t, "../testdata/lpp/ticket.json")
	done := spec.State("done")
	if done == nil || len(done.FinalRequires) != 1 {
		t.Fatalf("final_requires of done: %+v", done)
	}
	if c := done.FinalRequires[0]; c.Name != "target" || c.Expr != "target != nil" {
		t.Errorf("final_requires of done: %q: %q, want target: target != nil", c.Name, c.Expr)
	}
	if c := spec.State("cancelled"); len(c.FinalRequires) != 0 {
		t.Errorf("cancelled has no contract, but final_requires %+v", c.FinalRequires)
	}
	tr, err := Translate(bp, nil)
	if err != nil {
		t.Fatal(err)
	}
	tspec, _ := tr.Spec()
	p, ok := tr.Origin(tspec.State("done").FinalRequires[0].Pos.Line)
	if want := bp.Terminal("done").Outputs[0].Pos; !ok || p != want {
		t.Errorf("the condition comes from %v, want the output's key at %v", p, want)
	}
	out, err := FromSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(out), `"non_null"`); n != 1 {
		t.Errorf("the written blueprint has %d non_null, want 1:\n%s", n, out)
	}
}

// A non_null output that is not a context property cannot be checked:
// the import warns at it and writes no condition for it.
func TestImportWarnsOfAContractOutputThatIsNoProperty(t *testing.T) {
	src := `{"$schema": "lpp/v0.2.0", "id": "c",
"context_schema": {"properties": {"x": {"type": "string"}}},
"states": {"a": {}, "b": {}}, "entry_state": "a",
"terminal_states": {"b": {"output_schema": {"x": {"type": "string", "non_null": true}, "report": {"type": "string", "non_null": true}}}},
"transitions": [{"id": "t", "from": "a", "to": "b", "on_event": "GO"}], "name": "x", "version": "1"}`
	bp, diags := Parse("c.json", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	want := `output "report" of terminal state "b" is not a context property: its non_null cannot be checked`
	if len(bp.Warnings) != 1 || bp.Warnings[0].Msg != want || bp.Warnings[0].Pos != (mspec.Pos{Line: 4, Col: 88}) {
		t.Fatalf("warnings %v, want at 4:88: %s", bp.Warnings, want)
	}
	tr, err := Translate(bp, nil)
	if err != nil {
		t.Fatal(err)
	}
	spec, sd := tr.Spec()
	if sd.HasErrors() {
		t.Fatal(sd.Err())
	}
	var got []string
	for _, c := range spec.State("b").FinalRequires {
		got = append(got, c.Name+": "+c.Expr)
	}
	if strings.Join(got, "; ") != "x: x != nil" {
		t.Errorf("final_requires %q, want x: x != nil", got)
	}
}

// A hand-written spec's final_requires NAME != nil become its terminal
// contract, which imports back into the same final_requires.
func TestFromSpecWritesFinalRequiresAsTheTerminalContract(t *testing.T) {
	src := `lpp: 1
name: s
context:
  who: {type: string, nullable: true}
  n: {type: int, default: 0}
initial: a
states:
  a:
    on:
      GO: [{to: b, set: {who: event.payload.who}}]
  b:
    final: true
    final_requires: {named: who != nil, again: 'who!=nil'}
  c:
    final: true
    final_requires: ['n != nil']
events:
  GO:
    payload: {who: {type: string, required: false}}
`
	spec, diags := mspec.Parse("s.yaml", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	out, err := FromSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	bp, diags := Parse("s.json", out)
	if diags.HasErrors() {
		t.Fatalf("%v\n%s", diags.Err(), out)
	}
	contract := func(id string) string {
		var parts []string
		for _, f := range bp.Terminal(id).Outputs {
			parts = append(parts, f.Name+" "+f.Type+map[bool]string{true: " non_null"}[f.NonNull])
		}
		return strings.Join(parts, ", ")
	}
	if b, c := contract("b"), contract("c"); b != "who string non_null" || c != "n integer non_null" {
		t.Errorf("contracts b: %q, c: %q; want who string non_null, n integer non_null\n%s", b, c, out)
	}
	yml, err := ToSpecYAML(bp, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(yml), "    final_requires:"+
		" # the terminal contract: output_schema fields with non_null (lppctl check proves them)\n      who: who != nil\n") {
		t.Errorf("the blueprint imports without its final_requires:\n%s", yml)
	}
}

// A condition a terminal contract cannot say is refused at its position.
func TestFromSpecRefusesFinalRequires(t *testing.T) {
	tests := []struct{ name, meta, reqs, want string }{
		{"a condition beyond NAME != nil", "", "{small: n < 3}",
			`s.yaml:7:37: cannot write state "b" as L++: final_requires "small" (n < 3) has no L++ equivalent: a terminal contract only says that a context variable is not null (NAME != nil)`},
		{"an unknown variable", "", "['m != nil']",
			`s.yaml:7:37: cannot write state "b" as L++: final_requires "final_requires[0]" (m != nil) has no L++ equivalent: a terminal contract only says that a context variable is not null (NAME != nil)`},
		{"a condition added to an imported contract", `# lpp-blueprint: {"schema":"lpp/v0.2.0","terminals":[{"id":"b","contract":{"output_schema":{"n":{"non_null":true}}}}]}` + "\n",
			"{n: n != nil, other: n > 1}",
			`s.yaml:8:50: cannot write state "b" as L++: final_requires "other" (n > 1) is not in the terminal contract the spec was imported with (add the output to its contract in the # lpp-blueprint: line, or remove the condition)`},
		{"a contract in a v0.1.x blueprint", `# lpp-blueprint: {"schema":"lpp/v0.1.2","terminal_list":true}` + "\n", "{n: n != nil}",
			`s.yaml:8:37: cannot write state "b" as L++: final_requires "n" (n != nil): a v0.1.x blueprint's terminal_states lists ids, without contracts (export as v0.2.0: remove the spec's # lpp-blueprint: line, or the condition)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := tt.meta + "lpp: 1\nname: s\ncontext: {n: {type: int, default: 0}}\ninitial: a\nstates:\n  a: {next: [{to: b}]}\n  b: {final: true, final_requires: " + tt.reqs + "}\n"
			spec, diags := mspec.Parse("s.yaml", []byte(src))
			if diags.HasErrors() {
				t.Fatal(diags.Err())
			}
			_, err := FromSpec(spec)
			var fe *FromSpecError
			if !errors.As(err, &fe) || err.Error() != tt.want {
				t.Fatalf("FromSpec: %v\nwant %s", err, tt.want)
			}
		})
	}
}
