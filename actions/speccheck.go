package actions

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/check/report"
	"github.com/lppctl/lppctl/machine/validate"
)

// Bounds of spec.check's exploration.
const (
	specCheckMaxStates = 200_000
	specCheckTimeout   = 30 * time.Second
)

// specCheck is spec.check: it reads a spec through the gateway (as
// spec.validate does), decodes and compiles it, and model-checks it as
// lppctl check does (machine.ModelCheck: no deadlock, every state reachable,
// termination, invariants, final_requires, bounds, evaluation), writing
// whether every property held and the report: one line per property and,
// under each failure, its position and shortest counterexample. A spec that
// does not decode or compile is a failed check whose report is its
// diagnostics. Files the spec names (scripts, prompts) need not exist yet:
// the check explores the machine, not its actions.
func (d *Deps) specCheck(ctx context.Context, c *machine.Call) error {
	path, reg, root, src, failure, err := d.readSpecParam(ctx, c, "spec.check", "check")
	if err != nil {
		return err
	}
	passed, report := false, failure
	if failure == "" {
		passed, report = modelCheckSource(ctx, reg, root, path, src, cmp0(c.Int("max_states"), specCheckMaxStates))
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	c.Notef("spec %s: %s", path, map[bool]string{true: "every property holds", false: "the check fails"}[passed])
	return setNamedVars(c, map[string]any{"ok": passed, "report": report})
}

// modelCheckSource decodes, compiles and model-checks the spec text src
// found at path (relative to root). An L++ blueprint is checked as the spec
// it translates into (its terminal contracts as final_requires), every
// position of the report in the JSON (decodeSource).
func modelCheckSource(ctx context.Context, reg *machine.Registry, root, path string, src []byte, maxStates int) (bool, string) {
	dir := filepath.Join(root, filepath.Dir(filepath.FromSlash(path)))
	s := decodeSource(reg, root, path, src, validate.WithRoot(root), validate.WithSpecDir(dir))
	if s.mappingErr != "" {
		return false, s.mappingErr
	}
	if s.spec == nil || s.diags.HasErrors() {
		return false, s.diags.Errors().PrettyAll(src)
	}
	m, err := machine.Compile(s.spec, reg)
	if err != nil {
		return false, fmt.Sprintf("%s: cannot compile: %v", path, err)
	}
	cctx, cancel := context.WithTimeout(ctx, specCheckTimeout)
	defer cancel()
	r := s.remapReport(check.ModelCheck(cctx, m, check.CheckOptions{MaxStates: maxStates}))
	text := strings.TrimRight(report.Text(r, report.Options{NoTimes: true}), "\n")
	if r.Stopped != "" {
		text += fmt.Sprintf("\n(the check stopped early: %s; its UNKNOWN verdicts are not failures)", r.Stopped)
	}
	return r.Passed(), text
}
