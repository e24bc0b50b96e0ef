package gateway

import "context"

// Effects makes tool calls happen once when the code that makes them runs
// again: an engine that re-executes an action after its worker died (a
// Temporal activity retried) gives the gateway a record of the calls the
// earlier attempts made. Call asks it before running a call.
type Effects interface {
	// Begin is asked before a call runs. It returns either the recorded
	// result of the same call (the same tool and arguments, at the same
	// place in the action), to give back instead of running it again, or
	// the function to call with the call's result once it has run (nil:
	// nothing to record). An error means the call could not be recorded:
	// the call does not run.
	Begin(ctx context.Context, tool string, args map[string]any) (replay *Result, done func(Result), err error)
}

// WithEffects gives the gateway a record of tool calls (see Effects). A
// call cut short by its context is not recorded: a re-execution runs it.
func WithEffects(e Effects) Option { return func(o *options) { o.effects = e } }

// recordEffects consults the record before a call; replay is the result to
// give back, done (with the call's result) records it.
func (g *Gateway) recordEffects(ctx context.Context, tool string, args map[string]any) (replay *Result, done func(Result), err error) {
	if g.effects == nil {
		return nil, nil, nil
	}
	replay, record, err := g.effects.Begin(ctx, tool, args)
	if err != nil || replay != nil || record == nil {
		return replay, nil, err
	}
	return nil, func(res Result) {
		if ctx.Err() == nil {
			record(res)
		}
	}, nil
}
