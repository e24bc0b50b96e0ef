package runstore

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// Snapshot is a run's context and memory rebuilt from its journal without
// running anything (for inspection; resuming uses machine.Machine.Resume).
type Snapshot struct {
	State  string
	Steps  int
	Done   bool
	Vars   map[string]any
	Memory *machine.Memory
	Path   []string // the states the run went through, in order, the current one last
}

// Fold rebuilds a snapshot from the spec (for the context defaults; nil: none),
// the vars the run started with and its log. A map in Vars may be the one
// a Walker changed in place; the snapshot holds it whole, as after the last
// record, and is its only holder.
func Fold(spec *mspec.Spec, start map[string]any, l *Log) (*Snapshot, error) {
	f := NewFolder(spec, start)
	for _, rec := range l.Records {
		if err := f.Add(rec); err != nil {
			return nil, err
		}
	}
	return f.Snapshot(), nil
}

// A Folder folds a journal's records into a Snapshot as Fold does, one
// record at a time, so that a reader that sees a journal grow (the web
// UI's page of a live run, refreshed at each step) folds only the records
// added since instead of the whole journal again.
type Folder struct {
	s     *Snapshot
	walk  Walker
	added int
}

// NewFolder starts a fold from the spec's context defaults and initial
// state (spec nil: none) and the vars the run started with.
func NewFolder(spec *mspec.Spec, start map[string]any) *Folder {
	s := &Snapshot{Vars: map[string]any{}, Memory: machine.NewMemory()}
	if spec != nil {
		for _, v := range spec.Context {
			s.Vars[v.Name] = v.Default
		}
		s.State = spec.Initial
	}
	for k, v := range start {
		s.Vars[k] = v
	}
	return &Folder{s: s}
}

// Add folds the journal's next record. After an error the Folder is
// unusable: fold again from the start.
func (f *Folder) Add(rec *machine.Record) error {
	s := f.s
	if f.added == 0 { // the run stood where its first step started
		s.State, s.Path = rec.From, nil
		if s.State != "" {
			s.Path = append(s.Path, s.State)
		}
	}
	f.added++
	rec = f.walk.Next(rec)
	for k, v := range rec.Vars {
		s.Vars[k] = v
	}
	if err := s.Memory.Apply(rec.Memory); err != nil {
		return fmt.Errorf("cannot rebuild step %d: %w", rec.Seq, err)
	}
	s.Steps = rec.Seq
	if rec.End {
		s.Done = true
		return nil
	}
	if rec.Via == machine.ViaWait { // the state's action ran; it stays, waiting for an event
		return nil
	}
	s.State = rec.To
	s.Path = append(s.Path, rec.To)
	return nil
}

// Added is how many records the Folder folded.
func (f *Folder) Added() int { return f.added }

// Snapshot is the fold of the records added so far. It is the Folder's:
// the next Add changes it (its Vars, a map in them, its Memory) in place.
func (f *Folder) Snapshot() *Snapshot {
	if f.added == 0 && f.s.State != "" && len(f.s.Path) == 0 { // no step yet: where it starts
		f.s.Path = []string{f.s.State}
	}
	return f.s
}

// Tokens sums the token usage of the run's LLM call log (llm.jsonl). Each line
// may carry total_tokens, or input/output (prompt/completion) tokens, at its
// top level or under "usage". Unreadable lines are skipped.
func (r *Run) Tokens() int {
	b, err := os.ReadFile(r.Path(LLMFile))
	if err != nil {
		return 0
	}
	total := 0
	for _, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil {
			continue
		}
		total += lineTokens(m)
	}
	return total
}

func lineTokens(m map[string]any) int {
	if u, ok := m["usage"].(map[string]any); ok {
		if n := lineTokens(u); n > 0 {
			return n
		}
	}
	num := func(keys ...string) int {
		for _, k := range keys {
			if f, ok := m[k].(float64); ok {
				return int(f)
			}
		}
		return 0
	}
	if n := num("total_tokens", "TotalTokens", "tokens"); n > 0 {
		return n
	}
	return num("input_tokens", "prompt_tokens", "PromptTokens", "InputTokens") +
		num("output_tokens", "completion_tokens", "CompletionTokens", "OutputTokens")
}

// RebuildMeta rebuilds the run's metadata when run.json cannot be read
// (cause: why): from the copy in the journal's last start or resume marker,
// brought up to date with what the journal says since (steps, state, how the
// run stopped). It sets r.Meta and r.Rebuilt; run.json is not written.
func (r *Run) RebuildMeta(cause error) error {
	l, err := r.ScanJournal(nil)
	if err != nil {
		return fmt.Errorf("%w; it cannot be rebuilt from the journal either: %w", cause, err)
	}
	var base *Meta
	for _, e := range l.Entries {
		if e.Meta != nil {
			base = e.Meta
		}
	}
	if base == nil {
		return fmt.Errorf("%w; the journal holds no copy of it to rebuild it from", cause)
	}
	m := *base
	if m.ID == "" {
		m.ID = filepath.Base(r.Dir)
	}
	m.normalize()
	m.PID, m.Pause, m.Error, m.End = 0, nil, "", nil
	m.Status, m.Steps = machine.StatusRunning, l.Steps()
	if last := l.Last(); last != nil {
		if last.State != "" {
			m.State = last.State
		}
		m.Updated = last.At
		switch last.Type {
		case EntryStep:
			rec := last.Record
			m.State, m.Updated = rec.To, rec.Start.Add(rec.Duration)
			if rec.End {
				m.State, m.Status, m.End = rec.From, machine.StatusCompleted, &m.Updated
			}
		case EntryPause:
			m.Status, m.Pause = machine.StatusPaused, last.Pause
		case EntryInterrupt:
			m.Status = machine.StatusInterrupted
		case EntryFail:
			m.Status, m.Error = machine.StatusFailed, last.Message
		}
	}
	m.Tokens = r.Tokens()
	r.Meta, r.Rebuilt = m, cause
	return nil
}
