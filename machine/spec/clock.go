package spec

import (
	"fmt"
	"maps"
	"time"

	"github.com/expr-lang/expr"
)

// envClock is the key of a compile environment that holds the clock the
// expression function now() reads (EnvWithClock). No identifier can name
// it: expressions cannot read it as a variable.
const envClock = "\x00now"

// EnvWithClock returns a copy of the compile environment env whose
// expressions' now() reads now instead of the wall clock. A Temporal
// workflow compiles its run so (workflow.Now): a replay evaluates the
// run's expressions again, and must get the times the run got.
func EnvWithClock(env map[string]any, now func() time.Time) map[string]any {
	out := maps.Clone(env)
	out[envClock] = now
	return out
}

// clockOptions defines now() on the clock of env, when it holds one and no
// context variable takes the name; else expr's builtin reads the wall
// clock.
func clockOptions(env map[string]any) []expr.Option {
	now, ok := env[envClock].(func() time.Time)
	if !ok {
		return nil
	}
	if _, taken := env["now"]; taken {
		return nil
	}
	return []expr.Option{expr.Function("now", func(args ...any) (any, error) {
		switch len(args) {
		case 0:
			return now(), nil
		case 1:
			if tz, ok := args[0].(*time.Location); ok {
				return now().In(tz), nil
			}
		}
		return nil, fmt.Errorf("invalid number of arguments (expected 0, got %d)", len(args))
	}, new(func() time.Time), new(func(*time.Location) time.Time))}
}
