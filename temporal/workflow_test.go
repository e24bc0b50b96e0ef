package temporal_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"

	"github.com/lppctl/lppctl/internal/testenv"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/temporal"
)

func newEnv(t *testing.T, h *testHost) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	env := s.NewTestWorkflowEnvironment()
	env.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: testDeadlockTimeout})
	e := temporal.NewEngine(h, temporal.Options{Retry: temporal.Retry{Attempts: 3, Base: time.Millisecond, Max: time.Millisecond}})
	e.Register(env)
	return env
}

func skillsMDEntries(t *testing.T, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "skills", "hello_skill", "skills.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if i := strings.Index(s, "\n### ["); i >= 0 {
		return s[i:]
	}
	return ""
}

// The Skills Agent demo runs to completion as a workflow and ends as the
// same run in this process does: same state, variables, L2 memory, skills.md
// entries and output file.
func TestWorkflowRunsTheSkillsAgentDemoLikeALocalRun(t *testing.T) {
	testenv.Python(t) // the demo runs the skill's scripts
	local := &testHost{root: newProject(t)}
	lr := localRun(t, local, "specs/skills_agent.yaml", "run-1")

	h := &testHost{root: newProject(t)}
	env := newEnv(t, h)
	env.ExecuteWorkflow(temporal.WorkflowName, startOf(t, h.root, "specs/skills_agent.yaml", "run-1", nil))
	if !env.IsWorkflowCompleted() {
		t.Fatal("the workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow: %v", err)
	}
	var p temporal.Progress
	if err := env.GetWorkflowResult(&p); err != nil {
		t.Fatal(err)
	}
	if p.Status != machine.StatusCompleted || p.State != lr.State() || p.Steps != lr.Seq() {
		t.Fatalf("workflow ended %s in %s after %d steps; the local run %s in %s after %d", p.Status, p.State, p.Steps, lr.Status(), lr.State(), lr.Seq())
	}
	want, _ := json.Marshal(lr.Vars())
	got, _ := json.Marshal(p.Vars)
	if string(got) != string(want) {
		t.Errorf("variables:\n got %s\nwant %s", got, want)
	}
	if got, want := skillsMDEntries(t, h.root), skillsMDEntries(t, local.root); got != want || want == "" {
		t.Errorf("skills.md entries:\n got %q\nwant %q", got, want)
	}
	for _, f := range []string{"output/hello_skill/greeting.txt"} {
		a, _ := os.ReadFile(filepath.Join(local.root, f))
		b, _ := os.ReadFile(filepath.Join(h.root, f))
		if string(a) != string(b) || len(a) == 0 {
			t.Errorf("%s: workflow %q, local %q", f, b, a)
		}
	}
	q, err := env.QueryWorkflow(temporal.QueryProgress, 0)
	if err != nil {
		t.Fatal(err)
	}
	var all temporal.Progress
	if err := q.Get(&all); err != nil {
		t.Fatal(err)
	}
	if len(all.Records) != lr.Seq() {
		t.Errorf("the progress query gave %d records, want %d", len(all.Records), lr.Seq())
	}
}

const askSpec = `lpp: 1
name: ask
context:
  answer: {type: string, default: ""}
  n: {type: int, default: 0}
initial: ask
states:
  ask:
    do: test.ask
    next: wait_go
  wait_go:
    do: noop
    on:
      GO: {to: done, set: {n: event.payload.n}}
  done:
    final: true
events:
  GO:
    payload: {n: {type: int, required: true}}
`

var askAction = machine.Action{
	Name:   "test.ask",
	Writes: []machine.VarSpec{{Name: "answer", Type: spec.TypeString}},
	Run: func(_ context.Context, c *machine.Call) error {
		if c.Input == nil {
			return machine.Pause("approval", "go on?", "approve", "reject")
		}
		return c.SetVar("answer", c.Input.Kind)
	},
}

func writeSpec(t *testing.T, root, name, src string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, name), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

type update struct {
	accepted bool
	err      error
}

