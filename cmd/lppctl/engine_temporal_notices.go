package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"

	"github.com/lppctl/lppctl/machine"
)

// workerNotices collects the notices the actions of one activity print for
// the person ("*** ... ***": no model configured, so the skill's demo
// replies are replayed; the model a server lists, used as none was named),
// which depend on the worker's environment. A worker's output is not the
// person's: each is given to the step as a note, which the follower prints
// (once a run). The scripted-model notice of a run started with --llm
// script:FILE is left out: the client printed it (scriptedBanner).
type workerNotices struct {
	mu       sync.Mutex
	next     io.Writer
	partial  []byte
	lines    []string
	scripted bool
}

func (w *workerNotices) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		line := string(w.partial[:i])
		w.partial = w.partial[i+1:]
		if isNotice(line) && !(w.scripted && strings.HasPrefix(line, "*** LLM replies are SCRIPTED")) {
			w.lines = append(w.lines, line)
		}
	}
	w.mu.Unlock()
	if w.next == nil {
		return len(p), nil
	}
	return w.next.Write(p)
}

// take returns the notices written since the last take.
func (w *workerNotices) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	lines := w.lines
	w.lines = nil
	return lines
}

// isNotice tells a notice for the person ("*** ... ***").
func isNotice(s string) bool {
	return len(s) > 8 && strings.HasPrefix(s, "*** ") && strings.HasSuffix(s, " ***")
}

// withNotices returns reg whose actions give the notices they printed to
// their call as notes.
func withNotices(reg *machine.Registry, w *workerNotices) *machine.Registry {
	out := machine.NewRegistry()
	for _, a := range reg.Actions() {
		b := *a
		if run := a.Run; run != nil {
			b.Run = func(ctx context.Context, c *machine.Call) error {
				err := run(ctx, c)
				for _, line := range w.take() {
					c.Notef("%s", line)
				}
				return err
			}
		}
		_ = out.Register(b)
	}
	return out
}
