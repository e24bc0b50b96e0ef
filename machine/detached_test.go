package machine_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

const detachedSpec = `lpp: 1
name: detached
context:
  n: {type: int, default: 2}
  ratio: {type: float, default: 0.5}
  tags: {type: list, default: [a]}
  out: {type: string, default: ""}
initial: go
states:
  go:
    do: test.work
    with: {times: n + 1}
    next: done
    on:
      DONE: {to: done}
  done:
    final: true
events:
  DONE:
    payload: {score: {type: int}}
`

// work reads what a detached call must carry (parameters, variables,
// memory, the event) and writes through every channel a Call has.
func work(_ context.Context, c *machine.Call) error {
	var seen []string
	c.Memory().Get("seen", &seen)
	times, _ := c.Param("times").(int)
	ratio, _ := c.Var("ratio").(float64)
	if times != 3 || ratio != 0.5 {
		return errors.New("parameters or variables lost their types")
	}
	if err := c.SetVar("out", c.State+"<&>"); err != nil {
		return err
	}
	if err := c.Memory().Append("log", map[string]any{"html": "<b>&</b>", "seq": c.Seq}); err != nil {
		return err
	}
	c.Memory().Put("seen", append(seen, c.RunID))
	c.Memory().Delete("gone")
	c.Notef("did %d", times)
	c.EmitEvent("DONE", map[string]any{"score": times})
	return nil
}

func fixedClock() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) }

// An action run detached (its call snapshotted, sent through JSON, run,
// its output sent back through JSON and applied) makes the same step as
// the action run in place.
func TestDetachedCallMakesTheSameStep(t *testing.T) {
	inPlace := machine.NewBuiltinRegistry()
	inPlace.MustRegister(machine.Action{Name: "test.work", Params: []machine.ParamSpec{{Name: "times", Type: mspec.TypeExpr}}, Run: work})
	local := &recorder{}
	m := compileSpec(t, detachedSpec, inPlace)
	r, _ := m.NewRun(nil, machine.WithRunID("r1"), machine.WithObserver(local), machine.WithClock(fixedClock))
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}

	act := inPlace.Lookup("test.work")
	remote := machine.NewBuiltinRegistry()
	remote.MustRegister(machine.Action{Name: "test.work", Params: act.Params, Run: func(ctx context.Context, c *machine.Call) error {
		b, err := json.Marshal(c.Detach())
		if err != nil {
			return err
		}
		var in machine.CallInput
		if err := json.Unmarshal(b, &in); err != nil {
			return err
		}
		out, err := machine.RunDetached(ctx, m.Spec(), act, &in)
		if err != nil {
			return err
		}
		if b, err = json.Marshal(out); err != nil {
			return err
		}
		var back machine.CallOutput
		if err := json.Unmarshal(b, &back); err != nil {
			return err
		}
		return c.Apply(&back)
	}})
	detached := &recorder{}
	r2, _ := compileSpec(t, detachedSpec, remote).NewRun(nil, machine.WithRunID("r1"), machine.WithObserver(detached), machine.WithClock(fixedClock))
	if err := r2.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(local.recs)
	b, _ := json.Marshal(detached.recs)
	if string(a) != string(b) {
		t.Errorf("detached steps:\n%s\nin place:\n%s", b, a)
	}
	mem1, _ := json.Marshal(r.Memory())
	mem2, _ := json.Marshal(r2.Memory())
	if string(mem1) != string(mem2) {
		t.Errorf("memory: detached %s, in place %s", mem2, mem1)
	}
}

// A pause and an error come back from a detached run as they are.
func TestRunDetachedReturnsPausesAndErrors(t *testing.T) {
	reg := machine.NewBuiltinRegistry()
	reg.MustRegister(machine.Action{Name: "test.work", Params: []machine.ParamSpec{{Name: "times", Type: mspec.TypeExpr}}, Run: work})
	m := compileSpec(t, detachedSpec, reg)
	pause := machine.Action{Name: "p", Run: func(context.Context, *machine.Call) error { return machine.Pause("approval", "ok?", "approve") }}
	if _, err := machine.RunDetached(context.Background(), m.Spec(), &pause, &machine.CallInput{}); err == nil {
		t.Fatal("no pause")
	} else if p, ok := machine.AsPause(err); !ok || p.Kind != "approval" {
		t.Fatalf("pause: %v", err)
	}
	boom := machine.Action{Name: "boom", Run: func(context.Context, *machine.Call) error { panic("oops") }}
	if _, err := machine.RunDetached(context.Background(), m.Spec(), &boom, &machine.CallInput{}); err == nil || err.Error() != `action "boom" panicked: oops` {
		t.Fatalf("panic: %v", err)
	}
	bad := machine.Action{Name: "bad", Run: func(_ context.Context, c *machine.Call) error { return c.SetVar("nope", 1) }}
	if _, err := machine.RunDetached(context.Background(), m.Spec(), &bad, &machine.CallInput{}); err == nil || err.Error() != `cannot set "nope": the spec declares no such context variable` {
		t.Fatalf("undeclared: %v", err)
	}
}
