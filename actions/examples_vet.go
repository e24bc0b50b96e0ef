package actions

import (
	"context"
	"fmt"
	"strings"

	"github.com/lppctl/lppctl/actions/examples"
	"github.com/lppctl/lppctl/machine"
)

// examplesVet is examples.vet: it refuses behavioural examples that are no
// evidence, before any code is written, so the model can still rewrite
// them: an example must say what kind it is, expect something that can be
// wrong (no empty contains text, no tolerance that is not small next to
// the expected value), and write its input files under reference/ only; the
// set must hold an edge and an error example, and no variable may be
// expected with one value only (a program that always gives it would pass).
// With derived (an independent derivation of the expected values, one item
// per example, from the target and the inputs alone), every value the two
// give differently is a problem too. It writes whether the examples stand
// and a report, one problem a line, each saying how to fix it; when they
// stand, held_out names the example the writer of the code is not shown
// (holdOut) and shown lists the others.
func (d *Deps) examplesVet(_ context.Context, c *machine.Call) error {
	list, ok := c.Param("examples").([]any)
	if !ok && c.Param("examples") != nil {
		return fmt.Errorf("examples of examples.vet must give a list, not %s", describe(c.Param("examples")))
	}
	var derived []any
	if c.Param("derived") != nil {
		if derived, ok = c.Param("derived").([]any); !ok {
			return fmt.Errorf("derived of examples.vet must give a list, not %s", describe(c.Param("derived")))
		}
	}
	problems := examples.Vet(list)
	if len(problems) == 0 && derived != nil {
		problems = examples.CompareDerived(list, derived)
	}
	heldOut, shown := []any{}, []any{}
	held := 0
	if len(problems) == 0 {
		plan, _ := c.Param("plan").([]any)
		target, _ := c.Param("target").(string)
		var problem string
		if held, problem = examples.HeldOutOf(list, plan, target); problem != "" {
			problems = append(problems, problem)
		}
	}
	if len(problems) == 0 {
		for i, raw := range list {
			if i+1 == held {
				heldOut = append(heldOut, held)
				continue
			}
			shown = append(shown, raw)
		}
	}
	report := fmt.Sprintf("examples: the %d examples can fail, cover an edge and an error case", len(list))
	if derived != nil {
		report += ", and an independent derivation agrees with their expected values"
	}
	if len(problems) > 0 {
		report = strings.Join(problems, "\n")
	}
	c.Notef("examples vetted: %d problem(s)", len(problems))
	return setNamedVars(c, map[string]any{"ok": len(problems) == 0, "report": report, "held_out": heldOut, "shown": shown})
}
