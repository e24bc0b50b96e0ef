package agent

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lppctl/lppctl/machine"
)

// promptWatch is the person's screen: it tells when a prompt shows.
type promptWatch struct {
	mu   sync.Mutex
	text strings.Builder
}

func (w *promptWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.text.Write(p)
}

func (w *promptWatch) waitFor(t *testing.T, s string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		w.mu.Lock()
		found := strings.Contains(w.text.String(), s)
		w.mu.Unlock()
		if found {
			return
		}
	}
	t.Fatalf("the prompt %q never showed", s)
}

// TestCtrlCAtAPromptInterrupts: a Ctrl-C (the run's context cancelled)
// while a person is asked, at each of the three prompts, stops the run as
// interrupted in the state that asked, with nothing of the answer recorded;
// the terminal read never returns, as when nobody types.
func TestCtrlCAtAPromptInterrupts(t *testing.T) {
	for _, tc := range []struct {
		state, answers, prompt string
	}{
		{"approve", "", "Approve this plan?"},
		{"intervene", "a\n", "[g]ive guidance and retry the step"},
		{"intervene", "a\ng\n", "Guidance for the step: "},
		{"feedback", "a\ns\n", "Feedback on this run"},
	} {
		t.Run(tc.prompt, func(t *testing.T) {
			r, d, _, md := newHumanRun(t, "unused")
			in, typing := io.Pipe()
			defer typing.Close()
			screen := &promptWatch{}
			d.In, d.Out = in, screen
			go func() { _, _ = io.WriteString(typing, tc.answers) }() // then nothing more, like a person away
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- r.Run(ctx) }()
			screen.waitFor(t, tc.prompt)
			cancel()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the run still waits for an answer after Ctrl-C")
			}
			if !errors.Is(err, machine.ErrInterrupted) || r.Status() != machine.StatusInterrupted || r.State() != tc.state {
				t.Fatalf("after Ctrl-C: %v, status %s in %s; want interrupted in %s", err, r.Status(), r.State(), tc.state)
			}
			if want := "(it will re-run from its start on resume)"; !strings.Contains(err.Error(), want) {
				t.Errorf("error %q lacks %q", err, want)
			}
			if tc.state == "feedback" {
				if b, _ := os.ReadFile(md); strings.Contains(string(b), "Human Feedback") {
					t.Errorf("feedback recorded after Ctrl-C:\n%s", b)
				}
			}
		})
	}
}
