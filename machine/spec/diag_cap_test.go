package spec

import (
	"fmt"
	"testing"
)

// TestCapAlikeKeepsTenOfAKindAndCountsTheRest: diagnostics that differ only
// in names and numbers are one kind; past ten, one more says how many it
// stands for, and the counts include them all.
func TestCapAlikeKeepsTenOfAKindAndCountsTheRest(t *testing.T) {
	var ds Diagnostics
	for i := 1; i <= 25; i++ {
		ds = append(ds, Diagnostic{Pos: Pos{Line: i, Col: 3}, Msg: fmt.Sprintf("state \"s%d\" must be a mapping, not an alias", i)})
		if i%5 == 0 {
			ds = append(ds, Diagnostic{Severity: SevWarning, Pos: Pos{Line: i, Col: 9}, Msg: fmt.Sprintf("cycle s%d → s%d is not bounded", i, i)})
		}
	}
	ds = append(ds, Diagnostic{Pos: Pos{Line: 30, Col: 1}, Msg: "no final state"})
	got := ds.CapAlike()
	if len(got) != 10+1+5+1 {
		t.Fatalf("kept %d diagnostics, want 17:\n%v", len(got), got)
	}
	var more []string
	for _, d := range got {
		if d.More > 0 {
			more = append(more, d.Msg)
		}
	}
	if want := `state "s11" must be a mapping, not an alias (and 14 more like it, to line 25)`; len(more) != 1 || more[0] != want {
		t.Errorf("the diagnostics that stand for more: %q, want [%q]", more, want)
	}
	if e, w := got.Count(SevError), got.Count(SevWarning); e != 26 || w != 5 {
		t.Errorf("counts %d errors, %d warnings; want 26, 5", e, w)
	}
	if again := got.CapAlike(); len(again) != len(got) || again.Count(SevError) != 26 {
		t.Errorf("capping twice changes the report: %d diagnostics, %d errors", len(again), again.Count(SevError))
	}
}
