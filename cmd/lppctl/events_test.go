package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/lppctl/lppctl/machine"
)

const waitSpec = `lpp: 1
name: wait
context:
  reason: {type: string, default: ""}
initial: triage
states:
  triage:
    do: log
    with: {message: triage}
    on:
      ESCALATE: {to: done, set: {reason: event.payload.reason}}
  done: {final: true}
events:
  ESCALATE:
    payload: {reason: string}
`

// lppctlIn runs the CLI in the current directory.
func lppctlIn(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"lppctl"}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// TestEventExitCodes: a waiting run pauses (4); a refused event is a usage
// error (2) and leaves the run as it was; a delivered one completes it (0);
// an event for a completed run is refused (2), not dropped.
func TestEventExitCodes(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "wait.yaml"), []byte(waitSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	code, out, errOut := lppctlIn(t, "run", "wait.yaml")
	if code != exitPaused {
		t.Fatalf("run: exit %d, want %d\n%s%s", code, exitPaused, out, errOut)
	}
	id := regexp.MustCompile(`run (\S+) \(journal`).FindStringSubmatch(errOut)
	if id == nil {
		t.Fatalf("no run ID in %q", errOut)
	}
	steps := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
		wantOut  string
	}{
		{"payload fails its schema", []string{"--event", "ESCALATE", "--payload", `{"reason": 3}`}, exitUsage,
			`lppctl: cannot fire event "ESCALATE": payload field "reason": the number 3 is not a string`, ""},
		{"payload gives null for a required field", []string{"--event", "ESCALATE", "--payload", `{"reason": null}`}, exitUsage,
			`lppctl: cannot fire event "ESCALATE": payload field "reason" is null, but it is required (string)`, ""},
		{"payload is not an object", []string{"--event", "ESCALATE", "--payload", `["late"]`}, exitUsage,
			`lppctl: --payload ["late"] for event ESCALATE: an array is not an object; give one JSON object`, ""},
		{"payload without an event", []string{"--payload", `{"reason": "late"}`}, exitUsage,
			"lppctl: --payload goes with an event: lppctl resume RUN_ID --event NAME --payload JSON", ""},
		{"unknown event", []string{"--event", "ESCALTE"}, exitUsage,
			`lppctl: cannot fire event "ESCALTE": the spec defines no such event; did you mean "ESCALATE"?`, ""},
		{"event delivered", []string{"--event", "ESCALATE", "--payload", `{"reason": "late"}`}, 0,
			"", `[2] triage → done  event ESCALATE {"reason":"late"}`},
		{"completed run refuses events", []string{"--event", "ESCALATE", "--payload", `{"reason": "again"}`}, exitUsage,
			`lppctl: cannot fire event "ESCALATE": run ` + id[1] + ` has already completed in done; a completed run takes no events`, ""},
	}
	for _, s := range steps {
		code, out, errOut := lppctlIn(t, append([]string{"resume", id[1]}, s.args...)...)
		if code != s.wantCode {
			t.Fatalf("%s: exit %d, want %d\n%s%s", s.name, code, s.wantCode, out, errOut)
		}
		if s.wantErr != "" && !strings.Contains(errOut, s.wantErr) {
			t.Errorf("%s: stderr %q, want %q", s.name, errOut, s.wantErr)
		}
		if !strings.Contains(out, s.wantOut) {
			t.Errorf("%s: stdout %q, want %q", s.name, out, s.wantOut)
		}
	}
}

