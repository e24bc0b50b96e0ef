package actions

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/lppctl/lppctl/gateway"
	"github.com/lppctl/lppctl/machine"
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
	path, ok := c.Param("path").(string)
	if !ok {
		return fmt.Errorf("path of spec.check must give a string, not %s", describe(c.Param("path")))
	}
	reg := d.reg()
	if reg == nil {
		return errors.New("cannot check a spec: the actions are not in a registry (Register was not called)")
	}
	gw, err := d.gateway()
	if err != nil {
		return err
	}
	res := gw.Call(ctx, gateway.ToolCLI, map[string]any{"tool_name": "read_file", "params": map[string]any{"path": path}})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	passed, report := false, res.Text
	if res.Decision == gateway.DecisionAllow {
		src := res.Text
		if src == gateway.NoOutput {
			src = ""
		}
		if strings.Contains(src, "\n[TRUNCATED: showing the first ") {
			report = fmt.Sprintf("%s is too large to check: read_file shows only part of it", path)
		} else {
			passed, report = modelCheckSource(ctx, reg, gw.Root(), path, []byte(src), cmp0(c.Int("max_states"), specCheckMaxStates))
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	c.Notef("spec %s: %s", path, map[bool]string{true: "every property holds", false: "the check fails"}[passed])
	for _, w := range []struct {
		param string
		value any
	}{{"ok", passed}, {"report", report}} {
		if name := c.String(w.param); name != "" {
			if err := c.SetVar(name, w.value); err != nil {
				return err
			}
		}
	}
	return nil
}

// modelCheckSource decodes, compiles and model-checks the spec text src
// found at path (relative to root). An L++ blueprint is checked as the spec
// it translates into (its terminal contracts as final_requires), every
// position of the report in the JSON (decodeSource).
func modelCheckSource(ctx context.Context, reg *machine.Registry, root, path string, src []byte, maxStates int) (bool, string) {
	dir := filepath.Join(root, filepath.Dir(filepath.FromSlash(path)))
	s := decodeSource(reg, root, path, src, machine.WithRoot(root), machine.WithSpecDir(dir))
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
	r := s.remapReport(machine.ModelCheck(cctx, m, machine.CheckOptions{MaxStates: maxStates}))
	report := strings.TrimRight(r.Format(machine.FormatOptions{NoTimes: true}), "\n")
	if r.Stopped != "" {
		report += fmt.Sprintf("\n(the check stopped early: %s; its UNKNOWN verdicts are not failures)", r.Stopped)
	}
	return r.Passed(), report
}
