package machine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// chainSpec is a spec of n states s1 → s2 → ... → sn, the last one final.
func chainSpec(n int, limits string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "lpp: 1\nname: chain\n%sinitial: s1\nstates:\n", limits)
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "  s%d: {do: noop, next: s%d}\n", i, i+1)
	}
	fmt.Fprintf(&b, "  s%d: {final: true}\n", n)
	return b.String()
}

func TestRunBudgetCountsTransitionsIntoTheFinalStateOnly(t *testing.T) {
	for _, tt := range []struct {
		name    string
		states  int
		limits  string
		opts    []machine.RunOption
		wantErr string // "" when the run completes
		steps   int
	}{
		{name: "a path of exactly the budget completes", states: 3, limits: "limits: {max_transitions: 2}\n", steps: 3},
		{name: "one transition more stops in the non-final state", states: 4, limits: "limits: {max_transitions: 2}\n", steps: 2,
			wantErr: `transition budget exhausted: the run made 2 transitions (its budget) and stands in state "s3", which is not final; its last states: s2 → s3 (raise limits.max_transitions or --max-transitions if the run is meant to go on this long)`},
		{name: "the option overrides the spec", states: 3, limits: "limits: {max_transitions: 1}\n", opts: []machine.RunOption{machine.WithMaxTransitions(2)}, steps: 3},
		{name: "a chain of the default budget completes", states: mspec.DefaultMaxTransitions + 1, steps: mspec.DefaultMaxTransitions + 1},
		{name: "a chain one longer does not", states: mspec.DefaultMaxTransitions + 2, steps: mspec.DefaultMaxTransitions,
			wantErr: fmt.Sprintf(`transition budget exhausted: the run made %d transitions (its budget) and stands in state "s%d", which is not final`, mspec.DefaultMaxTransitions, mspec.DefaultMaxTransitions+1)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := compileSpec(t, chainSpec(tt.states, tt.limits), nil)
			r, err := m.NewRun(nil, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			err = r.Run(context.Background())
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("err = %v, want the run to complete", err)
			case tt.wantErr == "" && r.Status() != machine.StatusCompleted:
				t.Fatalf("status = %s, want completed", r.Status())
			case tt.wantErr != "" && (!errors.Is(err, machine.ErrBudget) || !strings.HasPrefix(err.Error(), tt.wantErr)):
				t.Fatalf("err =\n%v\nwant it to start with\n%s", err, tt.wantErr)
			}
			if r.Seq() != tt.steps {
				t.Errorf("steps = %d, want %d", r.Seq(), tt.steps)
			}
		})
	}
}
