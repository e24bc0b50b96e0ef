package check

import (
	"fmt"
	"slices"
	"strings"
)

// budgetLoop describes the cycle of states a path that spent the whole
// budget goes round at its end, and the variables that change on every
// pass: a loop that returns to the same values is a trap (termination), one
// that changes them (a counter stepped with no bound) never returns to a
// pair, and only the budget stops it. The check cannot tell it from a loop
// a larger budget would end, so it names the loop as a possible livelock.
// "" when the path's end repeats no cycle twice.
func budgetLoop(tr *Trace) string {
	cycle, changed, ok := budgetCycle(tr)
	if !ok {
		return ""
	}
	what := ""
	if len(changed) > 0 {
		what = fmt.Sprintf(", %s changing on every pass", strings.Join(changed, ", "))
	}
	return fmt.Sprintf("; it goes round %s%s: a livelock, unless a larger budget lets the loop end", strings.Join(cycle, " → "), what)
}

// budgetCycle returns the cycle of states the end of tr goes round (its
// first state repeated last) and the variables its sets change, sorted.
func budgetCycle(tr *Trace) (cycle, changed []string, ok bool) {
	if tr == nil || len(tr.Steps) == 0 {
		return nil, nil, false
	}
	seq := []string{tr.Steps[0].From}
	for _, s := range tr.Steps {
		if s.To == "" {
			break
		}
		seq = append(seq, s.To)
	}
	n := len(seq)
	for l := 1; 2*l < n; l++ {
		if !slices.Equal(seq[n-1-2*l:n-1-l], seq[n-1-l:n-1]) || seq[n-1-l] != seq[n-1] {
			continue
		}
		for _, s := range tr.Steps[n-1-l : n-1] {
			for k := range s.Vars {
				if !slices.Contains(changed, k) {
					changed = append(changed, k)
				}
			}
		}
		slices.Sort(changed)
		return seq[n-1-l:], changed, true
	}
	return nil, nil, false
}
