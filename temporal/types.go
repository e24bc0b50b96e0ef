// Package temporal runs lppctl specs on Temporal: the interpreter (the
// machine package, unchanged) runs as a deterministic workflow, each action
// execution as one activity, and a person's answers and events as Updates.
// The package knows nothing of LLMs or tools: a Host (the lppctl worker)
// supplies the actions.
package temporal

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/lppctl/lppctl/machine/spec"
	"time"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
)

// Names registered with Temporal. Changing one breaks running workflows.
const (
	WorkflowName     = "lppctl.run"
	ActivityName     = "lppctl.action"
	UpdateResume     = "resume"
	QueryProgress    = "progress"
	QueryMemory      = "memory"
	DefaultTaskQueue = "lppctl"
	// ModelQueueSuffix names the task queue of the activities that call a
	// model (DefaultTaskQueue + ModelQueueSuffix): its workers share the
	// --llm-rps rate limit, enforced by the server for the whole queue.
	ModelQueueSuffix = "-llm"
)

// StatusCancelled is the status of a run whose workflow was cancelled
// (lppctl runs cancel) or terminated on the server: it stopped for good, at
// a clean point, and does not continue (a local run's "interrupted" does).
const StatusCancelled machine.Status = "cancelled"

// Start is a workflow's input: everything a run needs, by value, so that a
// run keeps the spec it started with whatever happens on disk.
type Start struct {
	RunID          string          `json:"run_id"`
	SpecPath       string          `json:"spec_path"` // the spec's path, relative to the workers' project root when inside it
	Spec           []byte          `json:"spec"`      // the spec's source
	SpecHash       string          `json:"spec_hash"` // SpecHash(Spec)
	Vars           json.RawMessage `json:"vars,omitempty"`
	Agent          json.RawMessage `json:"agent,omitempty"` // the host's configuration of the actions (opaque here)
	MaxTransitions int             `json:"max_transitions,omitempty"`
	Events         []EventArg      `json:"events,omitempty"` // queued up front, as run --event does
	// Files are the prompt templates the spec names, by path relative to
	// the project root (as machine.FileParams finds them): the run reads
	// them as they were when it started, on every worker.
	Files map[string][]byte `json:"files,omitempty"`
	// Carry is set when the run continued as new: where it stands.
	Carry *Carry `json:"carry,omitempty"`
}

// Carry is what a run carries into its next workflow execution when it
// continues as new (its execution passed Options.Segment): where it stands
// (a checkpoint, its large values by reference through the codec), the
// references of its records so far in the blob store (a JSON list of
// machine.Records per execution), and when it began.
type Carry struct {
	Checkpoint json.RawMessage `json:"checkpoint"` // a machine.Checkpoint (numbers decoded exactly)
	Segments   []string        `json:"segments"`
	// Ends holds, for each of Segments, the number of the run's steps at
	// its end, so that a progress query sends only the segments after the
	// step it asks from (absent from runs continued before it: all).
	Ends  []int     `json:"ends,omitempty"`
	Begun time.Time `json:"begun"`
}

// EventArg is an event delivered to a run, with its payload.
type EventArg struct {
	Name    string         `json:"name"`
	Payload map[string]any `json:"payload,omitempty"`
}

// Resume is the argument of the resume Update: the person's answer to a
// pause, or an event for a waiting state.
type Resume struct {
	Input *machine.Input `json:"input,omitempty"`
	Event *EventArg      `json:"event,omitempty"`
	// PauseStep, when set, names the pause answered (the run's steps when
	// it paused): an answer for another pause is refused (lppctl ui).
	PauseStep *int `json:"pause_step,omitempty"`
}

