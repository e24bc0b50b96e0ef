package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/urfave/cli/v2"
	"go.temporal.io/sdk/client"

	"github.com/lppctl/lppctl/temporal"
)

// showStanding prints what the server alone tells of open run id, which no
// worker answers for (why says so): its status from the workflow's memo, its
// spec, its last action and the context it was given, from the history.
// Its state, steps, pause and memory need a worker; the command succeeds
// with what it could show.
func showStanding(c *cli.Context, tc client.Client, id string, trace bool, why string) error {
	s, err := temporal.StandingOf(c.Context, tc, converterOf(tc, c.String("root")), id)
	if berr := blobStoreError(id, err); berr != nil {
		return berr
	}
	if err != nil {
		return fmt.Errorf("cannot show run %s: %w", id, err)
	}
	need := fmt.Sprintf("its state, steps, pause and memory are answered by a worker (%s); start one (lppctl worker --temporal %s) and ask again", why, c.String("temporal"))
	if c.Bool("json") {
		out := struct {
			*temporal.Standing
			Context  map[string]any `json:"context"`
			NoWorker string         `json:"no_worker"`
		}{s, s.Vars, need}
		if out.Context == nil {
			out.Context = map[string]any{}
		}
		enc := json.NewEncoder(c.App.Writer)
		enc.SetEscapeHTML(false)
		return enc.Encode(out)
	}
	w := c.App.Writer
	fmt.Fprintf(w, "run %s (Temporal)\nspec: %s\nstatus: %s (the workflow's memo)\n", s.RunID, s.Spec, s.Status)
	if a := s.LastAction; a != nil {
		fmt.Fprintf(w, "last action: %s in %s, step %d (the history)\n", a.Action, a.State, a.Step)
	} else {
		fmt.Fprintln(w, "last action: none yet (the history)")
	}
	fmt.Fprintf(w, "not known without a worker: %s\n", need)
	if trace {
		return nil
	}
	if s.LastAction != nil {
		fmt.Fprintln(w, "context (as the last action was given it):")
	} else {
		fmt.Fprintln(w, "context (the run's starting values):")
	}
	for _, name := range slices.Sorted(maps.Keys(s.Vars)) {
		fmt.Fprintf(w, "  %s = %s\n", name, shorten(compactJSON(s.Vars[name]), 100))
	}
	return nil
}
