package gateway

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// scriptSandbox is a sandbox holding the project's real scripts/.
func scriptSandbox(t *testing.T) *sandbox {
	t.Helper()
	needPython(t)
	sb := newSandbox(t)
	files, err := filepath.Glob("../scripts/*.py")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sb.write(t, "scripts/"+filepath.Base(f), string(b))
	}
	return sb
}

func TestProjectScriptsThroughTheRunner(t *testing.T) {
	sb := scriptSandbox(t)
	sb.symlink(t, "../outside", "outlink")
	sb.write(t, "tpl.md", "# Report\n## Goal\n## Steps\n## Result\n")
	sb.write(t, "good.md", "# Report\ntext\n## Goal\n## Steps\n```\n## Not a heading\n```\n## Result\n")
	sb.write(t, "bad.md", "# Report\n## Result\n## Goal\n")
	tests := []struct {
		name  string
		args  map[string]any
		text  string
		code  int
		check func(t *testing.T)
	}{
		{"write_file writes and creates parents", map[string]any{"script_name": "scripts/write_file.py", "args": []any{"out/a/b.md"}, "stdin_text": "hello\nworld\n"},
			"wrote 12 bytes (2 lines) to out/a/b.md", 0, func(t *testing.T) {
				if b, _ := os.ReadFile(filepath.Join(sb.root, "out/a/b.md")); string(b) != "hello\nworld\n" {
					t.Errorf("content %q", b)
				}
			}},
		// The gateway refuses an arg through a link out of the root before write_file
		// runs (write_file would refuse it too, with exit 77, see _lpp_common.safe_path).
		{"write_file never gets a link out of the root", map[string]any{"script_name": "scripts/write_file.py", "args": []any{"outlink/x.txt"}, "stdin_text": "x"},
			`[SECURITY BLOCKED] symlink-escape: args[0] "outlink/x.txt" goes through a symbolic link that leaves the project root; scripts get paths inside it only`, -1, nil},
		// .git is hidden as well as protected: the gateway refuses before the script runs.
		{"the gateway refuses .git before write_file runs", map[string]any{"script_name": "scripts/write_file.py", "args": []any{".git/config"}, "stdin_text": "x"},
			`[SECURITY BLOCKED] path-hidden: args[0] ".git/config" matches the hidden path pattern ".git" (hidden_paths in the policy); hidden paths are never shown to the model`, -1, nil},
		{"write_file refuses the policy", map[string]any{"script_name": "scripts/write_file.py", "args": []any{"config/tools_config.yaml"}, "stdin_text": "x"},
			"[SECURITY BLOCKED] protected-path: 'config/tools_config.yaml' is inside the protected path 'config/tools_config.yaml', which no tool may change; use another path, e.g. under output/", ExitRefused, nil},
		{"write_file --help", map[string]any{"script_name": "scripts/write_file.py", "args": []any{"--help"}}, "", 0, nil},
		{"write_json pretty-writes", map[string]any{"script_name": "scripts/write_json.py", "args": []any{"out/x.json"}, "stdin_text": `{"b":1,"a":[true]}`},
			"wrote 36 bytes of valid JSON (object) to out/x.json", 0, func(t *testing.T) {
				if b, _ := os.ReadFile(filepath.Join(sb.root, "out/x.json")); string(b) != "{\n  \"b\": 1,\n  \"a\": [\n    true\n  ]\n}\n" {
					t.Errorf("content %q", b)
				}
			}},
		{"write_json rejects bad JSON", map[string]any{"script_name": "scripts/write_json.py", "args": []any{"out/y.json"}, "stdin_text": `{"b":}`},
			"[ERROR] scripts/write_json.py failed (exit code 1)\n[stderr]\nerror: invalid JSON on stdin: line 1 column 6: Expecting value", 1, nil},
		{"write_json refuses JSON nested too deeply", map[string]any{"script_name": "scripts/write_json.py", "args": []any{"out/deep.json"}, "stdin_text": strings.Repeat("[", 100000)},
			"[ERROR] scripts/write_json.py failed (exit code 1)\n[stderr]\nerror: the input is nested too deeply", 1, nil},
		{"write_txt writes text", map[string]any{"script_name": "scripts/write_txt.py", "args": []any{"out/n.txt"}, "stdin_text": "a\r\nb"},
			"wrote 4 bytes (2 lines) to out/n.txt", 0, nil},
		{"write_txt wants .txt", map[string]any{"script_name": "scripts/write_txt.py", "args": []any{"out/n.md"}, "stdin_text": "a"},
			"[ERROR] scripts/write_txt.py failed (exit code 1)\n[stderr]\nerror: 'out/n.md' does not end in .txt (use write_file.py for other files)", 1, nil},
		{"write_md reports headings", map[string]any{"script_name": "scripts/write_md.py", "args": []any{"out/r.md"}, "stdin_text": "# Title\n\n## Part\n"},
			"wrote 17 bytes (2 headings) to out/r.md\n  # Title\n  ## Part", 0, nil},
		{"write_md refuses empty input", map[string]any{"script_name": "scripts/write_md.py", "args": []any{"out/e.md"}},
			"[ERROR] scripts/write_md.py failed (exit code 1)\n[stderr]\nerror: stdin is empty; expected Markdown text", 1, nil},
		{"format_check passes", map[string]any{"script_name": "scripts/format_check.py", "args": []any{"good.md", "tpl.md"}},
			"OK: all 4 headings of tpl.md appear in good.md in order", 0, nil},
		{"format_check lists problems", map[string]any{"script_name": "scripts/format_check.py", "args": []any{"bad.md", "tpl.md"}},
			"[ERROR] scripts/format_check.py failed (exit code 1)\nFAIL: bad.md does not follow tpl.md (1 missing, 1 out of order)\n  missing: ## Steps\n  out of order: ## Result (should come after ## Goal)", 1, nil},
		{"format_check on a missing file", map[string]any{"script_name": "scripts/format_check.py", "args": []any{"nope.md", "tpl.md"}},
			"[ERROR] scripts/format_check.py failed (exit code 2)\n[stderr]\nerror: 'nope.md' does not exist", 2, nil},
		{"format_check without args", map[string]any{"script_name": "scripts/format_check.py"}, "", 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := sb.run(tt.args)
			checkInvariant(t, res)
			if res.ExitCode != tt.code {
				t.Fatalf("exit %d: %s", res.ExitCode, res.Text)
			}
			if tt.text != "" && res.Text != tt.text {
				t.Fatalf("got  %q\nwant %q", res.Text, tt.text)
			}
			if tt.text == "" && tt.code == 0 && !strings.Contains(res.Text, "usage:") {
				t.Fatalf("no usage: %s", res.Text)
			}
			if tt.check != nil {
				tt.check(t)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(sb.outside, "x.txt")); err == nil {
		t.Error("a script wrote outside the root")
	}
}

func TestEveryProjectScriptHasHelp(t *testing.T) {
	sb := scriptSandbox(t)
	list, err := sb.g.Scripts()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		if !strings.HasPrefix(s, "scripts/") || s == "scripts/echo.py" {
			continue
		}
		res := sb.run(map[string]any{"script_name": s, "args": []any{"--help"}})
		if res.ExitCode != 0 || !strings.Contains(res.Text, "usage: "+strings.TrimPrefix(s, "scripts/")) {
			t.Errorf("%s --help: %+v", s, res)
		}
	}
}

// The write scripts refuse on their own too (the gateway filters first):
// exit 77 and a [SECURITY BLOCKED] line the gateway passes on as a refusal.
func TestWriteScriptsRefuseOnTheirOwn(t *testing.T) {
	sb := scriptSandbox(t)
	sb.symlink(t, "../outside", "outlink")
	for _, c := range []struct{ arg, want string }{
		{"outlink/x.txt", "[SECURITY BLOCKED] symlink-escape: 'outlink/x.txt' resolves through a symbolic link outside the project root; give a path inside it\n"},
		{"../pwn.json", "[SECURITY BLOCKED] path-traversal: '../pwn.json' climbs out of the project root with '..'; give a path inside it\n"},
		{"docs/../../pwn.json", "[SECURITY BLOCKED] path-traversal: 'docs/../../pwn.json' climbs out of the project root with '..'; give a path inside it\n"},
		{"Scripts/x.py", "[SECURITY BLOCKED] protected-path: 'Scripts/x.py' is inside the protected path 'scripts', which no tool may change; use another path, e.g. under output/\n"},
	} {
		cmd := exec.Command("python3", "scripts/write_file.py", c.arg)
		cmd.Dir = sb.root
		cmd.Env = append(os.Environ(), "LPPCTL_PROTECTED=.git:scripts")
		cmd.Stdin = strings.NewReader("x")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != ExitRefused || stderr.String() != c.want {
			t.Errorf("%s: %v, stderr %q", c.arg, err, stderr.String())
		}
	}
	if _, err := os.Stat(filepath.Join(sb.outside, "x.txt")); err == nil {
		t.Error("wrote outside the root")
	}
}

// A protected path may hold ":" or "%": LPPCTL_PROTECTED escapes them, so the
// write scripts see the path whole.
func TestProtectedPathsWithColonsReachTheScripts(t *testing.T) {
	sb := scriptSandbox(t)
	g, err := New(sb.root, sb.g.policy, WithProtected("data:raw", "odd%3Aname"))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	sb.g = g
	for _, c := range []struct{ arg, prot string }{{"data:raw/x.txt", "data:raw"}, {"odd%3Aname/x.txt", "odd%3Aname"}} {
		res := sb.run(map[string]any{"script_name": "scripts/write_file.py", "args": []any{c.arg}, "stdin_text": "x"})
		if res.Rule != ruleProtected || !strings.Contains(res.Text, "protected path '"+c.prot+"'") {
			t.Errorf("%s: %+v", c.arg, res)
		}
	}
	if res := sb.run(map[string]any{"script_name": "scripts/write_file.py", "args": []any{"data/x.txt"}, "stdin_text": "x"}); res.Decision != DecisionAllow {
		t.Errorf("data/x.txt: %+v", res)
	}
}

// TestWriteScriptsRemoveStaleTemporaries: a writer killed mid-write (a
// timeout or a crash of the run kills it with SIGKILL) leaves a temporary
// file; the next write into that folder removes it once it is a minute old.
func TestWriteScriptsRemoveStaleTemporaries(t *testing.T) {
	sb := scriptSandbox(t)
	sb.write(t, "out/.lpp-old.tmp", "half")
	sb.write(t, "out/.lpp-fresh.tmp", "half, still being written")
	sb.write(t, "out/.lpp-notes.txt", "not a temporary file")
	old := time.Now().Add(-2 * time.Minute)
	if err := os.Chtimes(filepath.Join(sb.root, "out/.lpp-old.tmp"), old, old); err != nil {
		t.Fatal(err)
	}
	if res := sb.run(map[string]any{"script_name": "scripts/write_file.py", "args": []any{"out/x.md"}, "stdin_text": "x\n"}); !strings.HasPrefix(res.Text, "wrote 2 bytes") {
		t.Fatal(res.Text)
	}
	entries, _ := os.ReadDir(filepath.Join(sb.root, "out"))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != ".lpp-fresh.tmp .lpp-notes.txt x.md" {
		t.Errorf("out/ holds %s", got)
	}
}

// TestReadOnlyCallsCannotWrite: in a gateway.ReadOnly context (the
// evaluator's tool loop) the native sub-commands that change files and the
// write scripts are refused; reading and checking scripts still work.
func TestReadOnlyCallsCannotWrite(t *testing.T) {
	sb := scriptSandbox(t)
	sb.write(t, "out/a.md", "# A\n")
	ro := ReadOnly(context.Background())
	before := sb.snapshot(t)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{ToolCLI, map[string]any{"tool_name": "copy_file", "params": map[string]any{"src": "out/a.md", "dst": "out/b.md"}},
			"[SECURITY BLOCKED] read-only: copy_file changes files, and this tool call may only look (a checker such as the evaluator verifies the work, it does not change it); use read_file, list_files or tree"},
		{ToolCLI, map[string]any{"tool_name": "move_file", "params": map[string]any{"src": "out/a.md", "dst": "out/c.md"}}, "[SECURITY BLOCKED] read-only: move_file changes files"},
		{ToolCLI, map[string]any{"tool_name": "make_directory", "params": map[string]any{"path": "out/d"}}, "[SECURITY BLOCKED] read-only: make_directory changes files"},
		{ToolRunner, map[string]any{"script_name": "scripts/write_file.py", "args": []any{"out/a.md"}, "stdin_text": "changed"},
			"[SECURITY BLOCKED] read-only: 'out/a.md': this tool call may only look, not write (a checker such as the evaluator verifies the work, it does not change it)"},
		{ToolCLI, map[string]any{"tool_name": "python_run", "params": map[string]any{"script_name": "scripts/write_md.py", "args": []any{"out/e.md"}, "stdin_text": "# E\n"}}, "[SECURITY BLOCKED] read-only: 'out/e.md'"},
		{ToolCLI, map[string]any{"tool_name": "read_file", "params": map[string]any{"path": "out/a.md"}}, "# A"},
		{ToolRunner, map[string]any{"script_name": "scripts/format_check.py", "args": []any{"out/a.md", "out/a.md"}}, "OK"},
	} {
		res := sb.g.Call(ro, tc.tool, tc.args)
		if !strings.HasPrefix(res.Text, tc.want) {
			t.Errorf("%s %v = %q, want it to start with %q", tc.tool, tc.args, res.Text, tc.want)
		}
	}
	if after := sb.snapshot(t); after != before {
		t.Errorf("a read-only call changed the project:\nbefore %s\nafter  %s", before, after)
	}
	// The same write outside a read-only context works.
	if res := sb.g.Call(context.Background(), ToolCLI, map[string]any{"tool_name": "copy_file", "params": map[string]any{"src": "out/a.md", "dst": "out/b.md"}}); strings.HasPrefix(res.Text, "[") {
		t.Errorf("copy_file outside read-only: %q", res.Text)
	}
}

