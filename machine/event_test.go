package machine_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/export"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// waitSpec has a state that waits for SUBMIT (with a typed payload) or
// CANCEL, and a top-level RESET from every state.
const waitSpec = `
lpp: 1
name: wait
context:
  text: string
  asked: int
initial: start
states:
  start: {do: noop, next: ask}
  ask:
    do: count
    set: {asked: asked + 1}
    on:
      SUBMIT:
        - {to: accepted, when: event.payload.score >= 5, set: {text: event.payload.text}}
        - {to: ask, note: too low so ask again}
      CANCEL: rejected
  accepted: {do: seen, next: done}
  rejected: {do: seen, next: done}
  done: {final: true}
events:
  SUBMIT:
    payload:
      text: string
      score: {type: int, default: 0}
      level: {type: string, enum: [low, high], default: low}
  CANCEL:
  RESET: {to: start, set: {asked: 0}}
`

// eventRegistry counts the runs of "count" and records what "seen" got from Call.Event.
func eventRegistry(counted *int, seen *[]string) *machine.Registry {
	reg := machine.NewBuiltinRegistry()
	reg.MustRegister(machine.Action{Name: "count", Run: func(context.Context, *machine.Call) error { *counted++; return nil }})
	reg.MustRegister(machine.Action{Name: "seen", Run: func(_ context.Context, c *machine.Call) error {
		name, payload := c.Event()
		*seen = append(*seen, name+" "+machine.FormatPayload(payload))
		return nil
	}})
	return reg
}

func TestAWaitingStatePausesAfterItsActionAndAnEventMovesIt(t *testing.T) {
	var counted int
	var seen []string
	m := compileSpec(t, waitSpec, eventRegistry(&counted, &seen))
	rec := &recorder{}
	r, _ := m.NewRun(nil, machine.WithObserver(rec), machine.WithRunID("R1"))
	err := r.Run(context.Background())
	p, ok := machine.AsPause(err)
	if !ok {
		t.Fatalf("Run = %v, want a pause", err)
	}
	wantPrompt := "waiting for an event: SUBMIT {text: string, score: int (optional), level: string (optional)}, CANCEL, RESET; deliver one with: lppctl resume R1 --event NAME [--payload JSON]"
	if p.Kind != machine.PauseEvent || p.State != "ask" || p.Prompt != wantPrompt || !slices.Equal(p.Options, []string{"SUBMIT", "CANCEL", "RESET"}) {
		t.Errorf("pause = %+v\nwant prompt %q", p, wantPrompt)
	}
	if len(p.Events) != 3 || len(p.Events[0].Payload) != 3 || p.Events[0].Payload[0] != (machine.FieldInfo{Name: "text", Type: mspec.TypeString, Required: true}) {
		t.Errorf("pause events = %+v", p.Events)
	}
	if counted != 1 || r.Var("asked") != 1 || r.State() != "ask" || !r.Waiting() {
		t.Errorf("counted %d, asked %v, state %s, waiting %v", counted, r.Var("asked"), r.State(), r.Waiting())
	}
	last := rec.recs[len(rec.recs)-1]
	if last.Via != machine.ViaWait || last.From != "ask" || last.To != "ask" || last.Action != "count" || last.Vars["asked"] != 1 {
		t.Errorf("wait record = %+v", last)
	}
	// Pausing again delivers nothing and runs nothing.
	if _, ok := machine.AsPause(r.Run(context.Background())); !ok || counted != 1 || len(rec.recs) != 2 {
		t.Fatalf("second Run: counted %d, %d records", counted, len(rec.recs))
	}

	// A resumed run waits too, without running the action again.
	r2, err := m.Resume(nil, rec.recs, machine.WithObserver(rec))
	if err != nil || !r2.Waiting() || r2.State() != "ask" {
		t.Fatalf("Resume: %v, waiting %v in %s", err, r2.Waiting(), r2.State())
	}
	// A payload that fails its schema is refused and not delivered.
	if err := r2.FireEvent(context.Background(), "SUBMIT", map[string]any{"text": "hi", "score": "7"}); err == nil ||
		err.Error() != `cannot fire event "SUBMIT": payload field "score": the string "7" is not an int` {
		t.Fatalf("FireEvent with a bad payload = %v", err)
	}
	if !r2.Waiting() || len(rec.recs) != 2 {
		t.Fatalf("a refused event moved the run: waiting %v, %d records", r2.Waiting(), len(rec.recs))
	}
	// A low score takes the second transition: back to ask, whose action runs again.
	if err := r2.FireEvent(context.Background(), "SUBMIT", map[string]any{"text": "meh", "score": 2}); err != nil {
		t.Fatal(err)
	}
	if got := rec.recs[2]; got.Via != "on SUBMIT[1]" || got.Event != "SUBMIT" || got.To != "ask" ||
		!reflect.DeepEqual(got.Payload, map[string]any{"text": "meh", "score": 2, "level": "low"}) {
		t.Errorf("record 3 = %+v", got)
	}
	if _, ok := machine.AsPause(r2.Run(context.Background())); !ok || counted != 2 {
		t.Fatalf("after a low score: counted %d", counted)
	}
	if err := r2.FireEvent(context.Background(), "SUBMIT", map[string]any{"text": "good", "score": 9, "level": "high"}); err != nil {
		t.Fatal(err)
	}
	if err := r2.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r2.Var("text") != "good" || r2.Status() != machine.StatusCompleted {
		t.Errorf("text %v, status %s", r2.Var("text"), r2.Status())
	}
	if want := []string{`SUBMIT {"level":"high","score":9,"text":"good"}`}; !slices.Equal(seen, want) {
		t.Errorf("the action saw %q, want %q", seen, want)
	}
	if got, want := rec.path(), "start>ask>ask>ask>ask>accepted>done"; got != want {
		t.Errorf("path = %s, want %s", got, want)
	}
}

