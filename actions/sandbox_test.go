package actions

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/internal/testenv"
)

// sandboxProject writes a project root with the repository's policy and a
// skill folder gen/demo holding files.
func sandboxProject(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	policy, err := os.ReadFile(filepath.Join("..", "config", "tools_config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]string{"config/tools_config.yaml": string(policy)}
	for k, v := range files {
		all["gen/demo/"+k] = v
	}
	for p, text := range all {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const sandboxSpec = `lpp: 1
name: demo
context:
  n: {type: int, default: 0}
initial: count
states:
  count:
    do: script.run
    with: {script: skills/demo/scripts/count.py, input: {n: n}, output: {n: n}}
    next: [done]
  done: {final: true}
`

const sandboxScript = "import json, sys\nprint(json.dumps({'n': json.load(sys.stdin)['n'] + 1}))\n"

func TestSpecSandbox(t *testing.T) {
	testenv.Python(t)
	tests := []struct {
		name   string
		files  map[string]string
		job    sandboxJob
		ok     bool
		report []string // substrings of the report
	}{
		{
			name:   "a valid spec is compile-only unless run is set",
			files:  map[string]string{"demo.yaml": sandboxSpec, "scripts/count.py": sandboxScript},
			job:    sandboxJob{dir: "gen/demo", spec: "demo.yaml", as: "skills/demo"},
			ok:     true,
			report: []string{"gen/demo/demo.yaml: valid (compile-only: the spec was checked in a sandbox copy, not run; start the run with --var run_generated=true to run it)"},
		},
		{
			name:   "run runs the spec in the sandbox",
			files:  map[string]string{"demo.yaml": sandboxSpec, "scripts/count.py": sandboxScript},
			job:    sandboxJob{dir: "gen/demo", spec: "demo.yaml", as: "skills/demo", run: true},
			ok:     true,
			report: []string{"ran in a sandbox copy with its demo.yaml: completed in state done after 2 step(s)"},
		},
		{
			name:   "a script that fails fails the run, with its error",
			files:  map[string]string{"demo.yaml": sandboxSpec, "scripts/count.py": "import sys\nsys.exit('boom')\n"},
			job:    sandboxJob{dir: "gen/demo", spec: "demo.yaml", as: "skills/demo", run: true},
			ok:     false,
			report: []string{"ran in a sandbox copy: failed in state count after 0 step(s): ", "boom"},
		},
		{
			name:   "a missing script is an error without placeholders",
			files:  map[string]string{"demo.yaml": sandboxSpec},
			job:    sandboxJob{dir: "gen/demo", spec: "demo.yaml", as: "skills/demo"},
			ok:     false,
			report: []string{`gen/demo/demo.yaml:9:20: error: parameter "script" of action "script.run": script "skills/demo/scripts/count.py" not found in the project root (the sandbox)`},
		},
		{
			name:   "placeholders stand in for scripts not written yet",
			files:  map[string]string{"demo.yaml": sandboxSpec},
			job:    sandboxJob{dir: "gen/demo", spec: "demo.yaml", as: "skills/demo", placeholders: true},
			ok:     true,
			report: []string{"(placeholders stood in for the scripts not written yet: skills/demo/scripts/count.py)"},
		},
		{
			name:   "a deadlock is reported with the project's path",
			files:  map[string]string{"demo.yaml": strings.Replace(sandboxSpec, "    next: [done]\n", "", 1), "scripts/count.py": sandboxScript},
			job:    sandboxJob{dir: "gen/demo", spec: "demo.yaml", as: "skills/demo"},
			ok:     false,
			report: []string{`gen/demo/demo.yaml:7:3: error: state "count" has no way out`},
		},
		{
			name:   "a missing spec is a result, not an error",
			files:  map[string]string{"scripts/count.py": sandboxScript},
			job:    sandboxJob{dir: "gen/demo", spec: "demo.yaml", as: "skills/demo"},
			ok:     false,
			report: []string{"gen/demo/demo.yaml: cannot read the spec: file does not exist"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := sandboxProject(t, tt.files)
			d := &Deps{Root: root}
			res, err := d.sandbox(context.Background(), tt.job)
			if err != nil {
				t.Fatal(err)
			}
			if res.ok != tt.ok {
				t.Errorf("ok = %v, want %v", res.ok, tt.ok)
			}
			for _, want := range tt.report {
				if !strings.Contains(res.report, want) {
					t.Errorf("the report lacks %q:\n%s", want, res.report)
				}
			}
			if strings.Contains(res.report, os.TempDir()) {
				t.Errorf("the report names the sandbox:\n%s", res.report)
			}
			// The project is never written: no skills/ appears in it.
			if _, err := os.Stat(filepath.Join(root, "skills")); err == nil {
				t.Error("the sandbox wrote into the project")
			}
		})
	}
}

func TestSpecSandboxRefusesPathsOutsideTheRoot(t *testing.T) {
	root := sandboxProject(t, map[string]string{"demo.yaml": sandboxSpec})
	d := &Deps{Root: root}
	for _, tt := range []struct {
		job  sandboxJob
		want string
	}{
		{sandboxJob{dir: "../x", spec: "demo.yaml", as: "skills/demo"}, `dir "../x" of spec.sandbox must be a path inside the project root, relative to it`},
		{sandboxJob{dir: "/etc", spec: "demo.yaml", as: "skills/demo"}, `dir "/etc" of spec.sandbox must be a path inside the project root, relative to it`},
		{sandboxJob{dir: "gen/demo", spec: "../../x.yaml", as: "skills/demo"}, `spec "../../x.yaml" of spec.sandbox must be a path inside the project root, relative to it`},
		{sandboxJob{dir: "gen/demo", spec: "demo.yaml", as: "../out"}, `as "../out" of spec.sandbox must be a path inside the project root, relative to it`},
	} {
		_, err := d.sandbox(context.Background(), tt.job)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%+v: got %v, want %q", tt.job, err, tt.want)
		}
	}
}

// TestSandboxCopySkipsHiddenFilesAndFolders: the copy leaves out every
// hidden entry, files as well as folders (a .env must never reach a run).
func TestSandboxCopySkipsHiddenFilesAndFolders(t *testing.T) {
	root := sandboxProject(t, map[string]string{
		"demo.yaml": sandboxSpec, ".env": "OPENAI_API_KEY=sk-secret\n", ".git/config": "x",
		"scripts/.token": "t", "scripts/count.py": sandboxScript,
	})
	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	dst := t.TempDir()
	if err := copyTree(r, "gen/demo", dst); err != nil {
		t.Fatal(err)
	}
	var got []string
	filepath.WalkDir(dst, func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			rel, _ := filepath.Rel(dst, p)
			got = append(got, filepath.ToSlash(rel))
		}
		return nil
	})
	if strings.Join(got, ",") != "demo.yaml,scripts/count.py" {
		t.Errorf("copied %v, want demo.yaml and scripts/count.py only", got)
	}
}
