package actions

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/lppctl/lppctl/gateway"
	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

// specValidate is spec.validate: it reads a spec through the gateway (so the
// path obeys the gateway's rules: inside the project root, not hidden, and
// the read is audited), validates it as lppctl validate does, and writes
// whether it is valid, its error count and its diagnostics. A spec that
// cannot be read counts as one error, the gateway's message its report.
func (d *Deps) specValidate(ctx context.Context, c *machine.Call) error {
	path, reg, root, src, failure, err := d.readSpecParam(ctx, c, "spec.validate", "validate")
	if err != nil {
		return err
	}
	valid, count, report := false, 1, failure
	if failure == "" {
		valid, count, report = checkSource(reg, root, path, src)
		if valid && c.Bool("check") {
			valid, count, report = checkedSource(ctx, reg, root, path, src, c.Int("max_states"), report)
		}
	}
	c.Notef("spec %s: %s", path, map[bool]string{true: "valid", false: fmt.Sprintf("%d error(s)", count)}[valid])
	return setNamedVars(c, map[string]any{"ok": valid, "errors": count, "report": report})
}

// readSpecParam reads the spec (or blueprint) the action's path parameter
// names through the gateway, so the path obeys the gateway's rules (inside
// the project root, not hidden, the read audited). failure is why it could
// not be read (the gateway's message, or a file too large to read whole),
// "" when src holds it; err is for what stops the action itself.
func (d *Deps) readSpecParam(ctx context.Context, c *machine.Call, action, verb string) (path string, reg *machine.Registry, root string, src []byte, failure string, err error) {
	path, ok := c.Param("path").(string)
	if !ok {
		return "", nil, "", nil, "", fmt.Errorf("path of %s must give a string, not %s", action, describe(c.Param("path")))
	}
	if reg = d.reg(); reg == nil {
		return "", nil, "", nil, "", fmt.Errorf("cannot %s a spec: the actions are not in a registry (Register was not called)", verb)
	}
	gw, err := d.OpenGateway()
	if err != nil {
		return "", nil, "", nil, "", err
	}
	res := gw.Call(ctx, gateway.ToolCLI, map[string]any{"tool_name": "read_file", "params": map[string]any{"path": path}})
	if ctx.Err() != nil {
		return "", nil, "", nil, "", ctx.Err()
	}
	if res.Decision != gateway.DecisionAllow {
		return path, reg, gw.Root(), nil, res.Text, nil
	}
	text := res.Text
	if text == gateway.NoOutput {
		text = ""
	}
	if strings.Contains(text, "\n[TRUNCATED: showing the first ") {
		return path, reg, gw.Root(), nil, fmt.Sprintf("%s is too large to %s: read_file shows only part of it", path, verb), nil
	}
	return path, reg, gw.Root(), []byte(text), "", nil
}

