package machine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// compileSpec parses src and compiles it against reg (built-ins when nil).
func compileSpec(t testing.TB, src string, reg *machine.Registry) *machine.Machine {
	t.Helper()
	spec, diags := mspec.Parse("test.yaml", []byte(src))
	if diags.HasErrors() {
		t.Fatalf("parse: %v", diags.Err())
	}
	if reg == nil {
		reg = machine.NewBuiltinRegistry()
	}
	m, err := machine.Compile(spec, reg)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return m
}

// recorder is an Observer that keeps every record.
type recorder struct{ recs []*machine.Record }

func (r *recorder) OnStep(_ context.Context, rec *machine.Record) error {
	cp := *rec
	r.recs = append(r.recs, &cp)
	return nil
}

func (r *recorder) path() string {
	var parts []string
	for _, rec := range r.recs {
		if rec.End {
			continue
		}
		if len(parts) == 0 {
			parts = append(parts, rec.From)
		}
		parts = append(parts, rec.To)
	}
	return strings.Join(parts, ">")
}

const counterSpec = `
lpp: 1
name: counter
context:
  n: {type: int, default: 0}
  max: {type: int, default: 3}
  seen: {type: int, default: -1}
  verdict: {type: string, enum: ["", PASS, FAIL], default: ""}
initial: start
states:
  start:
    do: noop
    set: {n: n + 1, seen: n}
    next:
      - {to: done, when: n >= max, set: {verdict: '"PASS"'}}
      - to: start
  done: {final: true}
`

func TestRunFollowsFirstHoldingGuardAfterStateSet(t *testing.T) {
	m := compileSpec(t, counterSpec, nil)
	rec := &recorder{}
	r, err := m.NewRun(nil, machine.WithObserver(rec))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Run(context.Background()); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got, want := rec.path(), "start>start>start>done"; got != want {
		t.Errorf("path = %s, want %s", got, want)
	}
	if r.Status() != machine.StatusCompleted || r.State() != "done" {
		t.Errorf("status %s in %s, want completed in done", r.Status(), r.State())
	}
	vars := r.Vars()
	// set expressions all see the context as it was before the set: seen is the old n.
	if vars["n"] != 3 || vars["seen"] != 2 || vars["verdict"] != "PASS" {
		t.Errorf("vars = %v, want n=3 seen=2 verdict=PASS", vars)
	}
	last := rec.recs[len(rec.recs)-1]
	if !last.End || last.From != "done" || last.Via != "final" {
		t.Errorf("last record = %+v, want the final state's end record", last)
	}
	if rec.recs[2].Guard != "n >= max" || rec.recs[2].Via != "next[0]" {
		t.Errorf("record 3 via %s guard %q, want next[0] with n >= max", rec.recs[2].Via, rec.recs[2].Guard)
	}
}

