package runstore

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// testMachine compiles testdata/counter.yaml with test.remember, an action
// that appends "step N" to memory slot l2, puts the step into "last" and
// extends the list and map variables (for its first ten steps).
func testMachine(t testing.TB) *machine.Machine {
	t.Helper()
	src, err := os.ReadFile("testdata/counter.yaml")
	if err != nil {
		t.Fatal(err)
	}
	spec, diags := mspec.Parse("counter.yaml", src)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	reg := machine.NewBuiltinRegistry()
	reg.MustRegister(machine.Action{
		Name:   "test.remember",
		Writes: []machine.VarSpec{{Name: "tags", Type: mspec.TypeList}, {Name: "seen", Type: mspec.TypeMap}},
		Run: func(_ context.Context, c *machine.Call) error {
			n := c.Var("n").(int)
			if err := c.Memory().Append("l2", fmt.Sprintf("K%d=%d", n, n*n)); err != nil {
				return err
			}
			if err := c.Memory().Put("last", map[string]any{"n": n}); err != nil {
				return err
			}
			if n >= 10 { // keep records small in long runs (the benchmark)
				return nil
			}
			tags := append(append([]any{}, c.Var("tags").([]any)...), n, fmt.Sprint("t", n))
			seen := map[string]any{}
			for k, v := range c.Var("seen").(map[string]any) {
				seen[k] = v
			}
			seen[fmt.Sprint(n)] = []any{n, 1.5}
			if err := c.SetVar("tags", tags); err != nil {
				return err
			}
			return c.SetVar("seen", seen)
		},
	})
	m, err := machine.Compile(spec, reg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestResumeFromJournalRebuildsContextAndMemory(t *testing.T) {
	m := testMachine(t)
	start := map[string]any{"limit": 6}
	ref, err := m.NewRun(start)
	if err != nil {
		t.Fatal(err)
	}
	if err := ref.Run(context.Background()); err != nil {
		t.Fatal(err)
	}

	for _, stopAfter := range []int{0, 1, 3, 5, 6} {
		t.Run(fmt.Sprintf("after %d steps", stopAfter), func(t *testing.T) {
			s := New(t.TempDir())
			run, err := s.Create(Meta{Spec: "counter.yaml", Vars: start}, []byte("spec"))
			if err != nil {
				t.Fatal(err)
			}
			j, err := run.OpenJournal(FsyncNever)
			if err != nil {
				t.Fatal(err)
			}
			r, err := m.NewRun(start, machine.WithObserver(j))
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < stopAfter; i++ {
				if _, err := r.Step(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			j.Close()

			run2, err := s.Open(run.Meta.ID)
			if err != nil {
				t.Fatal(err)
			}
			l, err := run2.ReadJournal()
			if err != nil {
				t.Fatal(err)
			}
			j2, err := run2.OpenJournal(FsyncNever)
			if err != nil {
				t.Fatal(err)
			}
			defer j2.Close()
			r2, err := m.Resume(run2.Meta.Vars, l.Records, machine.WithObserver(j2))
			if err != nil {
				t.Fatal(err)
			}
			if err := r2.Run(context.Background()); err != nil && err != machine.ErrFinished {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(r2.Vars(), ref.Vars()) {
				t.Errorf("vars after resume:\n got %#v\nwant %#v", r2.Vars(), ref.Vars())
			}
			got, _ := json.Marshal(r2.Memory())
			want, _ := json.Marshal(ref.Memory())
			if string(got) != string(want) {
				t.Errorf("memory after resume:\n got %s\nwant %s", got, want)
			}
			full, err := run2.ReadJournal()
			if err != nil {
				t.Fatal(err)
			}
			if full.Steps() != ref.Seq() {
				t.Errorf("journal holds %d steps, want %d", full.Steps(), ref.Seq())
			}
			snap, err := Fold(m.Spec(), run2.Meta.Vars, full)
			if err != nil {
				t.Fatal(err)
			}
			if !snap.Done || snap.State != "done" || len(snap.Path) != ref.Seq() {
				t.Errorf("snapshot: done=%v state=%q path=%v", snap.Done, snap.State, snap.Path)
			}
		})
	}
}

func TestParseJournal(t *testing.T) {
	step := func(seq int) string {
		return fmt.Sprintf(`{"type":"step","seq":%d,"from":"work","to":"work","via":"next[1]","start":"2026-11-22T00:00:00Z","duration":0}`+"\n", seq)
	}
	tests := []struct {
		name      string
		journal   string
		steps     int
		torn      int
		tornLine  int
		wantError string
	}{
		{name: "empty journal", journal: "", steps: 0},
		{name: "complete lines", journal: `{"type":"start","at":"2026-11-22T00:00:00Z"}` + "\n" + step(1) + step(2), steps: 2},
		{name: "torn last line without newline is ignored", journal: step(1) + step(2)[:40], steps: 1, torn: 40, tornLine: 2},
		{name: "invalid last line with newline is ignored", journal: step(1) + "{\"type\":\"st\x00\n", steps: 1, torn: 13, tornLine: 2},
		{name: "blank lines are skipped", journal: step(1) + "\n" + step(2), steps: 2},
		{name: "corrupt middle line is an error naming it", journal: step(1) + "garbage\n" + step(2), wantError: "cannot read journal: journal.jsonl:2: invalid JSON: invalid character 'g' looking for beginning of value"},
		{name: "a step committed twice is an error", journal: step(1) + step(2) + step(2), wantError: "cannot read journal: journal.jsonl:3: step 2 where step 3 was expected (a step committed twice or lost)"},
		{name: "a lost step is an error", journal: step(1) + step(3), wantError: "cannot read journal: journal.jsonl:2: step 3 where step 2 was expected (a step committed twice or lost)"},
		{name: "a line without type is an error", journal: `{"seq":1}` + "\n" + step(1), wantError: "cannot read journal: journal.jsonl:1: invalid JSON: no type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseJournal([]byte(tt.journal))
			if tt.wantError != "" {
				if err == nil || err.Error() != tt.wantError {
					t.Fatalf("error = %v, want %q", err, tt.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if l.Steps() != tt.steps || l.Torn != tt.torn || l.TornLine != tt.tornLine {
				t.Errorf("steps=%d torn=%d line=%d, want %d %d %d", l.Steps(), l.Torn, l.TornLine, tt.steps, tt.torn, tt.tornLine)
			}
		})
	}
}

func TestRepairCutsTornLineBeforeAppending(t *testing.T) {
	s := New(t.TempDir())
	run, err := s.Create(Meta{Spec: "x.yaml"}, []byte("spec"))
	if err != nil {
		t.Fatal(err)
	}
	j, _ := run.OpenJournal(FsyncAlways)
	if err := j.OnStep(context.Background(), &machine.Record{Seq: 1, From: "a", To: "b"}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	f, _ := os.OpenFile(run.Path(JournalFile), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"type":"step","seq":2,"fr`)
	f.Close()

	l, err := run.ReadJournal()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := l.TornNote(), run.Path(JournalFile)+":3: ignored a torn last line (26 bytes) left by an interrupted write"; got != want {
		t.Errorf("note = %q, want %q", got, want)
	}
	if err := run.Repair(l); err != nil {
		t.Fatal(err)
	}
	j, _ = run.OpenJournal(FsyncAlways)
	if err := j.OnStep(context.Background(), &machine.Record{Seq: 2, From: "b", To: "c"}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	l, err = run.ReadJournal()
	if err != nil {
		t.Fatal(err)
	}
	if l.Steps() != 2 || l.Torn != 0 {
		t.Errorf("after repair: %d steps, torn %d; want 2, 0", l.Steps(), l.Torn)
	}
}

func TestStoreCreateOpenList(t *testing.T) {
	s := New(filepath.Join(t.TempDir(), "runs"))
	now := time.Date(2026, 11, 22, 15, 30, 12, 0, time.UTC)
	a, err := s.Create(Meta{Spec: "a.yaml", Start: now}, []byte("a"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Create(Meta{Spec: "b.yaml", Start: now.Add(time.Second)}, []byte("b"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^20261122-153012-[0-9a-f]{6}$`).MatchString(a.Meta.ID) {
		t.Errorf("ID %q is not TIME-RANDOM", a.Meta.ID)
	}
	if a.Meta.Status != machine.StatusRunning || a.Meta.Fsync != FsyncAlways || a.Meta.SpecSHA256 != SpecHash([]byte("a")) {
		t.Errorf("defaults not filled: %+v", a.Meta)
	}
	runs, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].Meta.ID != a.Meta.ID || runs[1].Meta.ID != b.Meta.ID {
		t.Errorf("List = %v, want a then b", runs)
	}
	got, err := s.Open(b.Meta.ID[:17]) // a unique prefix
	if err != nil || got.Meta.Spec != "b.yaml" {
		t.Errorf("Open(prefix) = %v, %v", got, err)
	}
	_, err = s.Open("2026")
	if err == nil || !strings.Contains(err.Error(), "the prefix matches 2 runs") {
		t.Errorf("ambiguous prefix: %v", err)
	}
	_, err = s.Open("nope")
	if want := fmt.Sprintf(`cannot open run "nope": no such run in %s (lppctl runs lists them)`, s.Dir); err == nil || err.Error() != want {
		t.Errorf("unknown run: %v, want %q", err, want)
	}
	if _, err := s.Open("../x"); err == nil {
		t.Error("a path escaping the store was accepted")
	}
	src, err := a.SpecCopy()
	if err != nil || string(src) != "a" {
		t.Errorf("spec copy = %q, %v", src, err)
	}
}

func TestMetaRoundTripKeepsTypes(t *testing.T) {
	s := New(t.TempDir())
	vars := map[string]any{"limit": 3, "ratio": 2.5, "tags": []any{1, "x", 2.5}, "seen": map[string]any{"a": 1}}
	run, err := s.Create(Meta{Spec: "x.yaml", Vars: vars, Pause: &machine.PauseError{State: "ask", Kind: "approval", Prompt: "ok?", Options: []string{"approve", "reject"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Open(run.Meta.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Meta.Vars, vars) {
		t.Errorf("vars = %#v, want %#v", got.Meta.Vars, vars)
	}
	if !reflect.DeepEqual(got.Meta.Pause, run.Meta.Pause) {
		t.Errorf("pause = %#v", got.Meta.Pause)
	}
}

func TestDiffSpecsNamesChangedStates(t *testing.T) {
	parse := func(src string) *mspec.Spec {
		spec, diags := mspec.Parse("x.yaml", []byte(src))
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		return spec
	}
	base := `lpp: 1
name: x
context:
  n: {type: int, default: 0}
initial: a
states:
  a:
    do: log
    with: {message: hi}
    next: [{to: b, when: n > 1}, {to: c}]
  b: {do: noop, next: [{to: c}]}
  c: {final: true}
`
	tests := []struct {
		name string
		edit func(string) string
		want []string
	}{
		{name: "comment only", edit: func(s string) string { return "# a comment\n" + s }, want: nil},
		{name: "guard changed", edit: func(s string) string { return strings.Replace(s, "n > 1", "n > 2", 1) }, want: []string{`state "a": changed (next)`}},
		{name: "parameter changed", edit: func(s string) string { return strings.Replace(s, "hi", "ho", 1) }, want: []string{`state "a": changed (with)`}},
		{name: "state added and action changed", edit: func(s string) string {
			return strings.Replace(s, "b: {do: noop, next: [{to: c}]}", "b: {do: log, with: {message: x}, next: [{to: d}]}\n  d: {do: noop, next: [{to: c}]}", 1)
		}, want: []string{`state "b": changed (do, with, next)`, `state "d": added`}},
		{name: "default changed", edit: func(s string) string { return strings.Replace(s, "default: 0", "default: 1", 1) }, want: []string{`context variable "n": changed`}},
		{name: "on added", edit: func(s string) string {
			return strings.Replace(s, "b: {do: noop, next: [{to: c}]}", "b: {do: noop, on: {GO: c}, next: [{to: c}]}", 1)
		}, want: []string{`state "b": changed (on)`}},
		{name: "event added", edit: func(s string) string {
			return s + "events:\n  GO: {from: a, to: c}\n"
		}, want: []string{`event "GO": added`}},
		{name: "extra payload fields dropped", edit: func(s string) string {
			return s + "extra_payload_fields: drop\n"
		}, want: []string{`extra_payload_fields: refuse → drop`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DiffSpecs(parse(base), parse(tt.edit(base)))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("DiffSpecs = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTokensSumsLLMLog(t *testing.T) {
	s := New(t.TempDir())
	run, err := s.Create(Meta{Spec: "x.yaml"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	log := `{"model":"m","usage":{"input_tokens":10,"output_tokens":5}}
{"total_tokens":7}
{"prompt_tokens":1,"completion_tokens":2}
not json
`
	if err := os.WriteFile(run.Path(LLMFile), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := run.Tokens(); got != 25 {
		t.Errorf("Tokens = %d, want 25", got)
	}
}

func TestParseFsync(t *testing.T) {
	for in, want := range map[string]Fsync{"": FsyncAlways, "always": FsyncAlways, "never": FsyncNever} {
		if got, err := ParseFsync(in); err != nil || got != want {
			t.Errorf("ParseFsync(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseFsync("sometimes"); err == nil || err.Error() != `cannot use fsync policy "sometimes": want always or never` {
		t.Errorf("ParseFsync(sometimes) error = %v", err)
	}
}