// protected_paths: [.] makes the whole project read-only: the project's write
// scripts refuse like the native sub-commands (LPPCTL_PROTECTED holds "."),
// and neither advises writing under output/.
func TestAPolicyThatProtectsTheWholeProjectStopsTheWriteScriptsToo(t *testing.T) {
	sb := scriptSandbox(t)
	g, err := New(sb.root, sb.g.policy, WithProtected("."))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	res := g.Call(t.Context(), ToolRunner, map[string]any{"script_name": "scripts/write_file.py", "args": []any{"output/x.txt"}, "stdin_text": "x"})
	checkInvariant(t, res)
	if want := "[SECURITY BLOCKED] protected-path: 'output/x.txt' is inside the protected path '.', which no tool may change; the policy protects output/ as well, so no tool may write there either"; res.Text != want {
		t.Errorf("got  %s\nwant %s", res.Text, want)
	}
	if _, err := os.Stat(filepath.Join(sb.root, "output", "x.txt")); err == nil {
		t.Error("write_file wrote into a project protected as a whole")
	}
	res = g.Call(t.Context(), ToolCLI, map[string]any{"tool_name": "make_directory", "params": map[string]any{"path": "output/d"}})
	if want := `[SECURITY BLOCKED] protected-path: make_directory.path "output/d" is inside the protected path ".", which no tool may change; the policy protects output/ as well, so no tool may write there either`; res.Text != want {
		t.Errorf("got  %s\nwant %s", res.Text, want)
	}
}