func (u *update) Accept()                           { u.accepted = true }
func (u *update) Reject(err error)                  { u.err = err }
func (u *update) Complete(_ interface{}, err error) { u.err = cmpErr(u.err, err) }

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

func progressOf(t *testing.T, env *testsuite.TestWorkflowEnvironment) temporal.Progress {
	t.Helper()
	q, err := env.QueryWorkflow(temporal.QueryProgress, 0)
	if err != nil {
		t.Fatal(err)
	}
	var p temporal.Progress
	if err := q.Get(&p); err != nil {
		t.Fatal(err)
	}
	return p
}

// A run pauses for a person; the resume Update refuses an answer it does
// not take, then continues with one it does; a waiting state takes its
// event by the same Update.
func TestWorkflowPauseAnsweredByUpdate(t *testing.T) {
	h := &testHost{root: t.TempDir(), extra: []machine.Action{askAction}}
	rel := writeSpec(t, h.root, "ask.yaml", askSpec)
	env := newEnv(t, h)
	var bad, stale, good, early, ev update
	pausedAt := -1
	env.RegisterDelayedCallback(func() {
		p := progressOf(t, env)
		if p.Status != machine.StatusPaused || p.Pause == nil || p.Pause.Kind != "approval" || p.State != "ask" {
			t.Errorf("before the answer: %+v", p)
		}
		pausedAt = p.Steps
		other := p.Steps + 5
		env.UpdateWorkflow(temporal.UpdateResume, "u0", &early, temporal.Resume{Event: &temporal.EventArg{Name: "GO", Payload: map[string]any{"n": 1}}})
		env.UpdateWorkflow(temporal.UpdateResume, "u1", &bad, temporal.Resume{Input: &machine.Input{Kind: "maybe"}})
		env.UpdateWorkflow(temporal.UpdateResume, "u1s", &stale, temporal.Resume{Input: &machine.Input{Kind: "approve"}, PauseStep: &other})
		env.UpdateWorkflow(temporal.UpdateResume, "u2", &good, temporal.Resume{Input: &machine.Input{Kind: "approve"}, PauseStep: &p.Steps})
	}, time.Minute)
	env.RegisterDelayedCallback(func() {
		p := progressOf(t, env)
		if p.Status != machine.StatusPaused || p.Pause == nil || p.Pause.Kind != machine.PauseEvent || p.State != "wait_go" {
			t.Errorf("before the event: %+v", p)
		}
		env.UpdateWorkflow(temporal.UpdateResume, "u3", &ev, temporal.Resume{Event: &temporal.EventArg{Name: "GO", Payload: map[string]any{"n": 7}}})
	}, 2*time.Minute)
	env.ExecuteWorkflow(temporal.WorkflowName, startOf(t, h.root, rel, "run-ask", nil))
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow: %v", err)
	}
	want := `cannot resume run run-ask: it waits for approval: answer with approve, reject`
	if early.err == nil || early.err.Error() != want {
		t.Errorf("an event for an approval: %v, want %q", early.err, want)
	}
	want = `cannot resume run run-ask: "maybe" is not an answer to its approval; give one of approve, reject`
	if bad.err == nil || bad.err.Error() != want {
		t.Errorf("a wrong answer: %v, want %q", bad.err, want)
	}
	want = fmt.Sprintf("cannot resume run run-ask: it no longer waits for this decision (it paused after step %d; it waits in ask after step %d now)", pausedAt+5, pausedAt)
	if stale.err == nil || stale.err.Error() != want {
		t.Errorf("an answer for another pause: %v, want %q", stale.err, want)
	}
	if !good.accepted || good.err != nil || !ev.accepted || ev.err != nil {
		t.Errorf("the answers: %+v %+v", good, ev)
	}
	var p temporal.Progress
	if err := env.GetWorkflowResult(&p); err != nil {
		t.Fatal(err)
	}
	if p.Status != machine.StatusCompleted || p.Vars["answer"] != "approve" || p.Vars["n"] != float64(7) {
		t.Errorf("the run ended %s with %v", p.Status, p.Vars)
	}
}

// temporary is an error that says it may pass.
type temporary struct{ error }