func TestEventArgsPairing(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		want     string
		wantCode int
		wantErr  string
	}{
		{"payload goes with the event of the same rank", []string{"--event", "A", "--payload", `{"x":1}`, "--event", "B"}, `A{"x":1} B`, 0, ""},
		{"more payloads than events", []string{"--event", "A", "--payload", "{}", "--payload", "{}"}, "", exitUsage,
			"2 --payload for 1 --event: the i-th --payload goes with the i-th --event"},
		{"payload with text after it", []string{"--event", "A", "--payload", `{} {}`}, "", exitUsage,
			"--payload {} {} for event A: text after the object; give one JSON object, e.g. --payload '{\"reason\": \"late\"}'"},
		{"integer beyond a float's precision keeps its digits", []string{"--event", "A", "--payload", `{"k": 9007199254740993, "l": [9007199254740993]}`},
			`A{"k":9007199254740993,"l":[9007199254740993]}`, 0, ""},
		{"string payload", []string{"--event", "A", "--payload", `"late"`}, "", exitUsage,
			"--payload \"late\" for event A: a string is not an object; give one JSON object, e.g. --payload '{\"reason\": \"late\"}'"},
		{"empty payload", []string{"--event", "A", "--payload", ` `}, "", exitUsage,
			"--payload  for event A: no JSON text; give one JSON object, e.g. --payload '{\"reason\": \"late\"}'"},
		{"duplicate key", []string{"--event", "A", "--payload", `{"team":"a","team":"b"}`}, "", exitUsage,
			`--payload {"team":"a","team":"b"} for event A: key "team" is given twice; give each key once`},
		{"duplicate key inside a value", []string{"--event", "A", "--payload", `{"meta": [{"id": 1, "id": 2}]}`}, "", exitUsage,
			`--payload {"meta": [{"id": 1, "id": 2}]} for event A: key "meta[0].id" is given twice; give each key once`},
		{"the same key in two objects", []string{"--event", "A", "--payload", `{"a": {"id": 1}, "b": {"id": 2}}`},
			`A{"a":{"id":1},"b":{"id":2}}`, 0, ""},
		{"a number beyond a float's range", []string{"--event", "A", "--payload", `{"n": 1e400}`}, "", exitUsage,
			`--payload {"n": 1e400} for event A: "n" is 1e400, beyond a number's range (±1.8e308); give a smaller one`},
		{"a number beyond a float's range inside a value", []string{"--event", "A", "--payload", `{"m": {"l": [1, -2e308]}}`}, "", exitUsage,
			`--payload {"m": {"l": [1, -2e308]}} for event A: "m.l[1]" is -2e308, beyond a number's range (±1.8e308); give a smaller one`},
		{"the largest float and a long integer are numbers", []string{"--event", "A", "--payload", `{"f": 1.7e308, "i": 123456789012345678901234567890}`},
			`A{"f":1.7e+308,"i":1.2345678901234568e+29}`, 0, ""},
		{"null payload", []string{"--event", "A", "--payload", `null`}, "", exitUsage,
			"--payload null for event A: not an object; give one JSON object, e.g. --payload '{\"reason\": \"late\"}'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			app := newApp(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
			var got string
			var gotErr error
			for _, cmd := range app.Commands {
				if cmd.Name == "run" {
					cmd.Action = func(c *cli.Context) error {
						evs, err := eventArgs(c)
						gotErr = err
						var parts []string
						for _, e := range evs {
							parts = append(parts, e.name+machine.FormatPayload(e.payload))
						}
						got = strings.Join(parts, " ")
						return nil
					}
				}
			}
			if err := app.Run(append([]string{"lppctl", "run"}, tc.args...)); err != nil {
				t.Fatal(err)
			}
			if tc.wantErr != "" {
				if gotErr == nil || gotErr.Error() != tc.wantErr || exitCode(gotErr) != tc.wantCode {
					t.Fatalf("error %v (exit %d), want %q (exit %d)", gotErr, exitCode(gotErr), tc.wantErr, tc.wantCode)
				}
				return
			}
			if gotErr != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, gotErr, tc.want)
			}
		})
	}
}

func TestViaText(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct {
		name string
		rec  machine.Record
		want string
	}{
		{"plain next", machine.Record{Via: "next[0]"}, "next[0]"},
		{"guard", machine.Record{Via: "next[1]", Guard: "n > 1"}, "[n > 1]"},
		{"event without payload", machine.Record{Via: "event GO", Event: "GO"}, "event GO"},
		{"event with guard and payload", machine.Record{Via: "on GO[0]", Event: "GO", Guard: "event.payload.n > 1", Payload: map[string]any{"n": 2}},
			`event GO {"n":2} [event.payload.n > 1]`},
		{"long payload is cut", machine.Record{Event: "GO", Payload: map[string]any{"s": long}},
			`event GO {"s":"` + strings.Repeat("x", 53) + "…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := viaText(&tc.rec); got != tc.want {
				t.Fatalf("viaText = %q, want %q", got, tc.want)
			}
		})
	}
}
