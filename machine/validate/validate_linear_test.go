package validate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine"
)

// brokenStates is a spec of n states, each with a misspelt key, a
// transition to an undefined state and a guard naming an undefined
// variable of the wrong type.
func brokenStates(n int) []byte {
	var b strings.Builder
	b.WriteString("lpp: 1\nname: big\ncontext:\n  n: {type: int, default: 0}\ninitial: s0\nstates:\n")
	for i := 0; i < n; i++ {
		key := "do"
		if i%3 == 0 {
			key = "doo"
		}
		fmt.Fprintf(&b, "  s%d:\n    %s: nope%d\n    next: [{to: x%d, when: m%d < \"3\"}]\n", i, key, i, i, i)
	}
	fmt.Fprintf(&b, "  s%d: {final: true}\n", n)
	return []byte(b.String())
}

// TestValidationIsLinearInBrokenStates: validating a spec with k times more
// broken states costs about k times more, not k² ("did you mean" over every
// state for every error, locating each parse error by splitting the states
// again, a list used as a set). Measured in allocations, which are
// deterministic, not in time.
func TestValidationIsLinearInBrokenStates(t *testing.T) {
	if testing.Short() {
		t.Skip("validates 4,000 broken states")
	}
	allocs := func(n int) float64 {
		src := brokenStates(n)
		return testing.AllocsPerRun(1, func() {
			_, diags := Check("big.yaml", src, machine.NewBuiltinRegistry())
			if !diags.HasErrors() {
				t.Fatal("no errors")
			}
		})
	}
	small, big := allocs(1000), allocs(4000)
	ratio := big / small
	t.Logf("allocations: 1,000 states %.0f, 4,000 states %.0f (x%.1f)", small, big, ratio)
	if ratio > 6 {
		t.Errorf("4x the broken states cost %.1fx the allocations: validation is not linear", ratio)
	}
}
