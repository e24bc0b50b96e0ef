package temporal

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/lppctl/lppctl/internal/fsx"
)

// EffectsFile names the record of a run's effects (tool calls) in the run's
// folder on a worker's root: the record of step N is
// ROOT/.lppctl/temporal/RUN_ID/effects/N.jsonl (one file a step, so that a
// long run's record is not read whole before each call).
const EffectsFile = "effects.jsonl"

// Effects is the record of the effects one action execution makes (its
// tool calls), kept so that a re-execution of the action (the activity
// retried, on this worker or another of the same root) gives back what an
// earlier attempt got instead of doing it again. An effect is keyed by run,
// step, action, its index among the action's effects, what it is (the
// tool) and the hash of its arguments; it is recorded when it begins and
// when it is done, each line synced, under a lock shared by the workers of
// the root.
type Effects struct {
	path string
	run  RunInfo
	mu   sync.Mutex
	next int // index of the action's next effect
}

// effectLine is one line of the record.
type effectLine struct {
	Op      string          `json:"op"` // "begin" or "done"
	Run     string          `json:"run"`
	Seq     int             `json:"seq"`
	Action  string          `json:"action"`
	Index   int             `json:"index"`
	What    string          `json:"what"`
	Args    string          `json:"args"`              // SHA-256 of the arguments
	Attempt int             `json:"attempt,omitempty"` // the activity's attempt that wrote the line
	Result  json.RawMessage `json:"result,omitempty"`  // done: what the effect gave back
}

func (l *effectLine) sameAs(k *effectLine) bool {
	return l.Run == k.Run && l.Seq == k.Seq && l.Action == k.Action && l.Index == k.Index && l.What == k.What && l.Args == k.Args
}

// NewEffects returns the record of the effects of the action execution run
// describes (its Seq, Action and Attempt), in the folder path names without
// its .jsonl (RUN_DIR/effects.jsonl: RUN_DIR/effects/SEQ.jsonl).
func NewEffects(path string, run RunInfo) *Effects {
	dir := strings.TrimSuffix(path, ".jsonl")
	return &Effects{path: filepath.Join(dir, strconv.Itoa(run.Seq)+".jsonl"), run: run}
}

// Path is the file of the record.
func (e *Effects) Path() string { return e.path }

// Begin is called before an effect: what it is and its arguments (as
// canonical bytes, e.g. JSON with sorted keys). When an earlier attempt
// recorded the same effect done, Begin returns its result (found) and the
// effect must not be made again. Otherwise Begin records that the effect
// begins and returns done, to call with the result once it is made.
func (e *Effects) Begin(what string, args []byte) (result json.RawMessage, found bool, done func(json.RawMessage) error, err error) {
	e.mu.Lock()
	index := e.next
	e.next++
	e.mu.Unlock()
	sum := sha256.Sum256(args)
	key := effectLine{Run: e.run.RunID, Seq: e.run.Seq, Action: e.run.Action, Index: index, What: what, Args: "sha256:" + hex.EncodeToString(sum[:]), Attempt: e.run.Attempt}
	if err := os.MkdirAll(filepath.Dir(e.path), 0o755); err != nil {
		return nil, false, nil, fmt.Errorf("cannot make the record of effects %s: %w", e.path, err)
	}
	unlock, err := fsx.LockFile(e.path + ".lock")
	if err != nil {
		return nil, false, nil, fmt.Errorf("cannot lock the record of effects %s: %w", e.path, err)
	}
	defer unlock()
	lines, err := readEffects(e.path)
	if err != nil {
		return nil, false, nil, err
	}
	// A "begin" with no "done": the attempt that made it was cut short
	// during the effect, which is made again (at least once, not twice
	// after it is done).
	for i := range lines {
		if lines[i].Op == "done" && lines[i].sameAs(&key) {
			return lines[i].Result, true, nil, nil
		}
	}
	key.Op = "begin"
	if err := appendEffect(e.path, &key); err != nil {
		return nil, false, nil, err
	}
	return nil, false, func(res json.RawMessage) error {
		line := key
		line.Op, line.Result = "done", res
		unlock, err := fsx.LockFile(e.path + ".lock")
		if err != nil {
			return fmt.Errorf("cannot lock the record of effects %s: %w", e.path, err)
		}
		defer unlock()
		return appendEffect(e.path, &line)
	}, nil
}

// readEffects reads a record; a line that does not decode (torn by a
// worker killed while writing it) is skipped: its effect counts as not done.
func readEffects(path string) ([]effectLine, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the record of effects: %w", err)
	}
	defer f.Close()
	var out []effectLine
	r := bufio.NewReader(f)
	for {
		b, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			var l effectLine
			if json.Unmarshal(b, &l) == nil {
				out = append(out, l)
			}
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("cannot read the record of effects: %w", err)
		}
	}
}

// appendEffect appends a line and syncs it; after a torn last line it
// starts a new line first.
func appendEffect(path string, l *effectLine) error {
	b, err := json.Marshal(l)
	if err != nil {
		return fmt.Errorf("cannot record an effect: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("cannot record an effect: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, fi.Size()-1); err == nil && last[0] != '\n' {
			b = append([]byte{'\n'}, b...)
		}
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("cannot record an effect: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("cannot record an effect: %w", err)
	}
	return nil
}