// Progress is what the progress query returns: where the run stands and its
// steps from the one asked for.
type Progress struct {
	RunID string `json:"run_id"`
	Spec  string `json:"spec"`
	// SpecPath and SpecHash name the spec the run started with.
	SpecPath string              `json:"spec_path"`
	SpecHash string              `json:"spec_hash"`
	Status   machine.Status      `json:"status"`
	State    string              `json:"state"`
	Steps    int                 `json:"steps"`
	Pause    *machine.PauseError `json:"pause,omitempty"`
	Error    string              `json:"error,omitempty"`
	// Waiting says what a running run waits for in its state: an action
	// whose service is unavailable, tried again at a time it names.
	Waiting string `json:"waiting,omitempty"`
	// Cancelled says how a cancelled run was stopped (StatusCancelled).
	Cancelled string            `json:"cancelled,omitempty"`
	Vars      map[string]any    `json:"vars,omitempty"`
	Records   []*machine.Record `json:"records,omitempty"`
	// More says that the run has more records than this page: ask again
	// from the last one.
	More bool `json:"more,omitempty"`
	// Segments are records of the run's earlier executions, before Records
	// (in a result: all of them), sent by reference, which Query and Result
	// put in Records: each an object whose step_lines are the journal's
	// step lines (runstore.Steps: a list that grows at every step is
	// stored as what it grew by), or, from workers before those, a JSON
	// list of records with every changed value whole.
	Segments []json.RawMessage `json:"segments,omitempty"`
	// Lines are the page's records as step lines, sent instead of Records
	// to a client that asks for them (ProgressLines), which Query puts in
	// Records: each step's changed lists and maps as what changed since
	// the page's first step. The text is cut in pieces (stepLines).
	Lines []string   `json:"step_lines,omitempty"`
	Start time.Time  `json:"start"`
	End   *time.Time `json:"end,omitempty"`
}

// Ended sets how a closed run ended, as Closed reports it: its status, and
// its error (failed) or how it was cancelled (cancelled).
func (p *Progress) Ended(st machine.Status, msg string) {
	p.Status = st
	switch {
	case msg == "":
	case st == StatusCancelled:
		p.Cancelled = msg
	default:
		p.Error = msg
	}
}

// Flatten moves the records of Segments, and those of Lines, into Records.
func (p *Progress) Flatten() error {
	var all []*machine.Record
	for i, seg := range p.Segments {
		recs, err := readSegment(seg)
		if err != nil {
			return fmt.Errorf("its records (part %d) do not decode: %w", i+1, err)
		}
		all = append(all, recs...)
	}
	if len(p.Lines) > 0 {
		recs, err := runstore.ReadSteps(joined(p.Lines))
		if err != nil {
			return fmt.Errorf("its records do not decode: %w", err)
		}
		all = append(all, recs...)
	}
	p.Records, p.Segments, p.Lines = append(all, p.Records...), nil, nil
	return nil
}

// ActionTask is one activity's input: one execution of one action.
type ActionTask struct {
	RunID    string            `json:"run_id"`
	SpecPath string            `json:"spec_path"`
	Spec     []byte            `json:"spec"`
	SpecHash string            `json:"spec_hash"`
	Agent    json.RawMessage   `json:"agent,omitempty"`
	Files    map[string][]byte `json:"files,omitempty"` // Start.Files
	Call     json.RawMessage   `json:"call"`            // a machine.CallInput
}

// SpecHash is the hash a run's spec is checked against.
func SpecHash(src []byte) string {
	sum := sha256.Sum256(src)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// decodeJSON decodes b into v keeping numbers exact: an integer becomes an
// int, any other number a float64 (then the declared types decide).
func decodeJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	return nil
}

// numberMap turns the json.Numbers decodeJSON left in m into ints and floats.
func numberMap(m map[string]any) map[string]any {
	spec.NormalizeJSON(m)
	return m
}

// decodeVars decodes a JSON object of values (nil or empty: none).
func decodeVars(b json.RawMessage) (map[string]any, error) {
	if len(b) == 0 || string(b) == "null" {
		return nil, nil
	}
	var m map[string]any
	if err := decodeJSON(b, &m); err != nil {
		return nil, fmt.Errorf("cannot decode variables: %w", err)
	}
	return numberMap(m), nil
}
