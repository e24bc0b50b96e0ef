package lpp

import (
	"testing"

	"github.com/lppctl/lppctl/machine/check"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// RemapReport moves every position of a check of the translated spec into
// the blueprint, at the place its spec line comes from; a report with a
// position no line maps is kept whole in the translated spec, and the
// report given is never changed.
func TestRemapReportMovesACheckIntoTheBlueprint(t *testing.T) {
	bp, err := Load("../testdata/lpp/ticket.json")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Translate(bp, nil)
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := tr.Spec()
	done := spec.State("done")
	req := done.FinalRequires[0].Pos
	report := func(stepLine int) *check.CheckReport {
		return &check.CheckReport{File: tr.SpecFile(), Properties: []check.PropertyResult{{
			Property: check.PropFinalRequires, Verdict: check.Fail, Pos: req,
			Trace: &check.Trace{Steps: []check.TraceStep{{From: "idle", To: "done", Pos: mspec.Pos{Line: stepLine, Col: 9}}, {From: "done"}}},
		}}, Dead: []check.DeadTransition{{State: "idle", Pos: done.Pos}}}
	}
	r := report(done.Pos.Line)
	got := tr.RemapReport(r)
	output := bp.Terminal("done").Outputs[0].Pos
	if got.File != bp.File || got.Properties[0].Pos != output || got.Properties[0].Trace.Steps[0].Pos != bp.Terminal("done").Pos ||
		got.Properties[0].Trace.Steps[1].Pos.IsValid() || got.Dead[0].Pos != bp.Terminal("done").Pos {
		t.Errorf("remapped: file %s, property at %v, steps %+v, dead %+v; want %s, %v, the terminal at %v", got.File, got.Properties[0].Pos,
			got.Properties[0].Trace.Steps, got.Dead, bp.File, output, bp.Terminal("done").Pos)
	}
	if r.File != tr.SpecFile() || r.Properties[0].Pos != req || r.Properties[0].Trace.Steps[0].Pos.Line != done.Pos.Line {
		t.Errorf("the report given was changed: %+v", r)
	}
	r = report(1_000_000)
	if got := tr.RemapReport(r); got != r {
		t.Errorf("a position beyond the spec was moved: %+v", got)
	}
	other := &check.CheckReport{File: "other.yaml"}
	if got := tr.RemapReport(other); got != other {
		t.Errorf("a report of another file was moved: %+v", got)
	}
}
