package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
)

type progressKind int

const (
	progressText progressKind = iota
	progressQuiet
	progressJSON
)

func progressMode(c *cli.Context) progressKind {
	switch {
	case c.Bool("json"), c.Bool("deltas"):
		return progressJSON
	case c.Bool("quiet"):
		return progressQuiet
	}
	return progressText
}

// progress prints a run's state changes. It is a machine.Observer.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	kind  progressKind
	start time.Time
	enc   *json.Encoder
	// --deltas: a step as the journal writes it (what changed), not its
	// changed variables whole.
	deltas bool
	steps  *runstore.StepEncoder
	walk   runstore.Walker // a Temporal run's records hold a map's changed keys only
	// notices shown (a Temporal worker's, workerNotices): each once
	notices map[string]bool
}

// runProgress is the progress of run and resume as their flags ask for it.
func runProgress(c *cli.Context) *progress {
	p := newProgress(c.App.Writer, progressMode(c))
	p.deltas = c.Bool("deltas")
	return p
}

func newProgress(w io.Writer, kind progressKind) *progress {
	w = &closedOK{w: w}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // guards like n >= max stay readable
	return &progress{w: w, kind: kind, start: time.Now(), enc: enc, steps: runstore.NewStepEncoder()}
}

// closedOK writes to w until w is a closed pipe (lppctl run | head), then
// drops what it is given: a reader that went away does not stop the run
// (the journal records every step; lppctl runs trace shows them).
type closedOK struct {
	w      io.Writer
	closed bool
}

func (c *closedOK) Write(p []byte) (int, error) {
	if c.closed {
		return len(p), nil
	}
	n, err := c.w.Write(p)
	if errors.Is(err, syscall.EPIPE) {
		c.closed = true
		return len(p), nil
	}
	return n, err
}

// BorrowsValues says that progress keeps none of a record's values past
// OnStep (machine.ValueBorrower: the run may change a map's keys in place).
func (p *progress) BorrowsValues() {}

func (p *progress) OnStep(_ context.Context, rec *machine.Record) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch p.kind {
	case progressQuiet: // only what needs attention: warnings, from the spec or from actions
		for _, n := range rec.Notes {
			if n.IsWarning() {
				fmt.Fprintf(p.w, "%s\n", n)
			}
		}
		if rec.Warn != "" {
			fmt.Fprintf(p.w, "warning: %s\n", rec.Warn)
		}
	case progressJSON:
		if !p.deltas {
			return p.enc.Encode(struct {
				Type string `json:"type"`
				*machine.Record
			}{"step", rec})
		}
		line, err := p.steps.Encode(p.walk.Next(rec))
		if err != nil {
			return err
		}
		_, err = p.w.Write(line)
		return err
	default:
		for _, n := range rec.Notes {
			if isNotice(n.Text) { // a worker's notice, given to each step that printed it: once
				if p.notices[n.Text] {
					continue
				}
				if p.notices == nil {
					p.notices = map[string]bool{}
				}
				p.notices[n.Text] = true
			}
			fmt.Fprintf(p.w, "  %s: %s\n", rec.From, n)
		}
		if rec.Error != "" {
			fmt.Fprintf(p.w, "  %s: action failed: %s\n", rec.From, rec.Error)
		}
		if rec.Warn != "" {
			fmt.Fprintf(p.w, "  warning: %s\n", rec.Warn)
		}
		if rec.End {
			fmt.Fprintf(p.w, "[%d] %s (final)\n", rec.Seq, rec.From)
			return nil
		}
		fmt.Fprintf(p.w, "[%d] %s → %s  %s\n", rec.Seq, rec.From, rec.To, viaText(rec))
	}
	return nil
}

// summary prints how the run ended.
func (p *progress) summary(r *machine.Run, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	elapsed := time.Since(p.start).Round(time.Millisecond)
	if p.kind == progressJSON {
		out := struct {
			Type      string              `json:"type"`
			Status    machine.Status      `json:"status"`
			State     string              `json:"state"`
			Steps     int                 `json:"steps"`
			ElapsedMS int64               `json:"elapsed_ms"`
			Pause     *machine.PauseError `json:"pause,omitempty"`
			Error     string              `json:"error,omitempty"`
		}{Type: "end", Status: r.Status(), State: r.State(), Steps: r.Seq(), ElapsedMS: elapsed.Milliseconds()}
		if pe, ok := machine.AsPause(err); ok {
			out.Pause = pe
		} else if err != nil {
			out.Error = err.Error()
		}
		_ = p.enc.Encode(out)
		return
	}
	if pe, ok := machine.AsPause(err); ok {
		fmt.Fprintf(p.w, "paused in %s after %s: %s\n", pe.State, countSteps(r.Seq()), pe.Prompt)
		return
	}
	if err == nil {
		fmt.Fprintf(p.w, "completed in %s after %s\n", r.State(), countSteps(r.Seq()))
		return
	}
	fmt.Fprintf(p.w, "%s in %s after %s\n", r.Status(), r.State(), countSteps(r.Seq()))
}

// countSteps says "1 step" or "N steps".
func countSteps[N int | int64](n N) string {
	if n == 1 {
		return "1 step"
	}
	return fmt.Sprintf("%d steps", n)
}