func (temporary) Temporary() bool { return true }

const flakySpec = `lpp: 1
name: flaky
context:
  tries: {type: int, default: 0}
  outcome: {type: string, default: ""}
initial: call
states:
  call:
    do: test.flaky
    next: broken
  broken:
    do: test.broken
    next: done
    on_error: {to: done, set: {outcome: last_error}}
  done:
    final: true
`

// An action that fails for a transient cause is retried (by any worker)
// and the run goes on; one that fails for good takes its on_error route
// without a retry, as in a local run.
func TestWorkflowRetriesATransientActionFailure(t *testing.T) {
	var flaky, broken atomic.Int32
	h := &testHost{root: t.TempDir(), extra: []machine.Action{
		{Name: "test.flaky", Writes: []machine.VarSpec{{Name: "tries", Type: spec.TypeInt}}, Run: func(_ context.Context, c *machine.Call) error {
			if n := flaky.Add(1); n < 3 {
				return temporary{errors.New("connection reset")}
			}
			return c.SetVar("tries", int(flaky.Load()))
		}},
		{Name: "test.broken", Run: func(context.Context, *machine.Call) error {
			broken.Add(1)
			return errors.New("the file is malformed")
		}},
	}}
	rel := writeSpec(t, h.root, "flaky.yaml", flakySpec)
	env := newEnv(t, h)
	env.ExecuteWorkflow(temporal.WorkflowName, startOf(t, h.root, rel, "run-flaky", nil))
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow: %v", err)
	}
	var p temporal.Progress
	if err := env.GetWorkflowResult(&p); err != nil {
		t.Fatal(err)
	}
	if flaky.Load() != 3 || broken.Load() != 1 {
		t.Errorf("test.flaky ran %d times (want 3), test.broken %d (want 1)", flaky.Load(), broken.Load())
	}
	if p.Vars["tries"] != float64(3) || p.Vars["outcome"] != "the file is malformed" {
		t.Errorf("variables: %v", p.Vars)
	}
}

const waitSpec = `lpp: 1
name: sleepy
initial: nap
states:
  nap:
    do: wait
    with: {duration: 1h}
    next: done
  done:
    final: true
`

// Cancelling the workflow stops the run for good: its wait (a durable
// timer) ends, the workflow ends cancelled with no further step, and the
// progress query says "cancelled" (not a local run's "interrupted", which
// resume continues).
func TestWorkflowCancel(t *testing.T) {
	h := &testHost{root: t.TempDir()}
	rel := writeSpec(t, h.root, "sleepy.yaml", waitSpec)
	env := newEnv(t, h)
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Minute)
	env.ExecuteWorkflow(temporal.WorkflowName, startOf(t, h.root, rel, "run-sleepy", nil))
	err := env.GetWorkflowError()
	if err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Fatalf("workflow error: %v, want a cancellation", err)
	}
	p := progressOf(t, env)
	if p.Steps != 0 || p.State != "nap" || p.Status != temporal.StatusCancelled || p.Cancelled != temporal.HowCancelRequest || p.Error != "" {
		t.Errorf("after the cancel: %s (%q, error %q) in %s after %d steps, want cancelled (%q) in nap after 0", p.Status, p.Cancelled, p.Error, p.State, p.Steps, temporal.HowCancelRequest)
	}
}

// A spec whose content does not match its hash is refused before any step.
func TestWorkflowRefusesASpecThatIsNotTheOneHashed(t *testing.T) {
	h := &testHost{root: t.TempDir()}
	rel := writeSpec(t, h.root, "sleepy.yaml", waitSpec)
	st := startOf(t, h.root, rel, "run-x", nil)
	st.Spec = append(st.Spec, '\n')
	env := newEnv(t, h)
	env.ExecuteWorkflow(temporal.WorkflowName, st)
	err := env.GetWorkflowError()
	if err == nil || !strings.Contains(err.Error(), "cannot start run run-x: the spec's hash is sha256:") {
		t.Fatalf("workflow error: %v", err)
	}
	if h.opens != 0 {
		t.Errorf("%d actions ran", h.opens)
	}
}
