package machine

import (
	"context"
	"errors"
	"fmt"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"time"
)

// RegisterBuiltins adds the generic actions that need no LLM and no tools, so
// that any spec can be run and tested on its own:
//
//	noop   does nothing
//	log    records a message (progress output and the journal show it)
//	wait   sleeps for a duration (interrupted by Ctrl-C)
//	fail   fails with a message (to exercise on_error routes)
//	emit   sends a named external event to the run
func RegisterBuiltins(r *Registry) error {
	for _, a := range BuiltinActions() {
		if err := r.Register(a); err != nil {
			return err
		}
	}
	return nil
}

// NewBuiltinRegistry returns a registry holding only the built-in actions.
func NewBuiltinRegistry() *Registry {
	r := NewRegistry()
	if err := RegisterBuiltins(r); err != nil {
		panic(err) // the built-ins are static; failing here is a programming error
	}
	return r
}

// ActionNoop is the built-in action that does nothing: a durable run does
// not sync its step on its own, as for a state without an action.
const ActionNoop = "noop"

// ActionFail and ActionEmit are the built-in fail and emit: the model
// checker knows what they do (fail always fails; emit sends its event).
const (
	ActionFail = "fail"
	ActionEmit = "emit"
)

// MessageWithValue is the text of a failing action's message parameter
// followed, after a space, by the result of its value parameter when the
// spec gives one: a string in full and as it is (it is the reason the run
// stops), another value as log shows it (FormatValue). fail and agent.abort
// share this rule.
func MessageWithValue(c *Call) string {
	text := c.String("message")
	v, ok := c.Params["value"]
	if !ok {
		return text
	}
	s, isString := v.(string)
	if !isString {
		s = mspec.FormatValue(v)
	}
	if text == "" {
		return s
	}
	return text + " " + s
}

func BuiltinActions() []Action {
	return []Action{
		{
			Name:       ActionNoop,
			Doc:        "does nothing; useful for routing-only states",
			NeverFails: true,
			Run:        func(context.Context, *Call) error { return nil },
		},
		{
			Name:       "log",
			Doc:        "records a message, optionally with the value of an expression",
			NeverFails: true, // only its value parameter can fail
			Params: []ParamSpec{
				{Name: "message", Type: mspec.TypeString, Required: true, Doc: "the text to record"},
				{Name: "value", Type: mspec.TypeExpr, Doc: "an expression whose value is appended, e.g. retries + 1"},
				{Name: "level", Type: mspec.TypeString, Default: "info", Enum: []string{"info", "warning"},
					Doc: "info, or warning: a warning is shown by lppctl run -q too"},
			},
			Run: func(_ context.Context, c *Call) error {
				text := c.String("message")
				if v, ok := c.Params["value"]; ok {
					text += " " + mspec.FormatValue(v)
				}
				if c.String("level") == "warning" {
					c.Warnf("%s", text)
				} else {
					c.Notef("%s", text)
				}
				return nil
			},
		},
		{
			Name:       "wait",
			Doc:        "sleeps for a duration such as 500ms or 2s; Ctrl-C interrupts it",
			NeverFails: true, // a duration that is not one is refused as a parameter; Ctrl-C interrupts the run
			Params: []ParamSpec{
				{Name: "duration", Type: mspec.TypeString, Format: mspec.FormatDuration, Required: true,
					Doc: "a Go duration: 250ms, 2s, 1m; or an expression giving one, e.g. 'string(2 * retries) + \"s\"'"},
			},
			Run: func(ctx context.Context, c *Call) error {
				d, err := time.ParseDuration(c.String("duration"))
				if err != nil || d < 0 {
					return fmt.Errorf("cannot wait: %q is not a duration like 500ms or 2s", c.String("duration"))
				}
				t := time.NewTimer(d)
				defer t.Stop()
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-t.C:
					return nil
				}
			},
		},
		{
			Name: ActionFail,
			Doc:  "fails with a message, optionally with the value of an expression; the state's on_error route (if any) is taken",
			Params: []ParamSpec{
				{Name: "message", Type: mspec.TypeString, Default: "failed on purpose", ExprIn: "value", Doc: "the error text (text, not an expression)"},
				{Name: "value", Type: mspec.TypeExpr, Doc: "an expression whose value is appended, e.g. last_error"},
			},
			Run: func(_ context.Context, c *Call) error { return errors.New(MessageWithValue(c)) },
		},
		{
			Name:       ActionEmit,
			Doc:        "sends a named event to the run, optionally with a payload; it is considered before the state's next",
			NeverFails: true, // only its payload can fail
			Params: []ParamSpec{
				{Name: "event", Type: mspec.TypeString, Required: true, Event: true, Doc: "the event's name"},
				{Name: "payload", Type: mspec.TypeExprMap, PayloadOf: "event", Doc: "the event's payload: field → expression, e.g. {score: retries + 1}"},
			},
			Run: func(_ context.Context, c *Call) error {
				payload, _ := c.Params["payload"].(map[string]any)
				c.EmitEvent(c.String("event"), payload)
				return nil
			},
		},
	}
}