// Trailing dots and blanks of a name are dropped where Windows reads names
// ("specs." is "specs"), and hidden_paths matching drops them: a protected
// path spelled with them is protected all the same, by the native
// sub-commands and by the project's write scripts.
func TestAProtectedPathWithTrailingDotsOrBlanksIsStillProtected(t *testing.T) {
	sb := scriptSandbox(t)
	for _, p := range []string{"config./x.yaml", "config /x.yaml", "config. . /x.yaml", "config/tools_config.yaml."} {
		res := sb.cli("copy_file", map[string]any{"src": "docs/readme.md", "dst": p})
		checkInvariant(t, res)
		if res.Rule != ruleProtected {
			t.Errorf("copy_file to %q: %s", p, res.Text)
		}
	}
	res := sb.run(map[string]any{"script_name": "scripts/write_file.py", "args": []any{"config./x.yaml"}, "stdin_text": "x"})
	if want := "[SECURITY BLOCKED] protected-path: 'config./x.yaml' is inside the protected path 'config', which no tool may change; use another path, e.g. under output/"; res.Text != want {
		t.Errorf("got  %s\nwant %s", res.Text, want)
	}
	// Names that only start like a protected path are free.
	for _, p := range []string{"config.d/x.yaml", "out./x.txt"} {
		if res := sb.cli("copy_file", map[string]any{"src": "docs/readme.md", "dst": p}); res.Decision != DecisionAllow {
			t.Errorf("copy_file to %q: %s", p, res.Text)
		}
	}
	if _, err := os.Stat(filepath.Join(sb.root, "config.", "x.yaml")); err == nil {
		t.Error("a write reached config./x.yaml")
	}
}
