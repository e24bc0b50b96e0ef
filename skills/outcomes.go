package skills

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// The outcome log "<library>.outcomes.jsonl" joins the library skills put
// into a step's prompts to what became of the step, so that `lppctl skills
// stats` and the teacher can tell the skills that help from those that do
// not. Each line is one step of one agent run, the latest line of an id
// winning:
//
//	{"id":"20260101T…-ab12/14","run":"20260101T…-ab12","step":1,"folder":"skills/report",
//	 "skills":[{"name":"header_first","score":2.1}],"outcome":"pass","retries":0,"tokens":812}
//
// A step is written when it ends (and when it waits for a person, then again
// when it ends), so a run killed between the append and its journal commit
// writes the same line again on resume: readers keep one line per id. A
// torn last line (no newline) is ignored and cut off by the next append.

// Step outcomes.
const (
	OutcomePass    = "pass"    // the evaluator passed the step (Retries FAILs before)
	OutcomeFail    = "fail"    // the run stopped in the step (a person aborted)
	OutcomeSkipped = "skipped" // the step was left uncommitted
	OutcomeWaiting = "waiting" // the run waits for a person's decision on the step
)

// Injected is one library skill put into a step's prompt, with its score.
type Injected struct {
	Name  string  `json:"name"`
	Score float64 `json:"score"`
}

// Outcome is what became of one step of an agent run, with the library
// skills injected into its prompts.
type Outcome struct {
	ID      string     `json:"id"`                // run/seq of the visit that began the step: one per step
	Run     string     `json:"run"`               // the run id
	Step    int        `json:"step"`              // 1-based plan step
	Folder  string     `json:"folder"`            // the skill folder, relative to the project root
	Skills  []Injected `json:"skills"`            // injected skills (none: the step ran without the library)
	Outcome string     `json:"outcome"`           // OutcomePass, OutcomeFail, OutcomeSkipped or OutcomeWaiting
	Retries int        `json:"retries"`           // evaluator FAILs in the step
	Human   bool       `json:"human,omitempty"`   // a person was asked to decide on the step
	Tokens  int        `json:"tokens"`            // model tokens spent in the step
	Replans int        `json:"replans,omitempty"` // stuck-loop restarts of the step
}

// Label says what became of the step in words: "PASS at first try", "PASS
// after 2 retries", "PASS with human help", "FAIL", "skipped" or "waiting
// for a person".
func (o Outcome) Label() string {
	switch o.Outcome {
	case OutcomePass:
		switch {
		case o.Human:
			return "PASS with human help"
		case o.Retries == 0:
			return "PASS at first try"
		case o.Retries == 1:
			return "PASS after 1 retry"
		}
		return fmt.Sprintf("PASS after %d retries", o.Retries)
	case OutcomeFail:
		return "FAIL"
	case OutcomeSkipped:
		return "skipped"
	case OutcomeWaiting:
		return "waiting for a person"
	}
	return o.Outcome
}

// FirstTry reports whether the step passed at its first attempt, with no person.
func (o Outcome) FirstTry() bool {
	return o.Outcome == OutcomePass && o.Retries == 0 && !o.Human
}

// Has reports whether skill name was injected into the step.
func (o Outcome) Has(name string) bool {
	for _, s := range o.Skills {
		if s.Name == name {
			return true
		}
	}
	return false
}

// OutcomesPath is the outcome log of the library file at path.
func OutcomesPath(path string) string {
	if path == "" {
		path = DefaultLibraryPath
	}
	return path + ".outcomes.jsonl"
}

// RecordOutcome appends o to the library's outcome log under the library
// lock, fsynced. Writing the same o again (a resumed run re-running the
// action) changes nothing readers see.
func (l *Library) RecordOutcome(o Outcome) error {
	if o.ID == "" || o.Outcome == "" {
		return fmt.Errorf("cannot record a step outcome: it needs an id and an outcome: %w", ErrInvalid)
	}
	if o.Skills == nil {
		o.Skills = []Injected{}
	}
	line, err := json.Marshal(o)
	if err != nil {
		return fmt.Errorf("cannot record a step outcome: %w", err)
	}
	err = l.withLock(func(*os.File) error { return appendLine(OutcomesPath(l.path), append(line, '\n'), nil) })
	if err != nil {
		return fmt.Errorf("cannot record the outcome of step %d: %w", o.Step, err)
	}
	return nil
}

// Outcomes returns the library's step outcomes, one per id (the latest
// line), in the order their ids first appear. A missing log is empty; a
// line that is not an outcome is an error naming its line number.
func (l *Library) Outcomes() ([]Outcome, error) {
	return ReadOutcomes(OutcomesPath(l.path))
}

// ReadOutcomes reads an outcome log (see Library.Outcomes).
func ReadOutcomes(path string) ([]Outcome, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read step outcomes: %w", err)
	}
	data = data[:bytes.LastIndexByte(data, '\n')+1] // whole lines only
	var out []Outcome
	at := map[string]int{}
	for n, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var o Outcome
		if err := json.Unmarshal([]byte(line), &o); err != nil || o.ID == "" {
			why := "it has no id"
			if err != nil {
				why = err.Error()
			}
			return nil, fmt.Errorf("cannot read step outcomes: %s:%d: %s; delete the line (or the file, to start the statistics afresh)", path, n+1, why)
		}
		if i, ok := at[o.ID]; ok {
			out[i] = o
			continue
		}
		at[o.ID] = len(out)
		out = append(out, o)
	}
	return out, nil
}