func TestACrashAfterAnEventReplaysItForTheNextAction(t *testing.T) {
	var counted int
	var seen []string
	m := compileSpec(t, waitSpec, eventRegistry(&counted, &seen))
	rec := &recorder{}
	r, _ := m.NewRun(nil, machine.WithObserver(rec))
	_ = r.Run(context.Background())
	if err := r.FireEvent(context.Background(), "CANCEL", nil); err != nil {
		t.Fatal(err)
	}
	// The process dies here: rejected's action has not run. Resume replays
	// the event's record, and the action sees the event that entered it.
	r2, err := m.Resume(nil, rec.recs)
	if err != nil {
		t.Fatal(err)
	}
	if err := r2.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := []string{"CANCEL "}; !slices.Equal(seen, want) {
		t.Errorf("seen %q, want %q", seen, want)
	}
}

func TestEventPayloadsAreCheckedAgainstTheirSchema(t *testing.T) {
	var counted int
	var seen []string
	m := compileSpec(t, waitSpec, eventRegistry(&counted, &seen))
	tests := []struct {
		event   string
		payload map[string]any
		want    string
	}{
		{"SUBMT", nil, `cannot send event "SUBMT": the spec defines no such event; did you mean "SUBMIT"?`},
		{"SUBMIT", nil, `cannot send event "SUBMIT": its payload lacks the required field "text" (string)`},
		{"SUBMIT", map[string]any{"text": "a", "scor": 1}, `cannot send event "SUBMIT": its payload has no field "scor"; did you mean "score"?`},
		{"SUBMIT", map[string]any{"text": "a", "x": 1}, `cannot send event "SUBMIT": its payload has no field "x"; its fields are text, score, level`},
		{"SUBMIT", map[string]any{"text": 3}, `cannot send event "SUBMIT": payload field "text": the number 3 is not a string`},
		{"SUBMIT", map[string]any{"text": 1.0}, `cannot send event "SUBMIT": payload field "text": the number 1 is not a string`},
		{"SUBMIT", map[string]any{"text": "a", "score": 1.5}, `cannot send event "SUBMIT": payload field "score": the number 1.5 is not an int`},
		{"SUBMIT", map[string]any{"text": "a", "score": true}, `cannot send event "SUBMIT": payload field "score": the boolean true is not an int`},
		{"SUBMIT", map[string]any{"text": []any{"a"}}, `cannot send event "SUBMIT": payload field "text": a list is not a string`},
		{"SUBMIT", map[string]any{"text": nil}, `cannot send event "SUBMIT": payload field "text" is null, but it is required (string)`},
		{"SUBMIT", map[string]any{"text": "a", "score": nil}, ""}, // null leaves an optional field at its default
		{"SUBMIT", map[string]any{"text": "a", "level": "hgh"}, `cannot send event "SUBMIT": payload field "level": "hgh" is not one of ["low", "high"]; did you mean "high"?`},
		{"CANCEL", map[string]any{"why": "x"}, `cannot send event "CANCEL": it takes no payload (declare its fields under events: CANCEL: payload:)`},
		{"SUBMIT", map[string]any{"text": "a", "score": 2.0}, ""}, // a JSON number that is integral is an int
	}
	for _, tt := range tests {
		r, _ := m.NewRun(nil)
		err := r.SendEvent(tt.event, tt.payload)
		if got := errString(err); got != tt.want {
			t.Errorf("SendEvent(%s, %v) = %q, want %q", tt.event, tt.payload, got, tt.want)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestEventsSentBeforeTheRunWaitForAStateThatTakesThem(t *testing.T) {
	var counted int
	var seen []string
	m := compileSpec(t, waitSpec, eventRegistry(&counted, &seen))
	rec := &recorder{}
	r, _ := m.NewRun(nil, machine.WithObserver(rec))
	for _, e := range []struct {
		name    string
		payload map[string]any
	}{{"SUBMIT", map[string]any{"text": "low", "score": 1}}, {"SUBMIT", map[string]any{"text": "ok", "score": 6}}} {
		if err := r.SendEvent(e.name, e.payload); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Run(context.Background()); err != nil {
		t.Fatalf("Run = %v, want completion (the queued events answer ask)", err)
	}
	if got, want := rec.path(), "start>ask>ask>accepted>done"; got != want {
		t.Errorf("path = %s, want %s (start has next and does not take SUBMIT; it stays queued)", got, want)
	}
	if r.Var("text") != "ok" || counted != 2 || len(r.Pending()) != 0 {
		t.Errorf("text %v, counted %d, pending %v", r.Var("text"), counted, r.Pending())
	}
}

// precedenceSpec has RESET in a state's on: and at the top level.
const precedenceSpec = `
lpp: 1
name: precedence
context:
  tries: int
initial: a
states:
  a:
    do: emit
    with: {event: RESET}
    on: {RESET: own}
    next: b
  b:
    do: emit
    with: {event: RESET}
    next: done
  own: {do: noop, next: b}
  global: {do: noop, next: failed}
  failed:
    do: emit
    with: {event: RETRY}
    next: done
  done: {final: true}
events:
  RESET: {to: global}
  RETRY:
    - {from: failed, to: b, when: tries < 2, set: {tries: tries + 1}}
    - {from: failed, to: done}
`

func TestAStatesOnComesBeforeTopLevelEventsAndTransitionsAreTriedInOrder(t *testing.T) {
	m := compileSpec(t, precedenceSpec, nil)
	rec := &recorder{}
	r, _ := m.NewRun(nil, machine.WithObserver(rec))
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := rec.path(), "a>own>b>global>failed>b>global>failed>b>global>failed>done"; got != want {
		t.Errorf("path = %s, want %s", got, want)
	}
	var vias []string
	for _, x := range rec.recs[:4] {
		vias = append(vias, x.Via)
	}
	if want := []string{"on RESET[0]", "next[0]", "event RESET", "next[0]"}; !slices.Equal(vias, want) {
		t.Errorf("vias = %q, want %q", vias, want)
	}
	if r.Var("tries") != 2 {
		t.Errorf("tries = %v", r.Var("tries"))
	}
}

const emitPayloadSpec = `
lpp: 1
name: emit_payload
context:
  n: {type: int, default: 4}
  got: int
initial: work
states:
  work:
    do: emit
    with: {event: DONE, payload: {result: n * 10}}
    on:
      DONE: {to: done, when: event.payload.result > 30, set: {got: event.payload.result}}
  done: {final: true}
events:
  DONE: {payload: {result: int}}
`

func TestAnActionEmitsAnEventWithAPayloadToItsOwnState(t *testing.T) {
	m := compileSpec(t, emitPayloadSpec, nil)
	r, _ := m.NewRun(nil)
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r.Var("got") != 40 {
		t.Errorf("got = %v, want 40", r.Var("got"))
	}
	// The guard does not hold: the event is dropped, and the state waits.
	rec := &recorder{}
	r2, _ := m.NewRun(map[string]any{"n": 1}, machine.WithObserver(rec))
	if _, ok := machine.AsPause(r2.Run(context.Background())); !ok {
		t.Fatal("want a pause")
	}
	if notes := rec.recs[0].Notes; len(notes) != 1 || notes[0].Text != "event DONE dropped: no transition for it holds in state work" {
		t.Errorf("notes = %q", notes)
	}
}

func TestAnEmittedEventThatFailsItsSchemaFailsTheAction(t *testing.T) {
	reg := machine.NewBuiltinRegistry()
	reg.MustRegister(machine.Action{
		Name:   "result",
		Writes: []machine.VarSpec{{Name: "n", Type: mspec.TypeInt}},
		Run: func(_ context.Context, c *machine.Call) error {
			c.EmitEvent("DONE", map[string]any{"result": "not a number"})
			return c.SetVar("n", 1)
		},
	})
	m := compileSpec(t, `
lpp: 1
name: bad_emit
context:
  n: int
initial: work
states:
  work:
    do: result
    on: {DONE: done}
    on_error: failed
  failed: {final: true}
  done: {final: true}
events:
  DONE: {payload: {result: int}}
`, reg)
	r, _ := m.NewRun(nil)
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r.State() != "failed" || r.Var("n") != 0 {
		t.Errorf("state %s, n %v: the action's writes must be dropped", r.State(), r.Var("n"))
	}
	if got, want := r.Var("last_error"), `cannot emit event "DONE": payload field "result": the string "not a number" is not an int`; got != want {
		t.Errorf("last_error = %q, want %q", got, want)
	}
}

func TestFireExplainsWhyAnEventDoesNotApply(t *testing.T) {
	m := compileSpec(t, precedenceSpec, nil)
	r, _ := m.NewRun(nil)
	tests := []struct{ event, want string }{
		{"RETRY", `cannot fire event "RETRY" in state "a": it applies only from ["failed"]`},
		{"RESTE", `cannot fire event "RESTE": the spec defines no such event; did you mean "RESET"?`},
	}
	for _, tt := range tests {
		if err := r.CanFire(tt.event); errString(err) != tt.want {
			t.Errorf("CanFire(%s) = %v, want %q", tt.event, err, tt.want)
		}
	}
	m2 := compileSpec(t, strings.Replace(precedenceSpec, "- {from: failed, to: done}", "- {from: failed, to: done, when: tries > 5}", 1), nil)
	r3, _ := m2.Resume(map[string]any{"tries": 3}, []*machine.Record{{Seq: 1, From: "a", To: "failed", Via: "next[0]"}})
	if err := r3.CanFire("RETRY"); errString(err) != `cannot fire event "RETRY" in state "failed": none of its guards holds ("tries < 2", "tries > 5")` {
		t.Errorf("CanFire(RETRY) = %v", err)
	}
	if errors.Is(r3.CanFire("RESET"), machine.ErrFinished) {
		t.Error("RESET applies")
	}
}

func TestDiagramsDrawOnEdgesLikeLpp(t *testing.T) {
	spec, diags := mspec.Parse("wait.yaml", []byte(waitSpec))
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	out, err := export.Export(spec, "mermaid", export.ExportOptions{Path: []string{"start", "ask", "ask", "accepted", "done"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"ask --> accepted : SUBMIT [event.payload.score >= 5]",
		"ask --> rejected : CANCEL",
		"ask --> ask : SUBMIT",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the diagram lacks %q:\n%s", want, out)
		}
	}
}
