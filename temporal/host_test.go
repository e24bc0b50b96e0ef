package temporal_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/lppctl/lppctl/actions"
	"github.com/lppctl/lppctl/actions/agent"
	"github.com/lppctl/lppctl/gateway"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/temporal"
)

// testHost hosts the real agent actions on a project copied into a
// temporary folder, plus the test actions of extra.
type testHost struct {
	root  string
	extra []machine.Action
	// effects: the actions' tool calls are recorded under
	// root/.lppctl/temporal/RUN_ID, as an lppctl worker records them.
	effects bool
	// dieAfter names an action whose first attempt fails after it has run
	// (its effects made), as when its worker dies before reporting.
	dieAfter string
	mu       sync.Mutex
	opens    int
	runs     map[string]int // dieAfter's executions, by attempt
}

func (h *testHost) registry(d *actions.Deps) *machine.Registry {
	reg := machine.NewBuiltinRegistry()
	if err := actions.Register(reg, d, actions.GeneralActions, agent.Actions); err != nil {
		panic(err)
	}
	for _, a := range h.extra {
		reg.MustRegister(a)
	}
	return reg
}

func (h *testHost) Catalog() *machine.Registry { return h.registry(&actions.Deps{}) }

func (h *testHost) Open(_ context.Context, run temporal.RunInfo) (*machine.Registry, func(), error) {
	h.mu.Lock()
	h.opens++
	h.mu.Unlock()
	d := h.deps(run.RunID)
	if h.effects {
		dir := filepath.Join(h.root, ".lppctl", "temporal", run.RunID)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, nil, err
		}
		d.GatewayOptions = []gateway.Option{gateway.WithEffects(testEffects{temporal.NewEffects(filepath.Join(dir, temporal.EffectsFile), run)})}
	}
	reg := h.registry(d)
	if a := reg.Lookup(h.dieAfter); a != nil {
		run0 := a.Run
		a.Run = func(ctx context.Context, c *machine.Call) error {
			err := run0(ctx, c)
			h.mu.Lock()
			if h.runs == nil {
				h.runs = map[string]int{}
			}
			h.runs[fmt.Sprint("attempt ", run.Attempt)]++
			h.mu.Unlock()
			if run.Attempt == 1 {
				return temporary{errors.New("the worker died before it reported")}
			}
			return err
		}
	}
	return reg, func() {}, nil
}

// testEffects records gateway calls in a temporal.Effects, as the lppctl
// worker's toolEffects does.
type testEffects struct{ rec *temporal.Effects }

func (t testEffects) Begin(_ context.Context, tool string, args map[string]any) (*gateway.Result, func(gateway.Result), error) {
	b, _ := json.Marshal(args)
	prev, found, done, err := t.rec.Begin(tool, b)
	if err != nil || !found {
		return nil, func(r gateway.Result) { b, _ := json.Marshal(r); _ = done(b) }, err
	}
	var res gateway.Result
	return &res, nil, json.Unmarshal(prev, &res)
}

func (h *testHost) deps(runID string) *actions.Deps {
	return &actions.Deps{
		Root: h.root, SkillDir: filepath.Join(h.root, "skills", "hello_skill"),
		SpecDir: filepath.Join(h.root, "specs"), Yes: true, RunID: runID,
		Getenv: func(k string) string {
			if k == "LPPCTL_NOW" {
				return "2025-01-02T03:04:05Z"
			}
			return ""
		},
	}
}

func (h *testHost) ModelAction(name string) bool { return strings.HasPrefix(name, "llm.") }

// repoRoot is the checkout this test runs in.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// newProject copies what the Skills Agent demo needs into a temporary
// folder, with a skills.md that has learned nothing yet.
func newProject(t *testing.T) string {
	t.Helper()
	src, dst := repoRoot(t), t.TempDir()
	for _, p := range []string{"config/tools_config.yaml", "scripts", "claude.md", "specs/skills_agent.yaml", "specs/prompts", "skills/hello_skill"} {
		copyTree(t, filepath.Join(src, p), filepath.Join(dst, p))
	}
	md := filepath.Join(dst, "skills", "hello_skill", "skills.md")
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if i := strings.Index(string(b), "\n### ["); i >= 0 { // learned entries: not pristine
		b = b[:i+1]
	}
	if err := os.WriteFile(md, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			if d.Name() == "__pycache__" {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		info, _ := d.Info()
		return os.WriteFile(target, b, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// startOf is the workflow input of a run of the spec at root/rel.
func startOf(t *testing.T, root, rel, runID string, vars map[string]any) temporal.Start {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	st := temporal.Start{RunID: runID, SpecPath: filepath.Join(root, rel), Spec: src, SpecHash: temporal.SpecHash(src)}
	if vars != nil {
		st.Vars, _ = json.Marshal(vars)
	}
	return st
}

// localRun runs the spec in this process, as `lppctl run` does, and returns
// the run.
func localRun(t *testing.T, h *testHost, rel, runID string) *machine.Run {
	t.Helper()
	spec, diags, err := spec.Load(filepath.Join(h.root, rel))
	if err != nil || diags.HasErrors() {
		t.Fatalf("load: %v %v", err, diags)
	}
	reg := h.registry(h.deps(runID))
	m, err := machine.Compile(spec, reg)
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.NewRun(nil, machine.WithRunID(runID))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Run(context.Background()); err != nil {
		t.Fatalf("local run: %v", err)
	}
	return r
}