// setNamedVars writes each value into the variable its parameter names
// (parameters left out are skipped), in a fixed order.
func setNamedVars(c *machine.Call, values map[string]any) error {
	for _, param := range sortedKeys(values) {
		if name := c.String(param); name != "" {
			if err := c.SetVar(name, values[param]); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkSource validates the spec text src found at path (relative to root)
// as lppctl validate does, general actions included. An L++ blueprint is
// validated as the spec it translates into, its diagnostics in the JSON
// (decodeSource).
func checkSource(reg *machine.Registry, root, path string, src []byte) (valid bool, errs int, report string) {
	dir := filepath.Join(root, filepath.Dir(filepath.FromSlash(path)))
	s := decodeSource(reg, root, path, src, validate.WithRoot(root), validate.WithSpecDir(dir))
	if s.mappingErr != "" {
		return false, 1, s.mappingErr
	}
	diags := s.diags
	if s.spec != nil && (s.tr == nil || !diags.HasErrors()) {
		diags = append(diags, s.remap(CheckSpec(s.spec, reg, CheckOptions{Root: root, SpecDir: dir}))...)
		diags.Sort()
	}
	errs = len(diags.Errors())
	if len(diags) == 0 {
		return true, 0, path + ": ok"
	}
	return errs == 0, errs, diags.PrettyAll(src)
}

// checkedSource is spec.validate's check: true: the valid spec src is
// model-checked as spec.check does; it stays valid when no property fails,
// else each failure counts as an error and the report is the check's.
func checkedSource(ctx context.Context, reg *machine.Registry, root, path string, src []byte, maxStates int, validReport string) (valid bool, errs int, report string) {
	passed, text := modelCheckSource(ctx, reg, root, path, src, maxStates)
	if passed {
		return true, 0, strings.TrimRight(validReport, "\n") + "\n" + text
	}
	return false, max(strings.Count(text, "\n  FAIL "), 1), text
}

// reg returns the registry the actions were registered in.
func (d *Deps) reg() *machine.Registry {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.registry
}

// specRun is spec.run: it runs the child spec as a machine of its own, with
// its own actions (whose files are relative to the child's folder), journaled
// under this run's directory (children/STATE-SEQ), so that when this action
// runs again after a crash the child resumes where it stopped. The child's
// pause pauses this run; answering it on resume goes to the child.
func (d *Deps) specRun(ctx context.Context, c *machine.Call) error {
	name := c.String("spec")
	path, tried, err := mspec.LocateFile(name, d.SpecDir, d.RootDir())
	if err != nil {
		return fmt.Errorf("cannot run child spec: %w", err)
	}
	if path == "" {
		return fmt.Errorf("cannot run child spec %q: not found (looked for %s)", name, strings.Join(tried, ", "))
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("cannot run child spec %s: %w", name, err)
	}
	chain := append(append([]string(nil), d.chain...), abs)
	if max := c.Int("max_depth"); len(chain) > max {
		return fmt.Errorf("cannot run child spec %s: it would be nested %d deep, and max_depth is %d (%s); a spec that runs itself through others never ends", name, len(chain), max, stackNames(chain))
	}
	src, err := readNamed(d.hidePolicy(), name, path, d.SpecDir, d.RootDir())
	if err != nil {
		return fmt.Errorf("cannot run child spec %s: %w", name, err)
	}
	if !mspec.LooksLikeSpec(src) {
		return fmt.Errorf("cannot run child spec %s: %s", name, notASpec)
	}
	id := fmt.Sprintf("%s-%d", c.State, c.Seq+1)
	runDir := ""
	if d.RunDir != "" {
		runDir = filepath.Join(d.RunDir, childrenDir, id)
	}
	cd := d.child(abs, runDir, c.RunID+"/"+id, chain)
	defer cd.Close()
	creg := machine.NewBuiltinRegistry()
	if err := Register(creg, cd, d.actionSets()...); err != nil {
		return err
	}
	spec, diags := validate.Check(path, src, creg, validate.WithRoot(d.RootDir()))
	if spec != nil {
		diags = append(diags, CheckSpec(spec, creg, CheckOptions{Root: d.RootDir()})...)
	}
	if diags.HasErrors() {
		return fmt.Errorf("cannot run child spec %s: it is invalid:\n%s", name, diags.Errors().PrettyAll(src))
	}
	for _, p := range machine.FileParamCandidates(spec, creg, d.RootDir()) {
		if a, err := filepath.Abs(p); err == nil {
			cd.Protected = append(cd.Protected, a)
		}
	}
	m, err := machine.Compile(spec, creg)
	if err != nil {
		return fmt.Errorf("cannot run child spec %s: %w", name, err)
	}
	in, err := evalMap(c, "input")
	if err != nil {
		return err
	}
	vars := make(map[string]any, len(in))
	for k, v := range in {
		cv := spec.Var(k)
		if cv == nil {
			return fmt.Errorf("input.%s of spec.run: child spec %s has no context variable %q", k, name, k)
		}
		if vars[k], err = cv.Type.Coerce(mspec.NormalizeJSON(v)); err != nil {
			return fmt.Errorf("input.%s of spec.run: %w", k, err)
		}
	}
	output, err := stringMap(c, "output")
	if err != nil {
		return err
	}
	ch, err := startChild(m, spec, src, abs, runDir, cd.RunID, vars, c.Input)
	if err != nil {
		return fmt.Errorf("cannot run child spec %s: %w", name, err)
	}
	runErr := ch.run.Run(ctx)
	if errors.Is(runErr, machine.ErrFinished) {
		runErr = nil
	}
	if err := ch.finish(runErr); err != nil && runErr == nil {
		runErr = err
	}
	r := ch.run
	where := ""
	if runDir != "" {
		where = " (journal in " + runDir + ")"
	}
	if p, ok := machine.AsPause(runErr); ok {
		prompt := strings.ReplaceAll(p.Prompt, cd.RunID, c.RunID)
		return &machine.PauseError{Kind: p.Kind, Prompt: fmt.Sprintf("child spec %s, in state %s: %s", name, p.State, prompt), Options: p.Options}
	}
	if runErr != nil {
		if ctx.Err() != nil {
			return runErr
		}
		return fmt.Errorf("child spec %s failed in state %s after %d step(s)%s: %w", name, r.State(), r.Seq(), where, runErr)
	}
	for _, pv := range sortedKeys(output) {
		if err := c.SetVar(pv, r.Var(output[pv])); err != nil {
			return fmt.Errorf("output.%s of spec.run (child variable %s): %w", pv, output[pv], err)
		}
	}
	c.Notef("child spec %s completed in state %s after %d step(s)%s", name, r.State(), r.Seq(), where)
	return nil
}

// child returns the dependencies of a child machine's actions: this run's
// configuration, logs and terminal, with the child's folder for its files,
// its own run id and directory, and its own gateway (protecting its spec and
// run directory too), sharing the model when one is configured.
func (d *Deps) child(spec, runDir, runID string, chain []string) *Deps {
	cd := &Deps{
		LLM: d.LLM, LLMSource: d.LLMSource, Root: d.Root, SkillDir: d.SkillDir, Policy: d.Policy, ClaudeMD: d.ClaudeMD,
		SkillsLibrary: d.SkillsLibrary, SpecDir: filepath.Dir(spec),
		Protected: append(append([]string(nil), d.Protected...), spec),
		Yes:       d.Yes, Feedback: d.Feedback, Interactive: d.Interactive, In: d.In, Out: d.Out, Editor: d.Editor,
		RunID: runID, RunDir: runDir, Audit: d.Audit, LLMLog: d.LLMLog, Prompts: d.prompts(),
		Getenv: d.Getenv, Now: d.Now, HTTPClient: d.HTTPClient, Retry: d.Retry, Model: d.Model, Gateway: d.Gateway,
		GatewayOptions: d.GatewayOptions, Unconfined: d.Unconfined, chain: chain,
	}
	if runDir != "" {
		cd.Protected = append(cd.Protected, runDir)
	}
	d.mu.Lock()
	if d.model != nil && !d.demo { // a configured model serves the child too; a demo script is the child's own
		cd.model = d.model
	}
	cd.announced = d.announced && !d.demo
	d.mu.Unlock()
	return cd
}

// notASpec says why a file named as a child spec is refused; it quotes none
// of the file's content (it may be a key or a token).
const notASpec = "it is not a spec (a YAML mapping with a states key); its content is not shown"
