package machine_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

func TestNotesAreJournaledAsStringsUnlessTheyHaveASeverity(t *testing.T) {
	for _, c := range []struct {
		name string
		note mspec.Note
		json string
		text string
	}{
		{"a plain note is a string, as before severities", mspec.Note{Text: "read 3 files"}, `"read 3 files"`, "read 3 files"},
		{"a warning is an object", mspec.Note{Text: "no skills", Severity: mspec.NoteWarning}, `{"text":"no skills","severity":"warning"}`, "warning: no skills"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := json.Marshal(c.note)
			if err != nil || string(b) != c.json {
				t.Fatalf("Marshal = %s, %v; want %s", b, err, c.json)
			}
			var back mspec.Note
			if err := json.Unmarshal(b, &back); err != nil || back != c.note {
				t.Fatalf("Unmarshal(%s) = %+v, %v; want %+v", b, back, err, c.note)
			}
			if c.note.String() != c.text {
				t.Errorf("String() = %q, want %q", c.note.String(), c.text)
			}
		})
	}
}

func TestRecordsWrittenBeforeSeveritiesStillRead(t *testing.T) {
	var rec machine.Record
	old := `{"seq":1,"from":"a","to":"b","via":"next[0]","notes":["warning: text of an old warning","done"],"start":"2026-01-02T03:04:05Z","duration":0}`
	if err := json.Unmarshal([]byte(old), &rec); err != nil {
		t.Fatal(err)
	}
	want := []mspec.Note{{Text: "warning: text of an old warning"}, {Text: "done"}}
	if len(rec.Notes) != 2 || rec.Notes[0] != want[0] || rec.Notes[1] != want[1] {
		t.Fatalf("notes = %+v, want %+v", rec.Notes, want)
	}
	err := json.Unmarshal([]byte(`{"notes":[42]}`), &rec)
	if want := `cannot read note 42: it must be a string or {"text": ..., "severity": ...}`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestWarnfRecordsAWarningNoteInTheStep(t *testing.T) {
	reg := machine.NewBuiltinRegistry()
	reg.MustRegister(machine.Action{Name: "check", Run: func(_ context.Context, c *machine.Call) error {
		c.Notef("looked at %d files", 2)
		c.Warnf("file %s is empty", "a.txt")
		return nil
	}})
	m := compileSpec(t, `
lpp: 1
name: warn
initial: a
states:
  a: {do: check, next: done}
  done: {final: true}
`, reg)
	rec := &recorder{}
	r, _ := m.NewRun(nil, machine.WithObserver(rec))
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []mspec.Note{{Text: "looked at 2 files"}, {Text: "file a.txt is empty", Severity: mspec.NoteWarning}}
	got := rec.recs[0].Notes
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("notes = %+v, want %+v", got, want)
	}
	b, _ := json.Marshal(got)
	if string(b) != `["looked at 2 files",{"text":"file a.txt is empty","severity":"warning"}]` {
		t.Errorf("journaled as %s", b)
	}
}

func TestLogWithLevelWarningRecordsAWarning(t *testing.T) {
	m := compileSpec(t, `
lpp: 1
name: warn
context: {n: {type: int, default: 3}}
initial: a
states:
  a: {do: log, with: {message: disk almost full, value: n, level: warning}, next: b}
  b: {do: log, with: {message: "warning: only a note"}, next: done}
  done: {final: true}
`, nil)
	rec := &recorder{}
	r, _ := m.NewRun(nil, machine.WithObserver(rec))
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []mspec.Note{{Text: "disk almost full 3", Severity: mspec.NoteWarning}, {Text: "warning: only a note"}}
	for i, w := range want {
		if got := rec.recs[i].Notes; len(got) != 1 || got[0] != w {
			t.Errorf("step %d notes = %+v, want [%+v]", i+1, got, w)
		}
	}
}
