package actions

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/actions/llm"
	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

// project is a temporary project root for the general actions: the repo's
// gateway policy, and files written by the test.
type project struct {
	t     testing.TB
	root  string
	audit strings.Builder
	llm   strings.Builder
	out   strings.Builder
}

func newProject(t testing.TB, files map[string]string) *project {
	t.Helper()
	p := &project{t: t, root: t.TempDir()}
	repo, _ := filepath.Abs("..")
	policy, err := os.ReadFile(filepath.Join(repo, "config", "tools_config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p.write("config/tools_config.yaml", string(policy))
	for name, text := range files {
		p.write(name, text)
	}
	return p
}

func (p *project) write(name, text string) {
	p.t.Helper()
	path := filepath.Join(p.root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// deps returns the actions' dependencies for a spec in the folder specDir
// (root-relative); demo, when not "", is the scripted model's file there.
func (p *project) deps(specDir, demo string) *Deps {
	p.t.Helper()
	d := &Deps{Root: p.root, SpecDir: filepath.Join(p.root, specDir), Audit: &p.audit, LLMLog: &p.llm, Out: &p.out,
		Getenv: func(string) string { return "" }}
	if demo != "" {
		s, err := llm.LoadScript(filepath.Join(p.root, specDir, demo))
		if err != nil {
			p.t.Fatal(err)
		}
		d.Model = s
	}
	return d
}

// check validates the spec file name (root-relative) as lppctl validate
// does, general actions included, and returns the spec, its registry and
// the diagnostics.
func (p *project) check(name string, d *Deps) (*mspec.Spec, *machine.Registry, mspec.Diagnostics) {
	p.t.Helper()
	reg := machine.NewBuiltinRegistry()
	if err := Register(reg, d); err != nil {
		p.t.Fatal(err)
	}
	path := filepath.Join(p.root, filepath.FromSlash(name))
	src, err := os.ReadFile(path)
	if err != nil {
		p.t.Fatal(err)
	}
	spec, diags := validate.Check(path, src, reg, validate.WithRoot(p.root))
	if spec != nil {
		diags = append(diags, CheckSpec(spec, reg, CheckOptions{Root: p.root})...)
		diags.Sort()
	}
	return spec, reg, diags
}

// run validates and runs the spec file name to its end.
func (p *project) run(name string, d *Deps, vars map[string]any, opts ...machine.RunOption) (*machine.Run, error) {
	p.t.Helper()
	spec, reg, diags := p.check(name, d)
	if diags.HasErrors() {
		p.t.Fatalf("%s is invalid:\n%s", name, diags.PrettyAll(spec.Source))
	}
	m, err := machine.Compile(spec, reg)
	if err != nil {
		p.t.Fatal(err)
	}
	r, err := m.NewRun(vars, append([]machine.RunOption{machine.WithRunID("run1")}, opts...)...)
	if err != nil {
		p.t.Fatal(err)
	}
	err = r.Run(context.Background())
	d.Close()
	return r, err
}

// notes returns every note of a run's steps, one per line.
func notes(recs []*machine.Record) string {
	var b strings.Builder
	for _, r := range recs {
		for _, n := range r.Notes {
			b.WriteString(n.String() + "\n")
		}
	}
	return b.String()
}

// recorder collects a run's records.
type recorder struct{ recs []*machine.Record }

func (r *recorder) OnStep(_ context.Context, rec *machine.Record) error {
	r.recs = append(r.recs, rec)
	return nil
}
