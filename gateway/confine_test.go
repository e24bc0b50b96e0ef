package gateway

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	osbox "github.com/lppctl/lppctl/gateway/sandbox"
)

// peek reads the canary outside the root and writes into the project.
const peek = "import os\nroot = os.getcwd()\ntry:\n    print(open(os.path.join(root, '..', 'outside', 'canary.txt')).read())\nexcept OSError as e:\n    print('read refused:', type(e).__name__)\ntry:\n    open(os.path.join(root, 'docs', 'readme.md'), 'a').write('pwned')\n    print('wrote the project')\nexcept OSError as e:\n    print('write refused:', type(e).__name__)\n"

func TestGeneratedSkillScriptsRunInTheSandbox(t *testing.T) {
	needPython(t)
	if err := osbox.Available(); err != nil {
		if os.Getenv("LPPCTL_REQUIRE_SANDBOX") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	sb := newSandbox(t)
	sb.write(t, "skills/gen/scripts/peek.py", peek)
	sb.write(t, "skills/gen/"+GeneratedMarker, "")
	sb.write(t, "skills/hello/scripts/peek.py", peek)

	// A generated skill's script is confined...
	res := sb.run(map[string]any{"script_name": "skills/gen/scripts/peek.py"})
	require.Equal(t, DecisionAllow, res.Decision, res.Text)
	assert.Equal(t, "read refused: PermissionError\nwrite refused: PermissionError", res.Text)
	b, err := os.ReadFile(filepath.Join(sb.root, "docs", "readme.md"))
	require.NoError(t, err)
	assert.Equal(t, "# Readme\nhello\n", string(b))

	// ... an author's skill is not (safe_py_runner.sandbox: generated).
	res = sb.run(map[string]any{"script_name": "skills/hello/scripts/peek.py"})
	assert.Contains(t, res.Text, sb.canary)
}

func TestConfinedScriptsAreRefusedWithoutTheSandbox(t *testing.T) {
	needPython(t)
	old := sandboxAvailable
	sandboxAvailable = func() error { return errors.New("the OS sandbox is not available: Landlock is not enabled") }
	t.Cleanup(func() { sandboxAvailable = old })

	sb := newSandbox(t)
	sb.write(t, "skills/gen/scripts/hi.py", "print('hi')\n")
	sb.write(t, "skills/gen/"+GeneratedMarker, "")
	res := sb.run(map[string]any{"script_name": "skills/gen/scripts/hi.py"})
	assert.Equal(t, DecisionBlock, res.Decision)
	assert.Equal(t, "[SECURITY BLOCKED] sandbox-unavailable: skills/gen/scripts/hi.py is model-written code, which runs only in the OS sandbox (safe_py_runner.sandbox in the policy), and the OS sandbox is not available: Landlock is not enabled; give --unconfined to run it anyway, unconfined, at your own risk", res.Text)

	// The person's opt-out runs it.
	sb2 := newSandbox(t, WithUnconfined())
	sb2.write(t, "skills/gen/scripts/hi.py", "print('hi')\n")
	sb2.write(t, "skills/gen/"+GeneratedMarker, "")
	res = sb2.run(map[string]any{"script_name": "skills/gen/scripts/hi.py"})
	assert.Equal(t, DecisionAllow, res.Decision, res.Text)
	assert.Equal(t, "hi", res.Text)
}

func TestASandboxedScriptIsNotRunBesideAHiddenFileItCouldRead(t *testing.T) {
	needPython(t)
	// The refusal comes before the sandbox starts, so it holds on any kernel.
	old := sandboxAvailable
	sandboxAvailable = func() error { return nil }
	t.Cleanup(func() { sandboxAvailable = old })

	sb := newSandbox(t)
	sb.write(t, "skills/gen/scripts/peek.py", "print(open('skills/gen/.env').read())\n")
	sb.write(t, "skills/gen/"+GeneratedMarker, "")
	sb.write(t, "skills/gen/.env", "TOKEN=s3cr3t\n")
	sb.write(t, "skills/gen/data/deploy.key", "KEY\n")

	res := sb.run(map[string]any{"script_name": "skills/gen/scripts/peek.py"})
	assert.Equal(t, DecisionBlock, res.Decision)
	assert.Equal(t, `[SECURITY BLOCKED] path-hidden: skills/gen/scripts/peek.py runs in the OS sandbox, which lets it read the folder skills/gen, and it holds "skills/gen/.env", which matches the hidden path pattern ".env" (hidden_paths in the policy); hidden paths are never shown to the model: move it out of skills/gen`, res.Text)

	require.NoError(t, os.Remove(filepath.Join(sb.root, "skills/gen/.env")))
	res = sb.run(map[string]any{"script_name": "skills/gen/scripts/peek.py"})
	assert.Equal(t, `[SECURITY BLOCKED] path-hidden: skills/gen/scripts/peek.py runs in the OS sandbox, which lets it read the folder skills/gen, and it holds "skills/gen/data/deploy.key", which matches the hidden path pattern "*.key" (hidden_paths in the policy); hidden paths are never shown to the model: move it out of skills/gen`, res.Text)

	// A file whose other name lies outside the project is refused as well.
	require.NoError(t, os.Remove(filepath.Join(sb.root, "skills/gen/data/deploy.key")))
	require.NoError(t, os.Link(filepath.Join(sb.root, "..", "outside", "canary.txt"), filepath.Join(sb.root, "skills/gen/data/c.txt")))
	res = sb.run(map[string]any{"script_name": "skills/gen/scripts/peek.py"})
	assert.Equal(t, `[SECURITY BLOCKED] hard-link: skills/gen/scripts/peek.py runs in the OS sandbox, which lets it read the folder skills/gen, and its file "skills/gen/data/c.txt" names a file with 2 names (hard links), of which 1 was found inside the project; another may lie outside it, so it is not read; a person can replace it with a copy (cp --remove-destination)`, res.Text)

	// A folder too large to check is refused, not run unchecked.
	require.NoError(t, os.Remove(filepath.Join(sb.root, "skills/gen/data/c.txt")))
	oldMax := maxSandboxReadScan
	maxSandboxReadScan = 2
	t.Cleanup(func() { maxSandboxReadScan = oldMax })
	res = sb.run(map[string]any{"script_name": "skills/gen/scripts/peek.py"})
	assert.Equal(t, `[SECURITY BLOCKED] path-hidden: skills/gen/scripts/peek.py runs in the OS sandbox, which lets it read the folder skills/gen, which holds more than 2 entries, too many to check for hidden paths; hidden paths are never shown to the model: make the folder smaller`, res.Text)
}

func TestASandboxedScriptRunsWhenItsFolderHidesNothing(t *testing.T) {
	needPython(t)
	if err := osbox.Available(); err != nil {
		if os.Getenv("LPPCTL_REQUIRE_SANDBOX") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	sb := newSandbox(t)
	sb.write(t, "skills/gen/scripts/hi.py", "print(open('skills/gen/data/notes.txt').read().strip())\n")
	sb.write(t, "skills/gen/"+GeneratedMarker, "")
	sb.write(t, "skills/gen/data/notes.txt", "notes\n")
	sb.write(t, ".env", "TOKEN=s3cr3t\n") // outside the skill folder: the sandbox cannot read it
	// Two names of one file, both inside the project (a tree restored with cp -al).
	require.NoError(t, os.Link(filepath.Join(sb.root, "skills/gen/data/notes.txt"), filepath.Join(sb.root, "skills/gen/data/notes2.txt")))
	require.NoError(t, os.Link(filepath.Join(sb.root, "skills/gen/scripts/hi.py"), filepath.Join(sb.root, "docs/hi-copy.py")))
	res := sb.run(map[string]any{"script_name": "skills/gen/scripts/hi.py"})
	assert.Equal(t, DecisionAllow, res.Decision, res.Text)
	assert.Equal(t, "notes", res.Text)
}

// Under safe_py_runner.sandbox: all, a write script refused by the OS
// sandbox says which path was refused, that the sandbox refused it, and
// which setting lets the project's scripts write (before: only
// "error: Permission denied").
func TestAWriteRefusedByTheSandboxNamesThePathAndTheSandbox(t *testing.T) {
	if err := osbox.Available(); err != nil {
		if os.Getenv("LPPCTL_REQUIRE_SANDBOX") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	sb := scriptSandbox(t)
	sb.g.policy.Runner.Sandbox = SandboxAll
	const why = ": Permission denied: the OS sandbox refused it (safe_py_runner.sandbox: all in the policy): a confined script reads only its skill's folder (else its own) and writes only a fresh folder, never the project; set safe_py_runner.sandbox to generated for the project's own scripts to write the project"
	tests := []struct {
		name, script, path, stdin string
	}{
		{name: "a new folder", script: "scripts/write_file.py", path: "output/new/all.txt", stdin: "hi\n"},
		{name: "an existing folder", script: "scripts/write_file.py", path: "docs/all.txt", stdin: "hi\n"},
		{name: "a JSON file", script: "scripts/write_json.py", path: "docs/all.json", stdin: `{"a": 1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := sb.run(map[string]any{"script_name": tt.script, "args": []any{tt.path}, "stdin_text": tt.stdin})
			assert.Equal(t, "[ERROR] "+tt.script+" failed (exit code 1)\n[stderr]\nerror: "+tt.path+why, res.Text)
			assert.NoFileExists(t, filepath.Join(sb.root, filepath.FromSlash(tt.path)))
		})
	}
}
