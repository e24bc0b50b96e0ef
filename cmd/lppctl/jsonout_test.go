package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// decodeJSONLines decodes stdout as JSON Lines into a slice of T, failing the
// test when a line is not one compact JSON value of that type.
func decodeJSONLines[T any](t *testing.T, stdout string) []T {
	t.Helper()
	var items []T
	for i, line := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		if line == "" && stdout == "" {
			break
		}
		var it T
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&it); err != nil || dec.More() {
			t.Fatalf("stdout line %d is not one JSON value of type %T (%v):\n%s", i+1, it, err, stdout)
		}
		items = append(items, it)
	}
	return items
}

func TestPrintJSONLinesWritesOneCompactObjectPerItem(t *testing.T) {
	tests := []struct {
		name  string
		items []map[string]string
		want  string
	}{
		{"no items print nothing", nil, ""},
		{"one item", []map[string]string{{"a": "<b>"}}, "{\"a\":\"<b>\"}\n"},
		{"two items", []map[string]string{{"a": "1"}, {"b": "2"}}, "{\"a\":\"1\"}\n{\"b\":\"2\"}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := printJSONLines(&b, tt.items); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got %q, want %q", b.String(), tt.want)
			}
		})
	}
}

const counterSpec = `lpp: 1
name: counter
context:
  n: {type: int, default: 0}
initial: start
states:
  start:
    set: {n: n + 1}
    next:
      - {to: done, when: n >= 2}
      - to: start
  done: {final: true}
`

// TestJSONOutputConvention runs every command that has --json and checks the
// README's convention: stdout holds only JSON; commands about records print
// one compact object per line, commands about one thing print one object.
func TestJSONOutputConvention(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("LPPCTL_RUN_DIR", filepath.Join(dir, "runs"))
	lib := filepath.Join(dir, "skills.json")
	spec := filepath.Join(dir, "counter.yaml")
	if err := os.WriteFile(spec, []byte(counterSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, "skills", "add", "--library", lib, "-p", "Retry with backoff.", "-w", "On 429.", "retry"); code != 0 {
		t.Fatalf("skills add: %d %s", code, errOut)
	}
	code, out, errOut := runCLI(t, "run", "--json", spec)
	if code != 0 {
		t.Fatalf("run: %d %s", code, errOut)
	}
	var first struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &first); err != nil || first.RunID == "" {
		t.Fatalf("run --json's first line names no run_id (%v):\n%s", err, out)
	}
	tests := []struct {
		name    string
		args    []string
		records bool // JSON Lines, else one object
		atLeast int  // records
	}{
		{"run", []string{"run", "--json", spec}, true, 4},
		{"runs", []string{"runs", "--json"}, true, 2},
		{"runs trace", []string{"runs", "trace", "--json", first.RunID}, true, 4},
		{"runs show", []string{"runs", "show", "--json", first.RunID}, false, 1},
		{"actions", []string{"actions", "--json"}, true, 10},
		{"validate", []string{"validate", "--json", spec, goodSpec}, true, 2},
		{"skills list", []string{"skills", "list", "--json", "--library", lib}, true, 1},
		{"skills search", []string{"skills", "search", "--json", "--library", lib, "backoff"}, true, 1},
		{"skills update", []string{"skills", "update", "--json", "--library", lib, "-w", "On 429 or 503.", "retry"}, false, 1},
		{"skills remove", []string{"skills", "remove", "--json", "--library", lib, "retry"}, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !strings.HasSuffix(out, "\n") {
				t.Fatalf("stdout does not end with a newline:\n%s", out)
			}
			if !tt.records {
				var obj map[string]any
				if err := json.Unmarshal([]byte(out), &obj); err != nil {
					t.Fatalf("stdout is not one JSON object (%v):\n%s", err, out)
				}
				return
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			for i, line := range lines {
				var obj map[string]any
				if err := json.Unmarshal([]byte(line), &obj); err != nil {
					t.Fatalf("stdout line %d is not a JSON object (%v):\n%s", i+1, err, out)
				}
			}
			if len(lines) < tt.atLeast {
				t.Errorf("%d JSON lines, want at least %d:\n%s", len(lines), tt.atLeast, out)
			}
		})
	}
}
