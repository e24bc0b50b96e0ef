package gateway

import (
	"context"
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
	for _, s := range []string{"docs/readme.md", "indir/readme.md", "outdir/canary.txt", "docs/up", "loop/x", "../outside/canary.txt", `..\x`, "%2e%2e/x", "\uff0e\uff0e/x", "a/./b//c/", "", ".ENV", "./.git/config", "docs/g/config", "notes", "docs/ID_RSA", ".env ", ".git/"} {
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