func TestRunVarOverridesAreTyped(t *testing.T) {
	m := compileSpec(t, counterSpec, nil)
	tests := []struct {
		name    string
		vars    map[string]any
		wantErr string
	}{
		{"int from float", map[string]any{"max": 1.0}, ""},
		{"string into int", map[string]any{"max": "3"}, `cannot set "max": string "3" is not an int`},
		{"enum out of range", map[string]any{"verdict": "MAYBE"}, `cannot set "verdict": "MAYBE" is not one of ["", "PASS", "FAIL"]`},
		{"unknown var with hint", map[string]any{"mx": 1}, `cannot set "mx": the spec declares no such context variable; did you mean "max"?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := m.NewRun(tt.vars)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("NewRun: %v", err)
				}
				return
			}
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("NewRun error = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// TestAStateWithNoTransitionAtAllFailsSayingSo: a state with no next and
// no on (an L++ entry state no transition leaves) failed with "every guard
// was false:" and an empty list.
func TestAStateWithNoTransitionAtAllFailsSayingSo(t *testing.T) {
	m := compileSpec(t, `
lpp: 1
name: stuck
initial: s0
states:
  s0:
  done: {final: true}
`, nil)
	r, _ := m.NewRun(nil)
	err := r.Run(context.Background())
	require.ErrorIs(t, err, machine.ErrNoTransition)
	assert.Equal(t, `no transition holds in state "s0": it has no transition (no next, no on) and is not final: nothing can move the run on (give it a next or on, or make it final: true)`, err.Error())
	assert.Equal(t, machine.StatusFailed, r.Status())
}

func TestRunStopsWhenNoGuardHoldsNamingValues(t *testing.T) {
	m := compileSpec(t, `
lpp: 1
name: stuck
context:
  retries: {type: int, default: 3}
  max_retries: {type: int, default: 3}
  verdict: {type: string, default: "FAIL"}
initial: evaluator
states:
  evaluator:
    do: noop
    next:
      - {to: done, when: 'verdict == "PASS"'}
      - {to: evaluator, when: retries < max_retries}
  done: {final: true}
`, nil)
	r, _ := m.NewRun(nil)
	err := r.Run(context.Background())
	if !errors.Is(err, machine.ErrNoTransition) {
		t.Fatalf("err = %v, want ErrNoTransition", err)
	}
	want := `no transition holds in state "evaluator": every guard was false: verdict == "PASS" (verdict="FAIL"); retries < max_retries (max_retries=3, retries=3)`
	if err.Error() != want {
		t.Errorf("err =\n%s\nwant\n%s", err, want)
	}
	if r.Status() != machine.StatusFailed {
		t.Errorf("status = %s, want failed", r.Status())
	}
}

func TestRunBudgetNamesTheCycle(t *testing.T) {
	m := compileSpec(t, `
lpp: 1
name: loop
limits: {max_transitions: 7}
initial: a
states:
  a: {do: noop, next: b}
  b: {do: noop, next: [{to: c}]}
  c: {do: noop, next: a}
  done: {final: true}
`, nil)
	r, _ := m.NewRun(nil)
	err := r.Run(context.Background())
	if !errors.Is(err, machine.ErrBudget) {
		t.Fatalf("err = %v, want ErrBudget", err)
	}
	if !strings.Contains(err.Error(), `transition budget exhausted: the run made 7 transitions (its budget) and stands in state "b", which is not final; it kept cycling b → c → a → b (raise limits.max_transitions or --max-transitions if the run is meant to go on this long)`) {
		t.Errorf("err = %v, want it to name the cycle", err)
	}
	r2, _ := m.NewRun(nil, machine.WithMaxTransitions(2))
	if err := r2.Run(context.Background()); !errors.Is(err, machine.ErrBudget) || r2.Seq() != 2 {
		t.Errorf("WithMaxTransitions(2): err %v after %d steps", err, r2.Seq())
	}
}

func TestRunInterruptedBetweenTransitions(t *testing.T) {
	m := compileSpec(t, counterSpec, nil)
	ctx, cancel := context.WithCancel(context.Background())
	stopAfter := machine.ObserverFunc(func(_ context.Context, rec *machine.Record) error {
		if rec.Seq == 1 {
			cancel()
		}
		return nil
	})
	r, _ := m.NewRun(nil, machine.WithObserver(stopAfter))
	err := r.Run(ctx)
	if !errors.Is(err, machine.ErrInterrupted) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want ErrInterrupted wrapping context.Canceled", err)
	}
	if r.Seq() != 1 || r.State() != "start" || r.Status() != machine.StatusInterrupted {
		t.Errorf("after interrupt: seq %d state %s status %s", r.Seq(), r.State(), r.Status())
	}
	// The run continues where it stopped.
	if err := r.Run(context.Background()); err != nil {
		t.Fatalf("continue: %v", err)
	}
	if r.Var("n") != 3 {
		t.Errorf("n = %v after continuing, want 3", r.Var("n"))
	}
}

// flakyRegistry has an action that fails the first `failures` times, writing
// a variable and memory before failing (those writes must be dropped).
func flakyRegistry(t testing.TB, failures int) *machine.Registry {
	reg := machine.NewBuiltinRegistry()
	calls := 0
	if err := reg.Register(machine.Action{
		Name:   "flaky",
		Doc:    "fails a few times",
		Writes: []machine.VarSpec{{Name: "attempts", Type: mspec.TypeInt}},
		Run: func(_ context.Context, c *machine.Call) error {
			calls++
			if err := c.SetVar("attempts", calls); err != nil {
				return err
			}
			if err := c.Memory().Append("log", calls); err != nil {
				return err
			}
			if calls <= failures {
				return errors.New("provider said 503")
			}
			return nil
		},
	}); err != nil {
		t.Fatal(err)
	}
	return reg
}

const onErrorSpec = `
lpp: 1
name: errors
context:
  attempts: {type: int, default: 0}
  errs: {type: int, default: 0}
  saw: {type: string, default: ""}
initial: work
states:
  work:
    do: flaky
    next: done
    on_error: {to: recover, set: {errs: errs + 1}}
  recover:
    do: noop
    set: {saw: last_error}
    next:
      - {to: work, when: 'last_error contains "503"'}
      - to: done
  done: {final: true}
`

func TestRunRoutesActionErrorsAndDropsTheirChanges(t *testing.T) {
	m := compileSpec(t, onErrorSpec, flakyRegistry(t, 2))
	rec := &recorder{}
	r, _ := m.NewRun(nil, machine.WithObserver(rec))
	if err := r.Run(context.Background()); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got, want := rec.path(), "work>recover>work>recover>work>done"; got != want {
		t.Errorf("path = %s, want %s", got, want)
	}
	vars := r.Vars()
	if vars["attempts"] != 3 || vars["errs"] != 2 || vars["saw"] != "provider said 503" {
		t.Errorf("vars = %v", vars)
	}
	if r.Var("last_error") != "" {
		t.Errorf("last_error = %q after the route was handled, want empty", r.Var("last_error"))
	}
	if n := len(r.Memory().Items("log")); n != 1 {
		t.Errorf("memory log has %d items, want 1 (failed attempts' writes dropped)", n)
	}
	if rec.recs[0].Via != "on_error" || rec.recs[0].Error != "provider said 503" {
		t.Errorf("first record = %+v", rec.recs[0])
	}
}

func TestRunFailsOnActionErrorWithoutRoute(t *testing.T) {
	m := compileSpec(t, `
lpp: 1
name: fail
initial: a
states:
  a: {do: fail, with: {message: disk on fire}, next: done}
  done: {final: true}
`, nil)
	r, _ := m.NewRun(nil)
	err := r.Run(context.Background())
	if !errors.Is(err, machine.ErrActionFailed) || err.Error() != `action failed: fail in state "a": disk on fire` {
		t.Fatalf("err = %v", err)
	}
}

func TestRunRecoversFromPanickingAction(t *testing.T) {
	reg := machine.NewBuiltinRegistry()
	reg.MustRegister(machine.Action{Name: "boom", Run: func(context.Context, *machine.Call) error { panic("nil map") }})
	m := compileSpec(t, `
lpp: 1
name: boom
initial: a
states:
  a: {do: boom, next: done}
  done: {final: true}
`, reg)
	r, _ := m.NewRun(nil)
	err := r.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), `action "boom" panicked: nil map`) {
		t.Fatalf("err = %v, want the panic as an error", err)
	}
}

func approvalRegistry() *machine.Registry {
	reg := machine.NewBuiltinRegistry()
	reg.MustRegister(machine.Action{
		Name:   "approve",
		Writes: []machine.VarSpec{{Name: "approval", Type: mspec.TypeString}},
		Run: func(_ context.Context, c *machine.Call) error {
			if c.Input == nil {
				return machine.Pause("approval", "approve the plan?", "approve", "reject")
			}
			return c.SetVar("approval", c.Input.Kind)
		},
	})
	return reg
}

const approvalSpec = `
lpp: 1
name: approval
context:
  approval: {type: string, enum: ["", approve, reject], default: ""}
initial: plan
states:
  plan: {do: noop, next: ask}
  ask:
    do: approve
    next:
      - {to: done, when: 'approval == "approve"'}
      - to: rejected
  done: {final: true}
  rejected: {final: true}
`

func TestRunPausesAndResumesWithInput(t *testing.T) {
	m := compileSpec(t, approvalSpec, approvalRegistry())
	rec := &recorder{}
	r, _ := m.NewRun(nil, machine.WithObserver(rec))
	err := r.Run(context.Background())
	p, ok := machine.AsPause(err)
	if !ok {
		t.Fatalf("err = %v, want a pause", err)
	}
	if p.State != "ask" || p.Kind != "approval" || r.Status() != machine.StatusPaused {
		t.Errorf("pause = %+v, status %s", p, r.Status())
	}
	// Resume from the journal with the person's answer.
	r2, err := m.Resume(nil, rec.recs, machine.WithInput(&machine.Input{Kind: "approve"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := r2.Run(context.Background()); err != nil {
		t.Fatalf("resumed run: %v", err)
	}
	if r2.State() != "done" || r2.Var("approval") != "approve" {
		t.Errorf("resumed run ended in %s with approval %v", r2.State(), r2.Var("approval"))
	}
}

func TestResumeReplaysToTheSameRun(t *testing.T) {
	m := compileSpec(t, onErrorSpec, flakyRegistry(t, 1))
	full := &recorder{}
	r, _ := m.NewRun(nil, machine.WithObserver(full))
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for cut := 0; cut <= len(full.recs); cut++ {
		r2, err := m.Resume(nil, full.recs[:cut])
		if err != nil {
			t.Fatalf("Resume(%d): %v", cut, err)
		}
		if cut < len(full.recs) && r2.State() != full.recs[cut].From {
			t.Errorf("Resume(%d) in %s, want %s", cut, r2.State(), full.recs[cut].From)
		}
	}
	r3, err := m.Resume(nil, full.recs)
	if err != nil {
		t.Fatal(err)
	}
	if r3.Status() != machine.StatusCompleted {
		t.Errorf("resumed complete journal: status %s", r3.Status())
	}
	if got, want := r3.Vars(), r.Vars(); got["attempts"] != want["attempts"] || got["errs"] != want["errs"] {
		t.Errorf("replayed vars %v, want %v", got, want)
	}
	if _, err := m.Resume(nil, full.recs[1:]); err == nil || !strings.Contains(err.Error(), "cannot replay step 2: the run is at step 0") {
		t.Errorf("Resume with a gap: %v", err)
	}
}

const eventSpec = `
lpp: 1
name: events
context:
  resets: {type: int, default: 0}
  n: {type: int, default: 0}
initial: a
states:
  a:
    do: noop
    set: {n: n + 1}
    next:
      - {to: trigger, when: n == 2 && resets == 0}
      - {to: done, when: n >= 3}
      - to: a
  trigger: {do: emit, with: {event: RESET}, next: a}
  done: {final: true}
events:
  RESET: {from: "*", to: a, set: {resets: resets + 1, n: 0}}
  ONLY_FROM_DONE: {from: [done], to: a}
`

func TestEventsPreemptNextAndResetCounters(t *testing.T) {
	m := compileSpec(t, eventSpec, nil)
	rec := &recorder{}
	r, _ := m.NewRun(nil, machine.WithObserver(rec))
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := rec.path(), "a>a>trigger>a>a>a>done"; got != want {
		t.Errorf("path = %s, want %s", got, want)
	}
	if rec.recs[2].Via != "event RESET" {
		t.Errorf("record 3 via %q, want event RESET", rec.recs[2].Via)
	}
	if r.Var("resets") != 1 || r.Var("n") != 3 {
		t.Errorf("vars = %v", r.Vars())
	}
}

func TestSendFromOutside(t *testing.T) {
	m := compileSpec(t, eventSpec, nil)
	r, _ := m.NewRun(nil)
	if err := r.Send("RESTE"); err == nil || err.Error() != `cannot send event "RESTE": the spec defines no such event; did you mean "RESET"?` {
		t.Fatalf("Send(RESTE) = %v", err)
	}
	if err := r.Send("ONLY_FROM_DONE"); err != nil { // not applicable in a: ignored
		t.Fatal(err)
	}
	if err := r.Send("RESET"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Step(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r.Var("resets") != 1 || r.State() != "a" || r.Var("n") != 0 {
		t.Errorf("after RESET: state %s vars %v", r.State(), r.Vars())
	}
}

func TestObserverErrorStopsTheRun(t *testing.T) {
	m := compileSpec(t, counterSpec, nil)
	r, _ := m.NewRun(nil, machine.WithObserver(machine.ObserverFunc(func(context.Context, *machine.Record) error {
		return errors.New("disk full")
	})))
	err := r.Run(context.Background())
	if err == nil || err.Error() != "cannot record step 1: disk full" {
		t.Fatalf("err = %v", err)
	}
}

func TestFinalStateRunsItsAction(t *testing.T) {
	m := compileSpec(t, `
lpp: 1
name: final
initial: a
states:
  a: {do: noop, next: done}
  done: {do: log, with: {message: bye}, final: true}
`, nil)
	rec := &recorder{}
	r, _ := m.NewRun(nil, machine.WithObserver(rec))
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	last := rec.recs[len(rec.recs)-1]
	if !last.End || len(last.Notes) != 1 || last.Notes[0].Text != "bye" {
		t.Errorf("final record = %+v", last)
	}
	if _, err := r.Step(context.Background()); !errors.Is(err, machine.ErrFinished) {
		t.Errorf("Step after the end = %v, want ErrFinished", err)
	}
}

func TestExprParamsAreEvaluatedAtCallTime(t *testing.T) {
	m := compileSpec(t, `
lpp: 1
name: params
context:
  n: {type: int, default: 41}
initial: a
states:
  a: {do: log, with: {message: "answer is", value: n + 1}, next: done}
  done: {final: true}
`, nil)
	rec := &recorder{}
	r, _ := m.NewRun(nil, machine.WithObserver(rec))
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := rec.recs[0].Notes; len(got) != 1 || got[0].Text != "answer is 42" {
		t.Errorf("notes = %q", got)
	}
}

func TestFireMovesAStoppedRunWithoutItsAction(t *testing.T) {
	m := compileSpec(t, approvalSpec+`
events:
  CANCEL: {from: [ask], to: rejected, set: {approval: '"reject"'}}
  RESTART: {to: plan, when: approval == ""}
`, approvalRegistry())
	rec := &recorder{}
	r, _ := m.NewRun(nil, machine.WithObserver(rec))
	if _, ok := machine.AsPause(r.Run(context.Background())); !ok {
		t.Fatal("want a pause")
	}
	tests := []struct{ event, want string }{
		{"CANSEL", `cannot fire event "CANSEL": the spec defines no such event; did you mean "CANCEL"?`},
	}
	for _, tt := range tests {
		if err := r.Fire(context.Background(), tt.event); err == nil || err.Error() != tt.want {
			t.Errorf("Fire(%s) = %v, want %q", tt.event, err, tt.want)
		}
	}
	if err := r.Fire(context.Background(), "CANCEL"); err != nil {
		t.Fatal(err)
	}
	last := rec.recs[len(rec.recs)-1]
	if last.From != "ask" || last.To != "rejected" || last.Via != "event CANCEL" || last.Action != "" {
		t.Errorf("record = %+v", last)
	}
	if err := r.Run(context.Background()); err != nil || r.State() != "rejected" || r.Var("approval") != "reject" {
		t.Errorf("after CANCEL: %v in %s with %v", err, r.State(), r.Vars())
	}
	if err := r.Fire(context.Background(), "RESTART"); err == nil || !errors.Is(err, machine.ErrFinished) {
		t.Errorf("Fire after the end = %v", err)
	}
	// A journal with a fired event replays.
	r2, err := m.Resume(nil, rec.recs)
	if err != nil || r2.Status() != machine.StatusCompleted {
		t.Fatalf("Resume: %v, status %s", err, r2.Status())
	}
	// From a state the event does not list, and with a false guard.
	r3, _ := m.NewRun(map[string]any{"approval": "approve"})
	if err := r3.Fire(context.Background(), "CANCEL"); err == nil || err.Error() != `cannot fire event "CANCEL" in state "plan": it applies only from ["ask"]` {
		t.Errorf("Fire(CANCEL) in plan = %v", err)
	}
	if err := r3.Fire(context.Background(), "RESTART"); err == nil || err.Error() != `cannot fire event "RESTART" in state "plan": its guard "approval == \"\"" is false` {
		t.Errorf("Fire(RESTART) = %v", err)
	}
}
