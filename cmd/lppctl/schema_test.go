package main

import (
	"os"
	"testing"
)

func TestSchemaCommandPrintsTheCommittedSchema(t *testing.T) {
	code, out, errOut := runCLI(t, "schema")
	if code != 0 {
		t.Fatalf("exit code %d: %s", code, errOut)
	}
	want, err := os.ReadFile("../../docs/spec.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("lppctl schema differs from docs/spec.schema.json")
	}
}
