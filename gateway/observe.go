package gateway

import (
	"context"
	"time"
)

// CallInfo describes a finished tool call to an observer (WithObserver).
type CallInfo struct {
	Tool       string
	SubCommand string         // safe_cli_executor's sub-command ("" otherwise)
	Args       map[string]any // the decoded arguments (nil when they were not a JSON object); do not change them
	Start      time.Time
	Result     Result
}

// WithObserver calls f after every tool call, with the call's context and
// what came of it (for tracing). f must not block; it runs on the caller's
// goroutine after the audit line is written.
func WithObserver(f func(ctx context.Context, call CallInfo)) Option {
	return func(o *options) { o.observe = f }
}

func (g *Gateway) observeCall(ctx context.Context, call CallInfo) {
	if g.observe == nil {
		return
	}
	if ctx == nil {
		ctx = context.Background()
	}
	defer func() { _ = recover() }() // an observer's bug never reaches the model
	g.observe(ctx, call)
}
