package skills

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestOutcomeLogKeepsTheLatestLineOfAnID(t *testing.T) {
	path := filepath.Join(t.TempDir(), "skills.json")
	lib := OpenUnchecked(path)
	waiting := Outcome{ID: "r1/5", Run: "r1", Step: 1, Folder: "skills/a", Skills: []Injected{{Name: "x", Score: 1.5}}, Outcome: OutcomeWaiting, Human: true}
	passed := waiting
	passed.Outcome = OutcomePass
	other := Outcome{ID: "r1/20", Run: "r1", Step: 2, Folder: "skills/a", Outcome: OutcomeSkipped}
	for _, o := range []Outcome{waiting, other, passed, passed} { // the last one: a resumed run's re-run
		if err := lib.RecordOutcome(o); err != nil {
			t.Fatal(err)
		}
	}
	got, err := lib.Outcomes()
	if err != nil {
		t.Fatal(err)
	}
	other.Skills = []Injected{}
	if want := []Outcome{passed, other}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

func TestOutcomeLogIgnoresATornLastLineAndCutsItOff(t *testing.T) {
	path := filepath.Join(t.TempDir(), "skills.json")
	log := OutcomesPath(path)
	if err := os.WriteFile(log, []byte(`{"id":"a","outcome":"pass"}`+"\n"+`{"id":"b","outc`), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadOutcomes(log)
	if err != nil || len(got) != 1 || got[0].ID != "a" {
		t.Fatalf("got %+v, %v; want only a", got, err)
	}
	if err := OpenUnchecked(path).RecordOutcome(Outcome{ID: "c", Outcome: OutcomeFail}); err != nil {
		t.Fatal(err)
	}
	got, err = ReadOutcomes(log)
	if err != nil || len(got) != 2 || got[1].ID != "c" {
		t.Fatalf("got %+v, %v; want a and c", got, err)
	}
}

func TestOutcomeLogErrors(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "s.json.outcomes.jsonl")
	if err := os.WriteFile(log, []byte("{\"id\":\"a\",\"outcome\":\"pass\"}\nnot json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadOutcomes(log)
	want := log + ":2: invalid character 'o' in literal null (expecting 'u'); delete the line (or the file, to start the statistics afresh)"
	if err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("got %v, want ...%s", err, want)
	}
	err = OpenUnchecked(filepath.Join(dir, "s.json")).RecordOutcome(Outcome{Outcome: OutcomePass})
	if err == nil || err.Error() != "cannot record a step outcome: it needs an id and an outcome: invalid" {
		t.Errorf("got %v", err)
	}
	if got, err := ReadOutcomes(filepath.Join(dir, "missing.jsonl")); got != nil || err != nil {
		t.Errorf("a missing log: got %v, %v; want nothing", got, err)
	}
}

func TestOutcomeLabels(t *testing.T) {
	for _, c := range []struct {
		o    Outcome
		want string
	}{
		{Outcome{Outcome: OutcomePass}, "PASS at first try"},
		{Outcome{Outcome: OutcomePass, Retries: 1}, "PASS after 1 retry"},
		{Outcome{Outcome: OutcomePass, Retries: 3}, "PASS after 3 retries"},
		{Outcome{Outcome: OutcomePass, Retries: 3, Human: true}, "PASS with human help"},
		{Outcome{Outcome: OutcomeFail}, "FAIL"},
		{Outcome{Outcome: OutcomeSkipped}, "skipped"},
		{Outcome{Outcome: OutcomeWaiting}, "waiting for a person"},
	} {
		if got := c.o.Label(); got != c.want {
			t.Errorf("%+v: got %q, want %q", c.o, got, c.want)
		}
	}
}

// FuzzReadOutcomes: any log reads without panicking, ids come out unique
// and non-empty, and a log that reads is read the same after a torn line
// is appended to it.
func FuzzReadOutcomes(f *testing.F) {
	f.Add([]byte(`{"id":"a","outcome":"pass","skills":[{"name":"x","score":1}]}` + "\n"))
	f.Add([]byte(`{"id":"a","outcome":"waiting"}` + "\n" + `{"id":"a","outcome":"pass"}` + "\n"))
	f.Add([]byte("{\"id\":\"\"}\n"))
	f.Add([]byte("\n\n{\"id\":\"b\",\"retries\":-1}\n{\"id"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "log.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadOutcomes(path)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, o := range got {
			if o.ID == "" || seen[o.ID] {
				t.Fatalf("id %q empty or repeated in %+v", o.ID, got)
			}
			seen[o.ID] = true
		}
		if err := os.WriteFile(path, append(append([]byte{}, data...), `{"id":"torn`...), 0o644); err != nil {
			t.Fatal(err)
		}
		again, err := ReadOutcomes(path)
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Fatalf("a torn line changed the result: %+v, %v; was %+v", again, err, got)
		}
	})
}
