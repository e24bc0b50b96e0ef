package main

import (
	"os"
	"strings"
	"testing"
)

const schemaFile = "../../docs/spec.schema.json"

// TestSchemaCommandPrintsTheCommittedSchema keeps docs/spec.schema.json equal
// to what `lppctl schema` prints (-update rewrites it).
func TestSchemaCommandPrintsTheCommittedSchema(t *testing.T) {
	code, out, errOut := runCLI(t, "schema")
	if code != 0 {
		t.Fatalf("exit code %d: %s", code, errOut)
	}
	if *updateScripts {
		if err := os.WriteFile(schemaFile, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("lppctl schema differs from docs/spec.schema.json (run with -update to accept)")
	}
	// Editors complete `do:` from the registered actions, the agent's too.
	for _, name := range []string{`"noop"`, `"wait"`, `"llm.planner"`, `"llm.optimizer"`, `"memory.prepare_step"`} {
		if !strings.Contains(out, name) {
			t.Errorf("the schema does not name the action %s", name)
		}
	}
}
