package main

import (
	"reflect"
	"strings"
	"testing"
)

func TestActionsCommandListsBuiltins(t *testing.T) {
	code, out, errOut := runCLI(t, "actions")
	if code != 0 {
		t.Fatalf("exit code %d: %s", code, errOut)
	}
	for _, want := range []string{
		"log ", "records a message, optionally with the value of an expression\n",
		"with: message: string (required), value: expr, level: string = info\n",
		"wait ", "with: duration: string (duration) (required)\n",
		"needs in run memory: plan, l3\n", "provides in run memory: plan\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestActionsCommandJSON(t *testing.T) {
	code, out, errOut := runCLI(t, "actions", "--json")
	if code != 0 {
		t.Fatalf("exit code %d: %s", code, errOut)
	}
	acts := decodeJSONLines[jsonAction](t, out)
	byName := map[string]jsonAction{}
	for _, a := range acts {
		byName[a.Name] = a
	}
	log, ok := byName["log"]
	if !ok {
		t.Fatalf("no log action in %s", out)
	}
	if len(log.Params) != 3 || !reflect.DeepEqual(log.Params[0], jsonParam{Name: "message", Type: "string", Required: true, Doc: "the text to record"}) {
		t.Errorf("unexpected log params: %+v", log.Params)
	}
	if log.Signature != "message: string (required), value: expr, level: string = info" {
		t.Errorf("signature = %q", log.Signature)
	}
	if wait := byName["wait"]; len(wait.Params) != 1 || wait.Params[0].Format != "duration" {
		t.Errorf("wait's duration has no format \"duration\": %+v", wait.Params)
	}
}

func TestActionsCommandListsGeneralActionsAndTheirWrites(t *testing.T) {
	code, out, errOut := runCLI(t, "actions")
	if code != 0 {
		t.Fatalf("exit code %d: %s", code, errOut)
	}
	for _, want := range []string{
		"with: prompt: file (required), system: file, output: string, schema: any, map: map, repairs: int = 2, tools: list, max_rounds: int = 4, max_reply_chars: int = 0\n",
		"writes: the variable named by output (string) and map's keys (typed by the schema)\n",
		"with: tool: string (required), command: string, args: map, result: string, status: string\n",
		"with: script: string (required), input: map, output: map, lpp: bool = false, defines: map\n",
		"writes: output's keys (each checked against its variable's type), and defines' keys (bool: true when the output has the key named)\n",
		"with: path: expr (required), ok: string, errors: string, report: string, check: bool = false, max_states: int = 200000\n",
		"writes: the variables named by ok (bool), errors (int) and report (string)\n",
		"with: spec: file (required), input: map, output: map, max_depth: int = 4\n",
		"writes: output's keys (copied from the child's variables when it completes)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
