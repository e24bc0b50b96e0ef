package gateway

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// FuzzCheckPath asserts that whatever path the checks accept stays inside the
// root: the cleaned and the resolved forms are local, and the real file (when
// it exists) lies under the root. It also runs read_file on the value and
// checks the outside canary never shows, and that nothing hidden by the
// policy (.env, .git, keys ...) is ever read, directly or through a link.
func FuzzCheckPath(f *testing.F) {
	sb := newSandbox(f)
	sb.symlink(f, "../outside", "outdir")
	sb.symlink(f, "docs", "indir")
	sb.symlink(f, "../../outdir/canary.txt", "docs/up")
	sb.symlink(f, "loop", "loop")
	const secret = "HIDDEN-SECRET-7f3a"
	sb.write(f, ".env", secret)
	sb.write(f, "docs/id_rsa", secret)
	sb.write(f, ".git/config", secret)
	sb.symlink(f, ".env", "notes")
	sb.symlink(f, "../.git", "docs/g")
	sb.symlink(f, "nothere/../docs/g", "mlink") // a missing component, then "..", then a link
	sb.symlink(f, "nothere/../g", "docs/mdoc")
	sb.symlink(f, "nothere/../indir", "mdocs")
	// Hard links: to the canary outside, to .env, and between two names inside.
	for target, name := range map[string]string{"../outside/canary.txt": "docs/hcanary", ".env": "docs/henv", "docs/readme.md": "docs/hreadme"} {
		if err := os.Link(filepath.Join(sb.root, filepath.FromSlash(target)), filepath.Join(sb.root, filepath.FromSlash(name))); err != nil {
			f.Logf("no hard links here: %v", err)
		}
	}
	for _, s := range []string{"docs/hcanary", "docs/henv", "docs/hreadme", "docs/readme.md", "indir/readme.md", "outdir/canary.txt", "docs/up", "loop/x", "../outside/canary.txt", `..\x`, "%2e%2e/x", "\uff0e\uff0e/x", "a/./b//c/", "", ".ENV", "./.git/config", "docs/g/config", "notes", "docs/ID_RSA", ".env ", ".git/", "mlink/config", "docs/mdoc/config", "mdocs/readme.md"} {
		f.Add(s)
	}
	root := sb.root
	f.Fuzz(func(t *testing.T, s string) {
		clean, r := checkPathSyntax(s)
		if r != nil {
			if !strings.HasPrefix(blocked(r).Text, PrefixBlocked+" path-") {
				t.Fatalf("refusal %q", blocked(r).Text)
			}
		} else {
			if clean != "." && !filepath.IsLocal(clean) {
				t.Fatalf("accepted %q as %q, which is not local", s, clean)
			}
			for _, c := range strings.Split(clean, "/") {
				if strings.Trim(c, ". ") == "" && c != "." || strings.HasPrefix(c, "-") {
					t.Fatalf("accepted %q with component %q", s, c)
				}
			}
			for _, c := range clean {
				if unicode.IsControl(c) || c == '\\' {
					t.Fatalf("accepted %q with %U", s, c)
				}
			}
			resolved, r, err := sb.g.resolve(clean, s)
			if r == nil && err == nil {
				if resolved != "." && !filepath.IsLocal(resolved) {
					t.Fatalf("%q resolved to %q", s, resolved)
				}
				full := filepath.Join(root, filepath.FromSlash(resolved))
				if real, err := filepath.EvalSymlinks(full); err == nil {
					if rel, err := filepath.Rel(root, real); err != nil || !filepath.IsLocal(rel) && rel != "." {
						t.Fatalf("%q resolved to %q, really %q: outside the root", s, resolved, real)
					}
					// Where it exists, the resolved path is link-free: the checks
					// see the path os.Root will use.
					if filepath.ToSlash(strings.TrimPrefix(real, root+string(filepath.Separator))) != resolved && !(real == root && resolved == ".") {
						t.Fatalf("%q resolved to %q, but it is really %q", s, resolved, real)
					}
				}
			}
		}
		res := sb.g.Call(context.Background(), ToolCLI, map[string]any{"tool_name": "read_file", "params": map[string]any{"path": s}})
		if strings.Contains(res.Text, sb.canary) {
			t.Fatalf("read_file %q leaked the canary", s)
		}
		if strings.Contains(res.Text, secret) {
			t.Fatalf("read_file %q leaked a hidden file", s)
		}
		if res.Decision == DecisionAllow {
			resolved, _, _ := sb.g.resolve(clean, s)
			if pat := sb.g.policy.hiddenBy(clean) + sb.g.policy.hiddenBy(resolved); pat != "" {
				t.Fatalf("read_file %q (%q, resolved %q) was allowed although hidden by %q", s, clean, resolved, pat)
			}
		}
		checkInvariant(t, res)
	})
}

