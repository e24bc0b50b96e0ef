package runstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine"
)

// newTestRun makes a run and opens its journal.
func newTestRun(t testing.TB, policy Fsync) (*Run, *Journal) {
	t.Helper()
	run, err := New(t.TempDir()).Create(Meta{Spec: "x.yaml"}, []byte("spec"))
	if err != nil {
		t.Fatal(err)
	}
	j, err := run.OpenJournal(policy)
	if err != nil {
		t.Fatal(err)
	}
	return run, j
}

func journalLines(t testing.TB, run *Run) []string {
	t.Helper()
	b, err := os.ReadFile(run.Path(JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
	lines[len(lines)-1] += "\n"
	return lines
}

func writeLines(t testing.TB, run *Run, lines []string) {
	t.Helper()
	if err := os.WriteFile(run.Path(JournalFile), []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestJournalLinesCarryAChecksum(t *testing.T) {
	run, j := newTestRun(t, FsyncAlways)
	for i := 1; i <= 3; i++ {
		if err := j.OnStep(context.Background(), &machine.Record{Seq: i, From: "a", To: "a", Vars: map[string]any{"greeting": "Hello"}}); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	lines := journalLines(t, run)
	for i, l := range lines {
		if !strings.HasSuffix(l, "\"}\n") || !strings.Contains(l, `,"crc":"`) {
			t.Fatalf("line %d has no checksum: %s", i+1, l)
		}
	}
	tests := []struct {
		name string
		edit func([]string) []string
		want string // "" for no error
	}{
		{name: "whole lines load", edit: func(ls []string) []string { return ls }},
		{
			name: "a flipped byte inside a string is refused with its line",
			edit: func(ls []string) []string { return replaceIn(ls, 2, "Hello", "Jello") },
			want: "cannot read journal: JOURNAL:3: damaged line: the line's checksum is CRC but it was written with CRC: it was changed after it was written (a flipped byte, an edit), and the run cannot be rebuilt from it",
		},
		{
			name: "a line without a checksum after lines with one is refused",
			edit: func(ls []string) []string {
				i := strings.LastIndex(ls[2], `,"crc":"`)
				return append(ls[:2:2], ls[2][:i]+"}\n", ls[3])
			},
			want: "cannot read journal: JOURNAL:3: damaged line: the line has no checksum but the lines before it have one: it was changed or inserted after it was written, and the run cannot be rebuilt from it",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			writeLines(t, run, tt.edit(append([]string(nil), lines...)))
			defer writeLines(t, run, lines)
			l, err := run.ReadJournal()
			if tt.want == "" {
				if err != nil || l.Steps() != 3 {
					t.Fatalf("ReadJournal = %v steps, %v", l, err)
				}
				return
			}
			want := strings.ReplaceAll(tt.want, "JOURNAL", run.Path(JournalFile))
			got := ""
			if err != nil {
				got = hexCRC.ReplaceAllString(err.Error(), "is CRC but it was written with CRC")
			}
			if got != want || !errors.Is(err, errDamaged) {
				t.Errorf("ReadJournal error = %v\nwant %s", err, want)
			}
		})
	}
}

var hexCRC = regexp.MustCompile(`is [0-9a-f]{8} but it was written with [0-9a-f]{8}`)

func replaceIn(ls []string, i int, old, new string) []string {
	ls[i] = strings.Replace(ls[i], old, new, 1)
	return ls
}

func TestJournalWithoutChecksumsStillLoads(t *testing.T) {
	// A journal as versions before checksums wrote it.
	old := `{"type":"start","at":"2026-11-22T00:00:00Z","state":"a"}` + "\n" +
		`{"type":"step","seq":1,"from":"a","to":"b","via":"next[1]","vars":{"n":1,"xs":[1,2]},"start":"2026-11-22T00:00:00Z","duration":0}` + "\n" +
		`{"type":"step","seq":2,"from":"b","to":"b","via":"next[1]","vars":{"xs":[1,2,3]},"start":"2026-11-22T00:00:00Z","duration":0}` + "\n"
	l, err := ParseJournal([]byte(old))
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Records[1].Vars["xs"]; l.Steps() != 2 || !reflect.DeepEqual(got, []any{1, 2, 3}) {
		t.Errorf("steps %d, xs = %#v", l.Steps(), got)
	}
}

func TestListAndMapChangesAreWrittenAsDeltas(t *testing.T) {
	run, j := newTestRun(t, FsyncNever)
	big := strings.Repeat("x", 100)
	steps := []map[string]any{
		{"xs": []any{big}, "m": map[string]any{"a": big, "b": 1}},              // first write: in full
		{"xs": []any{big, 2}, "m": map[string]any{"a": big, "b": 2}},           // an append, a changed key
		{"xs": []any{big, 2, "3,4"}, "m": map[string]any{"a": big, "c": true}}, // an append, a set and a delete
		{"xs": []any{2}, "m": map[string]any{}},                                // not an append: in full
		{"xs": []any{2, []any{5}}},                                             // an append again
		{"xs": []any{}},                                                        // emptied: in full
		{"xs": []any{1}},                                                       // after an empty list: in full
		{"xs": []any{1, map[string]any{"k": big}}},                             // an append of a nested item
		{"xs": []any{1, map[string]any{"k": big}, 3.5}},                        // an append after a nested item
		{"xs": []any{1, map[string]any{"k": 1}, 3.5, 4}},                       // a nested item changed: in full
		{"xs": []any{1, map[string]any{"k": 1}, 3.5, 4, 5}},                    // an append, found on the JSON
		{"xs": 7}, // no longer a list
		{"xs": []any{1, map[string]any{"k": 1}, 3.5, 4, 5, 6}}, // a list again: in full
	}
	wantKind := []string{"vars", "vars_append vars_patch", "vars_append vars_patch", "vars", "vars_append", "vars", "vars", "vars_append", "vars_append", "vars", "vars_append", "vars", "vars"}
	for i, vars := range steps {
		if err := j.OnStep(context.Background(), &machine.Record{Seq: i + 1, From: "a", To: "a", Vars: vars}); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	lines := journalLines(t, run)[1:]
	for i, line := range lines {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &raw); err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for _, k := range []string{"vars", "vars_append", "vars_patch"} {
			if raw[k] != nil {
				kinds = append(kinds, k)
			}
		}
		if got := strings.Join(kinds, " "); got != wantKind[i] {
			t.Errorf("step %d is written with %q, want %q: %s", i+1, got, wantKind[i], line)
		}
	}
	if strings.Count(strings.Join(lines, ""), big) != 3 { // once in the list, once in the map, once nested
		t.Errorf("the long item is written more than once:\n%s", strings.Join(lines, ""))
	}
	for _, read := range []func() (*Log, error){run.ReadJournal, func() (*Log, error) { return ParseJournal([]byte(strings.Join(journalLines(t, run), ""))) }} {
		l, err := read()
		if err != nil {
			t.Fatal(err)
		}
		var walk Walker // a step that changed keys of a map holds only those
		for i, rec := range l.Records {
			if rec = walk.Next(rec); !reflect.DeepEqual(rec.Vars, steps[i]) {
				t.Errorf("step %d read back as %#v, want %#v", i+1, rec.Vars, steps[i])
			}
		}
	}
}

func TestAListChangedInPlaceIsNotTakenForAnAppend(t *testing.T) {
	run, j := newTestRun(t, FsyncNever)
	arr := make([]any, 3, 8)
	arr[0], arr[1], arr[2] = "a", "b", "c"
	first := map[string]any{"xs": arr}
	if err := j.OnStep(context.Background(), &machine.Record{Seq: 1, From: "a", To: "a", Vars: first}); err != nil {
		t.Fatal(err)
	}
	arr[0] = "changed" // the same array, changed, then grown
	arr = append(arr, "d")
	if err := j.OnStep(context.Background(), &machine.Record{Seq: 2, From: "a", To: "a", Vars: map[string]any{"xs": arr}}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	l, err := run.ReadJournal()
	if err != nil {
		t.Fatal(err)
	}
	if want := []any{"changed", "b", "c", "d"}; !reflect.DeepEqual(l.Records[1].Vars["xs"], want) {
		t.Errorf("step 2 read back as %#v, want %#v", l.Records[1].Vars["xs"], want)
	}
}

func TestALongReplyInVarsAndMemoryIsStoredOnce(t *testing.T) {
	for _, text := range []string{
		strings.Repeat("a reply of the model. ", 5<<20/22),
		strings.Repeat(`<b>"quoted" & é</b>`+"\n", 200),
	} {
		run, j := newTestRun(t, FsyncNever)
		msg, _ := json.Marshal(map[string]any{"role": "assistant", "text": "\n " + text + " \n"}) // escapes <, > and &
		rec := &machine.Record{Seq: 1, From: "optimizer", To: "evaluator", Action: "llm.optimizer",
			Vars:   map[string]any{"reply": text, "pending_tools": 0},
			Memory: []machine.MemOp{{Op: machine.OpAppend, Key: "l3", Value: msg}}}
		if err := j.OnStep(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
		j.Close()
		fi, _ := os.Stat(run.Path(JournalFile))
		if limit := int64(len(msg)) + 2048; fi.Size() > limit {
			t.Errorf("journal of %d bytes for a %d-byte reply: want at most %d (stored once)", fi.Size(), len(text), limit)
		}
		l, err := run.ReadJournal()
		if err != nil {
			t.Fatalf("%.60q: %v", text, err)
		}
		if got := l.Records[0].Vars["reply"]; got != text {
			t.Errorf("reply read back differs (%d bytes, want %d)", len(fmt.Sprint(got)), len(text))
		}
	}
}

func TestANonFiniteFloatIsRefusedBeforeAnythingIsWritten(t *testing.T) {
	tests := []struct {
		name string
		vars map[string]any
		want string
	}{
		{name: "NaN", vars: map[string]any{"f": math.NaN(), "n": 1}, want: "cannot write journal: step 2 sets f to NaN, which the journal (JSON) cannot hold; the step is not recorded (was it a division by zero?)"},
		{name: "+Inf in a list", vars: map[string]any{"xs": []any{1, math.Inf(1)}}, want: "cannot write journal: step 2 sets xs[1] to +Inf, which the journal (JSON) cannot hold; the step is not recorded (was it a division by zero?)"},
		{name: "-Inf in a map", vars: map[string]any{"m": map[string]any{"k": math.Inf(-1)}}, want: "cannot write journal: step 2 sets m.k to -Inf, which the journal (JSON) cannot hold; the step is not recorded (was it a division by zero?)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, j := newTestRun(t, FsyncAlways)
			defer j.Close()
			if err := j.OnStep(context.Background(), &machine.Record{Seq: 1, From: "a", To: "b"}); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(run.Path(JournalFile))
			err := j.OnStep(context.Background(), &machine.Record{Seq: 2, From: "b", To: "c", Vars: tt.vars})
			if err == nil || err.Error() != tt.want || !errors.Is(err, ErrUnencodable) {
				t.Fatalf("OnStep = %v, want %q", err, tt.want)
			}
			if after, _ := os.ReadFile(run.Path(JournalFile)); string(after) != string(before) {
				t.Errorf("the journal changed:\n%s", after)
			}
			if seq, state := j.Committed(); seq != 1 || state != "b" || j.Err() == nil {
				t.Errorf("Committed = %d %q, Err = %v; want 1 b and an error (the run must stop)", seq, state, j.Err())
			}
			if l, err := run.ReadJournal(); err != nil || l.Steps() != 1 {
				t.Errorf("ReadJournal = %v", err)
			}
		})
	}
}

func TestTheCommitRecordTellsLostLinesFromATornOne(t *testing.T) {
	run, j := newTestRun(t, FsyncAlways)
	for i := 1; i <= 4; i++ {
		if err := j.OnStep(context.Background(), &machine.Record{Seq: i, From: "a", To: "a", Action: "x.y"}); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	lines := journalLines(t, run) // start + 4 steps
	next := `{"type":"step","seq":5,"from":"a","to":"a","via":"","action":"x.y","start":"0001-01-01T00:00:00Z","duration":0}`
	tests := []struct {
		name  string
		lines []string
		steps int
		torn  int
		want  string
	}{
		{name: "all committed lines", lines: lines, steps: 4},
		{name: "a torn line after them is dropped", lines: append(lines[:5:5], next[:30]), steps: 4, torn: 30},
		{name: "a whole line after them (written, not yet recorded) is kept", lines: append(lines[:5:5], rechecksum(next)), steps: 5},
		{name: "the last line deleted", lines: lines[:4], want: "JOURNAL holds 4 complete lines (3 steps), but 5 lines (4 steps) were committed (journal.commit): line 5 (step 4) is lost (the file was cut short or lines were deleted), and the run cannot be rebuilt without them"},
		{name: "cut in the middle of line 3", lines: append(lines[:2:2], lines[2][:20]), want: "JOURNAL holds 2 complete lines (1 step) and a line cut short, but 5 lines (4 steps) were committed (journal.commit): lines 3–5 (steps 2–4) are lost (the file was cut short or lines were deleted), and the run cannot be rebuilt without them"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			writeLines(t, run, tt.lines)
			l, err := run.ReadJournal()
			if tt.want != "" {
				want := "cannot read journal: " + strings.ReplaceAll(tt.want, "JOURNAL", run.Path(JournalFile))
				if err == nil || err.Error() != want || !errors.Is(err, ErrLost) {
					t.Errorf("ReadJournal error = %v\nwant %s", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if l.Steps() != tt.steps || l.Torn != tt.torn {
				t.Errorf("steps %d torn %d, want %d %d", l.Steps(), l.Torn, tt.steps, tt.torn)
			}
		})
	}
}

// rechecksum returns line (without newline) with its checksum and newline.
func rechecksum(line string) string { return string(withCRC([]byte(line + "\n"))) }

func TestARoutingOnlyStepIsNotSyncedOnItsOwn(t *testing.T) {
	run, j := newTestRun(t, FsyncAlways)
	defer j.Close()
	committed := func() int {
		c, _, err := run.readCommit()
		if err != nil {
			t.Fatal(err)
		}
		return c.Steps
	}
	steps := []struct {
		rec  *machine.Record
		want int // steps in the commit record after it
	}{
		{&machine.Record{From: "a", To: "b", Action: "x.y"}, 1},
		{&machine.Record{From: "b", To: "c", Vars: map[string]any{"n": 1}}, 1},                   // routing only
		{&machine.Record{From: "c", To: "d"}, 1},                                                 // routing only
		{&machine.Record{From: "d", To: "e", Memory: []machine.MemOp{{Op: "put", Key: "k"}}}, 4}, // a memory change
		{&machine.Record{From: "e", To: "f", Via: "event RESET"}, 5},                             // an event from outside
		{&machine.Record{From: "f", To: "g", Input: &machine.Input{Kind: "approve"}}, 6},         // a person's answer
		{&machine.Record{From: "g", To: "h", Action: "noop"}, 6},                                 // noop: routing only
		{&machine.Record{From: "h", End: true}, 8},                                               // the end
	}
	for i, s := range steps {
		s.rec.Seq = i + 1
		if err := j.OnStep(context.Background(), s.rec); err != nil {
			t.Fatal(err)
		}
		if got := committed(); got != s.want {
			t.Errorf("after step %d (%s → %s) the commit record holds %d steps, want %d", i+1, s.rec.From, s.rec.To, got, s.want)
		}
	}
	if err := j.OnStep(context.Background(), &machine.Record{Seq: 9, From: "h", To: "i"}); err != nil {
		t.Fatal(err)
	}
	if err := j.Sync(); err != nil {
		t.Fatal(err)
	}
	if got := committed(); got != 9 {
		t.Errorf("after Sync the commit record holds %d steps, want 9", got)
	}
}

func FuzzParseJournal(f *testing.F) {
	f.Add([]byte(`{"type":"start"}` + "\n" + `{"type":"step","seq":1,"vars":{"xs":[1]}}` + "\n" + `{"type":"step","seq":2,"vars_append":{"xs":[2]}}` + "\n"))
	f.Add(withCRC([]byte(`{"type":"step","seq":1,"memory":[{"op":"put","key":"k","value":"abc"}],"vars_ref":{"s":{"op":0,"at":1,"len":2}}}` + "\n")))
	f.Add([]byte(`{"type":"step","seq":1,"vars":{"m":{"a":1}}}` + "\n" + `{"type":"step","seq":2,"vars_patch":{"m":{"set":{"b":2},"del":["a"]}}}` + "\n"))
	f.Add([]byte(`{"type":"step","seq":1,"vars":{"m":{}},"vars_patch":{"m":null},"vars_ref":{"s":null}}` + "\n"))
	f.Add([]byte(`{"type":"step","seq":1,"vars":{"s":"` + strings.Repeat("x", refMin) + `"}}` + "\n" + `{"type":"step","seq":2,"vars_concat":{"s":"é\n"}}` + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := ParseJournal(b) // must not panic
		if err == nil && l.Steps() != len(l.Records) {
			t.Fatalf("%d steps but %d records", l.Steps(), len(l.Records))
		}
	})
}
