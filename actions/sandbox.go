package actions

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lppctl/lppctl/gateway"
	"github.com/lppctl/lppctl/internal/fsx"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/validate"
)

// Limits of spec.sandbox's copy of a folder.
const (
	sandboxMaxFiles = 500
	sandboxMaxBytes = 8 << 20
	sandboxTimeout  = 60 * time.Second
	// sandboxMaxTransitions bounds a dry run whose spec sets no lower limit.
	sandboxMaxTransitions = 500
)

// sandboxEnv is the environment a dry run's actions see through Deps.Getenv:
// the few variables a Python script needs, never a provider's key or
// endpoint, so a dry run's model is always the spec's scripted demo.
var sandboxEnv = []string{"PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "TZ"}

// specSandbox is spec.sandbox: it copies a folder of the project (a
// generated skill: its spec, scripts, prompts and demo.yaml) into a
// throw-away project root, validates the folder's spec there as lppctl
// validate does and, when run holds, runs it offline: its model is the
// folder's demo.yaml (no configured provider reaches it), its tools the
// sandbox's own gateway, confined to the sandbox root. The project is never
// written; the sandbox is removed afterwards. It writes whether the spec
// passed and a short report (positions name the project's files).
func (d *Deps) specSandbox(ctx context.Context, c *machine.Call) error {
	dir, err := stringParam(c, "dir")
	if err != nil {
		return err
	}
	specName, err := stringParam(c, "spec")
	if err != nil {
		return err
	}
	as := dir
	if c.Param("as") != nil {
		if as, err = stringParam(c, "as"); err != nil {
			return err
		}
	}
	run, err := boolParam(c, "run")
	if err != nil {
		return err
	}
	placeholders, err := boolParam(c, "placeholders")
	if err != nil {
		return err
	}
	res, err := d.sandbox(ctx, sandboxJob{
		dir: dir, spec: specName, as: as, run: run,
		placeholders: placeholders, maxTransitions: c.Int("max_transitions"),
	})
	if err != nil {
		return err
	}
	c.Notef("%s", res.summary)
	for _, w := range []struct {
		param string
		value any
	}{{"ok", res.ok}, {"report", res.report}} {
		if name := c.String(w.param); name != "" {
			if err := c.SetVar(name, w.value); err != nil {
				return err
			}
		}
	}
	return nil
}

// stringParam evaluates an expression parameter that must give a string.
func stringParam(c *machine.Call, name string) (string, error) {
	s, ok := c.Param(name).(string)
	if !ok {
		return "", fmt.Errorf("%s of spec.sandbox must give a string, not %s", name, describe(c.Param(name)))
	}
	return s, nil
}

// boolParam evaluates an optional expression parameter that must give a
// bool (false when absent).
func boolParam(c *machine.Call, name string) (bool, error) {
	v := c.Param(name)
	if v == nil {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("%s of spec.sandbox must give a bool, not %s", name, describe(v))
	}
	return b, nil
}

// sandboxJob is one spec.sandbox call: the folder dir (root-relative) is
// copied to as inside a fresh root, and the spec file spec (relative to the
// folder) is validated there, and run when run is set.
type sandboxJob struct {
	dir, spec, as  string
	run            bool
	placeholders   bool // create the missing scripts of script.run states empty
	maxTransitions int
	vars           map[string]any    // the run's start values (spec.examples), like --var
	files          map[string]string // written into the copy (relative to as) before it runs
	events         []string          // queued before the run starts, like lppctl run --event
}

// sandboxResult is what a sandbox call found.
type sandboxResult struct {
	ok      bool
	report  string         // for the model: diagnostics, the run's end, or what was not done
	summary string         // one line for the run's output
	final   map[string]any // the run's context when it ended (with run)
	// endState is the state the run ended in; runFailed holds when it ran
	// and failed (an error, an abort), not when it could not start, paused
	// or timed out.
	endState  string
	runFailed bool
	// routed is the tail of the action errors the run routed through
	// on_error (a script's stderr among them): spec.examples looks in it
	// for a script's crash.
	routed string
}

// sandbox does the job. An error means the job could not be done at all (a
// path outside the root, a folder too big); a spec that is invalid or a run
// that fails is a result, not an error.
func (d *Deps) sandbox(ctx context.Context, job sandboxJob) (sandboxResult, error) {
	dir, err := cleanRel("dir", job.dir)
	if err != nil {
		return sandboxResult{}, err
	}
	as, err := cleanRel("as", job.as)
	if err != nil {
		return sandboxResult{}, err
	}
	specRel, err := cleanRel("spec", job.spec)
	if err != nil {
		return sandboxResult{}, err
	}
	tmp, err := os.MkdirTemp("", "lppctl-sandbox-")
	if err != nil {
		return sandboxResult{}, fmt.Errorf("cannot create a sandbox: %w", err)
	}
	defer os.RemoveAll(tmp)
	root, err := os.OpenRoot(d.RootDir())
	if err != nil {
		return sandboxResult{}, fmt.Errorf("cannot open the project root: %w", err)
	}
	defer root.Close()
	if err := copyTree(root, dir, filepath.Join(tmp, filepath.FromSlash(as))); err != nil {
		return sandboxResult{}, fmt.Errorf("cannot copy %s into a sandbox: %w", dir, err)
	}
	if err := writeSandboxFiles(filepath.Join(tmp, filepath.FromSlash(as)), job.files); err != nil {
		return sandboxResult{}, err
	}
	// The sandbox gets the project's policy and its shared scripts (the
	// write_* runners), so the spec's tools behave as they would installed.
	for _, f := range []string{"config/tools_config.yaml", "scripts/_lpp_common.py", "scripts/write_file.py", "scripts/write_json.py", "scripts/write_md.py", "scripts/write_txt.py"} {
		if err := copyFile(root, f, filepath.Join(tmp, filepath.FromSlash(f))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return sandboxResult{}, fmt.Errorf("cannot copy %s into a sandbox: %w", f, err)
		}
	}
	specPath := path.Join(as, specRel)
	specAbs := filepath.Join(tmp, filepath.FromSlash(specPath))
	shown := path.Join(dir, specRel)
	// Positions and paths in the report name the project's files, not the sandbox's.
	unsandbox := strings.NewReplacer(specAbs, shown, filepath.Join(tmp, filepath.FromSlash(as))+string(filepath.Separator), dir+"/", specPath, shown, tmp, "(the sandbox)").Replace
	src, err := os.ReadFile(specAbs)
	if err != nil {
		return sandboxResult{ok: false, report: fmt.Sprintf("%s: cannot read the spec: %s", shown, fs.ErrNotExist), summary: "sandbox: no spec " + shown}, nil
	}
	out := &bytes.Buffer{}
	cd := &Deps{
		Root: tmp, SpecDir: filepath.Dir(specAbs), Protected: []string{specAbs},
		Yes: true, Out: out, In: strings.NewReader(""), Now: d.Now, Retry: d.Retry,
		Getenv: func(k string) string {
			if slices.Contains(sandboxEnv, k) {
				return os.Getenv(k)
			}
			return ""
		},
		RunID: "sandbox",
		// Every script of the copy is model-written: each runs in the OS
		// sandbox, with the copy as its only writable folder.
		GatewayOptions: []gateway.Option{gateway.WithConfinedScripts()},
		Unconfined:     d.Unconfined,
	}
	defer cd.Close()
	reg := machine.NewBuiltinRegistry()
	if err := Register(reg, cd, d.actionSets()...); err != nil {
		return sandboxResult{}, err
	}
	var stubs []string
	if job.placeholders {
		if stubs, err = writePlaceholders(tmp, specPath, src, reg); err != nil {
			return sandboxResult{}, err
		}
	}
	valid, _, report := checkSource(reg, tmp, specPath, src)
	report = unsandbox(report)
	stubNote := ""
	if len(stubs) > 0 {
		stubNote = fmt.Sprintf("\n(placeholders stood in for the scripts not written yet: %s)", strings.Join(stubs, ", "))
	}
	if !valid {
		return sandboxResult{ok: false, report: report + stubNote, summary: fmt.Sprintf("sandbox: %s is invalid", shown)}, nil
	}
	if !job.run {
		return sandboxResult{
			ok:      true,
			report:  fmt.Sprintf("%s: valid (compile-only: the spec was checked in a sandbox copy, not run; start the run with --var run_generated=true to run it)%s", shown, stubNote),
			summary: fmt.Sprintf("sandbox: %s is valid; compile-only, not run (--var run_generated=true runs it in a sandbox copy)", shown),
		}, nil
	}
	end, ok, final, st := runSandboxed(ctx, reg, cd, specPath, specAbs, src, cmp0(job.maxTransitions, sandboxMaxTransitions), job.vars, job.events)
	if ctx.Err() != nil {
		return sandboxResult{}, ctx.Err()
	}
	end = unsandbox(end)
	if !ok {
		end += "\n" + unsandbox(tail(strings.TrimSpace(out.String()), stderrTail))
	}
	return sandboxResult{ok: ok, report: end + stubNote, summary: "sandbox: " + Clip(strings.SplitN(end, "\n", 2)[0], 160), final: final, endState: st.state, runFailed: st.failed, routed: unsandbox(st.routed)}, nil
}

// sandboxEnd is where a sandboxed run ended and whether it failed there.
type sandboxEnd struct {
	state  string
	failed bool
	routed string // the action errors the run routed through on_error (a script's stderr among them)
}

// runSandboxed runs the validated spec in the sandbox, with vars as its
// start values and events queued, and says how it ended; final is its
// context at the end.
func runSandboxed(ctx context.Context, reg *machine.Registry, cd *Deps, specPath, specAbs string, src []byte, maxTransitions int, vars map[string]any, events []string) (end string, ok bool, final map[string]any, at sandboxEnd) {
	s := decodeSource(reg, cd.Root, specPath, src, validate.WithRoot(cd.Root), validate.WithSpecDir(cd.SpecDir))
	spec := s.spec
	if spec == nil || s.mappingErr != "" || s.diags.HasErrors() {
		return "the spec did not compile in the sandbox", false, nil, sandboxEnd{}
	}
	if spec.Limits.MaxTransitions == 0 || spec.Limits.MaxTransitions > maxTransitions {
		spec.Limits.MaxTransitions = maxTransitions
	}
	m, err := machine.Compile(spec, reg)
	if err != nil {
		return "the spec did not compile in the sandbox: " + err.Error(), false, nil, sandboxEnd{}
	}
	var routed []string // the action errors the run routed through on_error
	r, err := m.NewRun(vars, machine.WithRunID("sandbox"), machine.WithObserver(machine.ObserverFunc(func(_ context.Context, rec *machine.Record) error {
		if rec.Error != "" {
			routed = append(routed, rec.Error)
		}
		return nil
	})))
	if err != nil {
		return "the run could not start: " + err.Error(), false, nil, sandboxEnd{}
	}
	for _, ev := range events {
		if err := r.Send(ev); err != nil {
			return "the run could not start: " + err.Error(), false, nil, sandboxEnd{}
		}
	}
	rctx, cancel := context.WithTimeout(ctx, sandboxTimeout)
	defer cancel()
	err = r.Run(rctx)
	final = r.Vars()
	at = sandboxEnd{state: r.State(), routed: tail(strings.Join(routed, "\n"), sandboxOutputTail)}
	switch p, paused := machine.AsPause(err); {
	case err == nil:
		return fmt.Sprintf("ran in a sandbox copy with its demo.yaml: completed in state %s after %d step(s)", r.State(), r.Seq()), true, final, at
	case paused:
		return fmt.Sprintf("ran in a sandbox copy: it paused in state %s after %d step(s) (%s); a dry run cannot answer a person's question", r.State(), r.Seq(), Clip(p.Prompt, 200)), false, final, at
	case rctx.Err() != nil && ctx.Err() == nil:
		return fmt.Sprintf("ran in a sandbox copy: stopped after %s in state %s (%d steps): too slow or a loop", sandboxTimeout, r.State(), r.Seq()), false, final, at
	default:
		at.failed = true
		return fmt.Sprintf("ran in a sandbox copy: failed in state %s after %d step(s): %v", r.State(), r.Seq(), err), false, final, at
	}
}

// writePlaceholders creates, in the sandbox, an empty script for each
// script.run script the spec names that the folder does not hold, so a
// machine can be validated before its compute units are written. It returns
// their paths.
func writePlaceholders(tmp, specPath string, src []byte, reg *machine.Registry) ([]string, error) {
	spec := decodeSource(reg, tmp, specPath, src, validate.WithoutFiles()).spec // a blueprint's translation
	if spec == nil {
		return nil, nil
	}
	var made []string
	for _, st := range spec.States {
		if st.Do != "script.run" {
			continue
		}
		p := findParam(st, "script")
		if p == nil {
			continue
		}
		name, _ := p.Value.(string)
		rel, err := cleanRel("script", name)
		if err != nil || !strings.HasSuffix(rel, ".py") || slices.Contains(made, rel) {
			continue
		}
		abs := filepath.Join(tmp, filepath.FromSlash(rel))
		if _, err := os.Stat(abs); err == nil {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return nil, fmt.Errorf("cannot create a placeholder script: %w", err)
		}
		if err := os.WriteFile(abs, []byte("# placeholder: spec.sandbox validated the spec before this script was written\n"), 0o644); err != nil {
			return nil, fmt.Errorf("cannot create a placeholder script: %w", err)
		}
		made = append(made, rel)
	}
	return made, nil
}

// cleanRel checks that p is a relative path inside the root (no "..", not
// absolute) and returns it cleaned, with "/".
func cleanRel(what, p string) (string, error) {
	c, ok := fsx.CleanRel(p)
	if !ok {
		return "", fmt.Errorf("%s %q of spec.sandbox must be a path inside the project root, relative to it", what, p)
	}
	return c, nil
}

// copyTree copies the folder rel of root into dst, regular files only
// (links are not followed: os.Root refuses those leaving the root), leaving
// out hidden files and folders and __pycache__, within the sandbox's limits.
func copyTree(root *os.Root, rel, dst string) error {
	files, size := 0, int64(0)
	return fs.WalkDir(root.FS(), rel, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dst, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(p, rel), "/")))
		if e.IsDir() {
			if strings.HasPrefix(e.Name(), ".") && p != rel || e.Name() == "__pycache__" {
				return fs.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		}
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") {
			return nil // hidden files (.env, .token) stay out, like hidden folders
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		files, size = files+1, size+info.Size()
		if files > sandboxMaxFiles || size > sandboxMaxBytes {
			return fmt.Errorf("the folder holds more than %d files or %d bytes", sandboxMaxFiles, sandboxMaxBytes)
		}
		return copyFile(root, p, target)
	})
}

// copyFile copies the file rel of root to dst, creating dst's folder.
func copyFile(root *os.Root, rel, dst string) error {
	in, err := root.Open(rel)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// cmp0 is n, or def when n is not positive.
func cmp0(n, def int) int {
	if n > 0 {
		return n
	}
	return def
}