// FuzzCallJSON sends raw JSON tool-call arguments, as the model produces them,
// through CallJSON (the entry point the agent actions use) for both tools.
// Nothing may panic (a recovered panic is a bug too), every result keeps the
// [SECURITY BLOCKED]/[ERROR] invariant, nothing outside the root or hidden is
// ever shown, and nothing outside the root or under a protected path changes.
// Scripts are checked but not started (the interpreter is missing), so the
// runner's checks are fuzzed at full speed. Allowed writes stay in the
// sandbox (they may only touch unprotected paths inside the root, which the
// invariants do not depend on).
func FuzzCallJSON(f *testing.F) {
	seeds := []string{
		`{"tool_name":"read_file","params":{"path":"docs/readme.md"}}`,
		`{"tool_name":"read_file","params":"{\"path\":\"notes\"}"}`,
		`{"tool_name":"read_file","path":"outdir/canary.txt"}`,
		`{"tool_name":"read_file","params":{"path":"docs/readme.md","file":"x"}}`,
		`{"tool_name":"read_file","params":{"path":"a","path":"../outside/canary.txt"}}`,
		`{"tool_name":"read_file","params":{"path":["docs/readme.md"]}}`,
		`{"tool_name":"read_file","params":{"path":{"$ne":1}}}`,
		`{"tool_name":"read_file","params":{"path":1e999}}`,
		`{"tool_name":"read_file","params":{"path":null}}`,
		`{"tool_name":["read_file"]}`,
		`{"tool_name":"tree","params":{"depth":"99999999999999999999"}}`,
		`{"tool_name":"tree","params":{"path":"indir","depth":-1}}`,
		`{"tool_name":"list_files","dir":"indir/..//"}`,
		`{"tool_name":"copy_file","params":{"src":"docs/readme.md","dst":"scripts/x.py"}}`,
		`{"tool_name":"copy_file","params":{"from":"docs/readme.md","to":"out/y.md"}}`,
		`{"tool_name":"move_file","params":{"src":"kit","dst":"skills/new"}}`,
		`{"tool_name":"move_file","params":{"src":"docs","dst":"docs/sub"}}`,
		`{"tool_name":"make_directory","params":{"path":"\u017fcripts/x"}}`,
		`{"tool_name":"make_directory","params":{"path":"out\\\\a\\\\b"}}`,
		`{"tool_name":"python_run","params":{"script_name":"scripts/echo.py","args":"-c print(1)"}}`,
		`{"script_name":"scripts/echo.py","args":["-c","import os"],"env_vars":{"NAME":"x"}}`,
		`{"script_name":"scripts/echo.py","args":"a b c","env_vars":"{\"NAME\":\"x\"}","stdin_text":"hi"}`,
		`{"script_name":"scripts/echo.py","env_vars":["A=B=C","BASH_FUNC_x%%=() { id; }"]}`,
		`{"script_name":"scripts/echo.py","env_vars":{"GCONV_PATH":"out"}}`,
		`{"script_name":"scripts/../scripts/echo.py"}`,
		`{"script_name":"scripts/echo.py/"}`,
		`{"script_name":"scripts/echo.py\u0000.txt"}`,
		`{"script_name":"outdir/evil.py"}`,
		`{"script":"scripts/echo.py","script_name":"x.py"}`,
		`{"script_name":"scripts/echo.py","args":[1,true,null]}`,
		`{"script_name":"scripts/echo.py","args":[[1]],"stdin_text":{"a":1}}`,
		`{"script_name":"scripts/echo.py","args":["notes"]}`,
		`[]`, `null`, `"x"`, `{`, `{"a":{"b":{"c":{"d":{"e":{}}}}}}`, ``,
	}
	for _, s := range seeds {
		f.Add(s, false)
		f.Add(s, true)
	}
	const secret = "HIDDEN-SECRET-7f3a"
	protectedFiles := []string{"config/tools_config.yaml", ".git/config", "scripts/echo.py", "skills/hello/scripts/greet.py", ".env"}
	state := func(sb *sandbox) string {
		var b strings.Builder
		for _, p := range protectedFiles {
			data, err := os.ReadFile(filepath.Join(sb.root, p))
			fmt.Fprintf(&b, "%s %q %v\n", p, data, err)
		}
		for _, d := range []string{sb.outside, filepath.Join(sb.root, "scripts"), filepath.Join(sb.root, "skills")} {
			entries, err := os.ReadDir(d)
			fmt.Fprintf(&b, "%s %v\n", d, err)
			for _, e := range entries {
				fmt.Fprintf(&b, "  %s %v\n", e.Name(), e.Type())
			}
		}
		return b.String()
	}
	sb := newSandbox(f, WithPython(filepath.Join(f.TempDir(), "no-python")))
	sb.symlink(f, "../outside", "outdir")
	sb.symlink(f, "docs", "indir")
	sb.symlink(f, "loop", "loop")
	sb.write(f, ".env", secret)
	sb.write(f, "kit/a.py", "print(1)\n")
	sb.symlink(f, ".env", "notes")
	clean := state(sb)
	f.Fuzz(func(t *testing.T, raw string, runner bool) {
		tool := ToolCLI
		if runner {
			tool = ToolRunner
		}
		res := sb.g.CallJSON(context.Background(), tool, raw)
		checkInvariant(t, res)
		if strings.Contains(res.Text, "internal error") {
			t.Fatalf("%s %q: %s", tool, raw, res.Text)
		}
		if strings.Contains(res.Text, sb.canary) || strings.Contains(res.Text, secret) {
			t.Fatalf("%s %q leaked: %s", tool, raw, res.Text)
		}
		if runner && res.Decision == DecisionAllow {
			t.Fatalf("%s %q ran without an interpreter: %+v", tool, raw, res)
		}
		if now := state(sb); now != clean {
			t.Fatalf("%s %q changed a protected or outside path:\nbefore:\n%s\nafter:\n%s", tool, raw, clean, now)
		}
	})
}
