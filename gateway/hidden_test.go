package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hiddenSandbox is a sandbox holding secrets the model must never see, each
// containing sb.secret, and links leading to them.
type hiddenSandbox struct {
	*sandbox
	secret string
}

func newHiddenSandbox(t *testing.T, opts ...Option) *hiddenSandbox {
	t.Helper()
	sb := newSandbox(t, opts...)
	var buf [16]byte
	rand.Read(buf[:])
	hs := &hiddenSandbox{sandbox: sb, secret: "SECRET-" + hex.EncodeToString(buf[:])}
	for _, f := range []string{
		".env",
		".env.local",
		"sub/.env",
		"keys/server.pem",
		"keys/api.KEY",
		"home/.ssh/id_rsa",
		"home/.ssh/config",
		"id_ed25519.pub",
		".netrc",
		".lppctl/runs/r1/llm.log",
		"scripts/id_rsa_gen.py",
	} {
		sb.write(t, f, "token="+hs.secret+"\n")
	}
	sb.write(t, ".git/config", "[remote \"origin\"]\n\turl = https://"+hs.secret+"@example.com/x.git\n")
	sb.write(t, "keys/README.txt", "keys live here\n")
	sb.symlink(t, ".env", "notes")              // a file link to a hidden file
	sb.symlink(t, "../.env", "sub/link")        // a link one level down
	sb.symlink(t, "../.git/config", "docs/cfg") // into .git
	sb.symlink(t, ".git", "gitdir")             // a directory link to .git
	sb.symlink(t, "home/.ssh", "sshlink")       // a directory link to .ssh
	sb.symlink(t, "keys", "keylink")            // a directory link to a visible directory
	return hs
}

// noSecret fails when the secret shows in res or in the audit log.
func (hs *hiddenSandbox) noSecret(t *testing.T, res Result) {
	t.Helper()
	if strings.Contains(res.Text, hs.secret) {
		t.Fatalf("secret leaked in the result: %q", res.Text)
	}
	if strings.Contains(hs.audit.String(), hs.secret) {
		t.Fatal("secret leaked in the audit log")
	}
}

func hiddenText(what, shown, pattern string, viaLink bool) string {
	return blocked(hiddenRefusal(what, shown, pattern, viaLink)).Text
}

func TestHiddenPathsAreRefused(t *testing.T) {
	hs := newHiddenSandbox(t, WithProtected(".lppctl"))
	tests := []struct {
		name    string
		sub     string
		params  map[string]any
		what    string // the value named in the refusal
		shown   string
		pattern string
		viaLink bool
	}{
		// reads
		{"a .env file", "read_file", map[string]any{"path": ".env"}, "read_file.path", ".env", ".env", false},
		{"an upper-case .ENV", "read_file", map[string]any{"path": ".ENV"}, "read_file.path", ".ENV", ".env", false},
		{"a .env with a trailing blank", "read_file", map[string]any{"path": ".env "}, "read_file.path", ".env ", ".env", false},
		{"a .env below a directory", "read_file", map[string]any{"path": "sub/.env"}, "read_file.path", "sub/.env", ".env", false},
		{"a .env with backslashes", "read_file", map[string]any{"path": `sub\.env`}, "read_file.path", `sub\.env`, ".env", false},
		{"a .env.* variant", "read_file", map[string]any{"path": ".env.local"}, "read_file.path", ".env.local", ".env.*", false},
		{"the git config after ./", "read_file", map[string]any{"path": "./.git/config"}, "read_file.path", "./.git/config", ".git", false},
		{"the git config in another case", "read_file", map[string]any{"path": ".Git/CONFIG"}, "read_file.path", ".Git/CONFIG", ".git", false},
		{"a .pem key", "read_file", map[string]any{"path": "keys/server.pem"}, "read_file.path", "keys/server.pem", "*.pem", false},
		{"an upper-case .KEY", "read_file", map[string]any{"path": "keys/api.KEY"}, "read_file.path", "keys/api.KEY", "*.key", false},
		{"an ssh private key", "read_file", map[string]any{"path": "home/.ssh/id_rsa"}, "read_file.path", "home/.ssh/id_rsa", "id_rsa*", false},
		{"an ssh public key", "read_file", map[string]any{"path": "id_ed25519.pub"}, "read_file.path", "id_ed25519.pub", "id_ed25519*", false},
		{"the ssh config", "read_file", map[string]any{"path": "home/.ssh/config"}, "read_file.path", "home/.ssh/config", ".ssh", false},
		{"netrc", "read_file", map[string]any{"path": ".netrc"}, "read_file.path", ".netrc", ".netrc", false},
		{"an LLM log in the run directory", "read_file", map[string]any{"path": ".lppctl/runs/r1/llm.log"}, "read_file.path", ".lppctl/runs/r1/llm.log", ".lppctl", false},
		{"a missing file in a hidden directory", "read_file", map[string]any{"path": ".git/nope"}, "read_file.path", ".git/nope", ".git", false},
		// through links
		{"a link to .env", "read_file", map[string]any{"path": "notes"}, "read_file.path", "notes", ".env", true},
		{"a link one level down", "read_file", map[string]any{"path": "sub/link"}, "read_file.path", "sub/link", ".env", true},
		{"a link into .git", "read_file", map[string]any{"path": "docs/cfg"}, "read_file.path", "docs/cfg", ".git", true},
		{"a file through a directory link to .git", "read_file", map[string]any{"path": "gitdir/config"}, "read_file.path", "gitdir/config", ".git", true},
		{"a file through a directory link to .ssh", "read_file", map[string]any{"path": "sshlink/config"}, "read_file.path", "sshlink/config", ".ssh", true},
		// listings
		{"listing .git", "list_files", map[string]any{"path": ".git"}, "list_files.path", ".git", ".git", false},
		{"listing .git/ with a trailing slash", "list_files", map[string]any{"path": ".git/"}, "list_files.path", ".git/", ".git", false},
		{"listing a link to .git", "list_files", map[string]any{"path": "gitdir/"}, "list_files.path", "gitdir/", ".git", true},
		{"a tree of the run directory", "tree", map[string]any{"path": ".lppctl"}, "tree.path", ".lppctl", ".lppctl", false},
		{"a tree of a link to .ssh", "tree", map[string]any{"path": "sshlink"}, "tree.path", "sshlink", ".ssh", true},
		// copies
		{"copying .env", "copy_file", map[string]any{"src": ".env", "dst": "out/env.txt"}, "copy_file.src", ".env", ".env", false},
		{"copying a link to .env", "copy_file", map[string]any{"src": "notes", "dst": "out/env.txt"}, "copy_file.src", "notes", ".env", true},
		{"copying a key through a link", "copy_file", map[string]any{"src": "keylink/server.pem", "dst": "out/k.txt"}, "copy_file.src", "keylink/server.pem", "*.pem", false},
		{"copying onto a hidden path", "copy_file", map[string]any{"src": "docs/readme.md", "dst": "home/.ssh/authorized_keys"}, "copy_file.dst", "home/.ssh/authorized_keys", ".ssh", false},
		// moves
		{"moving .env", "move_file", map[string]any{"src": ".env", "dst": "env.txt"}, "move_file.src", ".env", ".env", false},
		{"moving .env out of a directory", "move_file", map[string]any{"src": "sub/.env", "dst": "sub/env.txt"}, "move_file.src", "sub/.env", ".env", false},
		{"moving a link to .env", "move_file", map[string]any{"src": "notes", "dst": "notes.txt"}, "move_file.src", "notes", ".env", true},
		{"moving a file onto a hidden name", "move_file", map[string]any{"src": "docs/readme.md", "dst": ".env.new"}, "move_file.dst", ".env.new", ".env.*", false},
		{"moving a file into .ssh through a link", "move_file", map[string]any{"src": "docs/readme.md", "dst": "sshlink/x"}, "move_file.dst", "sshlink/x", ".ssh", true},
		// directories
		{"making a hidden directory", "make_directory", map[string]any{"path": "sub/.ssh"}, "make_directory.path", "sub/.ssh", ".ssh", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := hs.cli(tt.sub, tt.params)
			checkInvariant(t, res)
			want := hiddenText(tt.what, tt.shown, tt.pattern, tt.viaLink)
			if res.Text != want || res.Rule != ruleHidden || res.ExitCode != -1 {
				t.Fatalf("got  %q (rule %q)\nwant %q", res.Text, res.Rule, want)
			}
			mustPrefix(t, res, "[SECURITY BLOCKED] path-hidden: "+tt.what+" ")
			hs.noSecret(t, res)
		})
	}
	// Nothing moved or was copied.
	for _, f := range []string{".env", "sub/.env", "notes", "docs/readme.md"} {
		if _, err := os.Lstat(filepath.Join(hs.root, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	for _, f := range []string{"out", "env.txt", ".env.new", "notes.txt", "home/.ssh/authorized_keys", "sub/.ssh"} {
		if _, err := os.Lstat(filepath.Join(hs.root, f)); err == nil {
			t.Errorf("%s was created", f)
		}
	}
}

func TestProtectedPathsAreCheckedBeforeHiddenOnes(t *testing.T) {
	hs := newHiddenSandbox(t, WithProtected(".lppctl"))
	res := hs.cli("make_directory", map[string]any{"path": ".git/hooks"})
	mustPrefix(t, res, `[SECURITY BLOCKED] protected-path: make_directory.path ".git/hooks" is inside the protected path ".git"`)
	res = hs.cli("copy_file", map[string]any{"src": "docs/readme.md", "dst": ".lppctl/x"})
	mustPrefix(t, res, `[SECURITY BLOCKED] protected-path: copy_file.dst ".lppctl/x" is inside the protected path ".lppctl"`)
}

func TestListingsLeaveHiddenEntriesOut(t *testing.T) {
	hs := newHiddenSandbox(t)
	tests := []struct {
		name   string
		sub    string
		params map[string]any
		want   string
	}{
		{"the root", "list_files", map[string]any{}, "config/\ndocs/\nhome/\nkeylink@\nkeys/\nscripts/\nskills/\nsub/\n(9 hidden entries not shown)"},
		{"a directory of keys", "list_files", map[string]any{"path": "keys"}, "README.txt\n(2 hidden entries not shown)"},
		{"the same directory through a link", "list_files", map[string]any{"path": "keylink/"}, "README.txt\n(2 hidden entries not shown)"},
		{"a directory holding only hidden entries", "list_files", map[string]any{"path": "home"}, "(1 hidden entry not shown)"},
		{"a directory with a hidden file and a link to one", "list_files", map[string]any{"path": "sub"}, "(2 hidden entries not shown)"},
		{"a tree", "tree", map[string]any{"path": "sub"}, "sub/\n(2 hidden entries not shown)"},
		{"a tree of the root", "tree", map[string]any{"depth": "2"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := hs.cli(tt.sub, tt.params)
			checkInvariant(t, res)
			if res.Decision != DecisionAllow {
				t.Fatalf("res = %+v", res)
			}
			if tt.want != "" && res.Text != tt.want {
				t.Fatalf("got  %q\nwant %q", res.Text, tt.want)
			}
			for _, line := range strings.Split(res.Text, "\n") {
				switch strings.TrimSpace(line) {
				case ".env", ".env.local", ".git/", ".lppctl/", ".netrc", ".ssh/", "notes@", "gitdir@", "sshlink@", "link@", "cfg@", "id_ed25519.pub", "server.pem", "api.KEY":
					t.Errorf("listing shows %q:\n%s", line, res.Text)
				}
			}
			hs.noSecret(t, res)
		})
	}
	// The whole tree: 9 hidden entries at the root, 2 in keys, 2 in sub, .ssh in
	// home, docs/cfg, scripts/id_rsa_gen.py, and nothing below hidden directories.
	res := hs.cli("tree", map[string]any{})
	if !strings.Contains(res.Text, "\n  keys/\n    README.txt\n") || !strings.HasSuffix(res.Text, "\n(16 hidden entries not shown)") {
		t.Errorf("tree:\n%s", res.Text)
	}
}

func TestRunnerRefusesHiddenPaths(t *testing.T) {
	hs := newHiddenSandbox(t)
	hs.write(t, "scripts/.env/x.py", "print('ran')\n")
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"an arg naming .env", map[string]any{"script_name": "scripts/echo.py", "args": []any{".env"}},
			hiddenText("args[0]", ".env", ".env", false)},
		{"an option value naming a hidden file", map[string]any{"script_name": "scripts/echo.py", "args": []any{"ok.md", "--in=sub/.env"}},
			hiddenText("args[1]", "--in=sub/.env", ".env", false)},
		{"a hidden file glued to a short option", map[string]any{"script_name": "scripts/echo.py", "args": []any{"-i.env"}},
			hiddenText("args[0]", "-i.env", ".env", false)},
		{"a link to .env glued to a short option", map[string]any{"script_name": "scripts/echo.py", "args": []any{"-vinotes"}},
			hiddenText("args[0]", "-vinotes", ".env", true)},
		{"a hidden file of arguments", map[string]any{"script_name": "scripts/echo.py", "args": []any{"@.env"}},
			hiddenText("args[0]", "@.env", ".env", false)},
		{"an upper-case key path", map[string]any{"script_name": "scripts/echo.py", "args": []any{"KEYS/SERVER.PEM"}},
			hiddenText("args[0]", "KEYS/SERVER.PEM", "*.pem", false)},
		{"a ./ prefixed git path", map[string]any{"script_name": "scripts/echo.py", "args": []any{"./.git/config"}},
			hiddenText("args[0]", "./.git/config", ".git", false)},
		{"an arg naming a link to .env", map[string]any{"script_name": "scripts/echo.py", "args": []any{"notes"}},
			hiddenText("args[0]", "notes", ".env", true)},
		{"an arg through a directory link to .ssh", map[string]any{"script_name": "scripts/echo.py", "args": []any{"sshlink/config"}},
			hiddenText("args[0]", "sshlink/config", ".ssh", true)},
		{"args given as one string", map[string]any{"script_name": "scripts/echo.py", "args": "a.md .lppctl/runs"},
			hiddenText("args[1]", ".lppctl/runs", ".lppctl", false)},
		{"python_run too", map[string]any{"script_name": "scripts/echo.py", "args": []any{"home/.ssh/id_rsa"}},
			hiddenText("args[0]", "home/.ssh/id_rsa", "id_rsa*", false)},
		{"a hidden script", map[string]any{"script_name": "scripts/id_rsa_gen.py"},
			hiddenText("script_name", "scripts/id_rsa_gen.py", "id_rsa*", false)},
		{"a script in a hidden directory", map[string]any{"script_name": "scripts/.env/x.py"},
			hiddenText("script_name", "scripts/.env/x.py", ".env", false)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var res Result
			if strings.HasPrefix(tt.name, "python_run") {
				res = hs.cli("python_run", tt.args)
			} else {
				res = hs.run(tt.args)
			}
			checkInvariant(t, res)
			if res.Text != tt.want || res.Rule != ruleHidden {
				t.Fatalf("got  %q\nwant %q", res.Text, tt.want)
			}
			hs.noSecret(t, res)
		})
	}
	list, err := hs.g.Scripts()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		if strings.Contains(s, "id_rsa") || strings.Contains(s, ".env") {
			t.Errorf("Scripts lists the hidden script %s", s)
		}
	}
}

func TestRunnerAcceptsArgsNamingVisiblePaths(t *testing.T) {
	needPython(t)
	hs := newHiddenSandbox(t)
	res := hs.run(map[string]any{"script_name": "scripts/echo.py", "args": []any{"docs/readme.md", "--indent=2", "keys/README.txt", "envelope.md", "my.env.md"}})
	if res.Decision != DecisionAllow || !strings.HasPrefix(res.Text, "args [") {
		t.Fatalf("res = %+v", res)
	}
}

// customHidden returns a gateway on hs's root whose policy has these hidden_paths.
func customHidden(t *testing.T, hs *hiddenSandbox, patterns ...string) *Gateway {
	t.Helper()
	base, err := os.ReadFile(policyFile)
	if err != nil {
		t.Fatal(err)
	}
	s := string(base)
	i := strings.Index(s, "hidden_paths:\n")
	j := strings.Index(s, "\nlimits:")
	list := "hidden_paths: []\n"
	if len(patterns) > 0 {
		list = "hidden_paths:\n  - '" + strings.Join(patterns, "'\n  - '") + "'\n"
	}
	p, err := ParsePolicy(strings.NewReader(s[:i]+list+s[j:]), "custom.yaml")
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(hs.root, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

func TestAnchoredHiddenPatterns(t *testing.T) {
	hs := newHiddenSandbox(t)
	hs.write(t, "data/private/a.txt", "a "+hs.secret)
	hs.write(t, "data/public.txt", "public\n")
	hs.write(t, "other/data/private/b.txt", "not anchored here\n")
	hs.symlink(t, "data", "datalink")
	g := customHidden(t, hs, "data/private", "*.pem")
	cli := func(sub string, params map[string]any) Result {
		return g.Call(context.Background(), ToolCLI, map[string]any{"tool_name": sub, "params": params})
	}
	tests := []struct {
		name   string
		sub    string
		params map[string]any
		want   string
	}{
		{"a file below the anchored directory", "read_file", map[string]any{"path": "data/private/a.txt"}, hiddenText("read_file.path", "data/private/a.txt", "data/private", false)},
		{"in another case", "read_file", map[string]any{"path": "DATA/Private/a.txt"}, hiddenText("read_file.path", "DATA/Private/a.txt", "data/private", false)},
		{"through a link to the parent", "read_file", map[string]any{"path": "datalink/private/a.txt"}, hiddenText("read_file.path", "datalink/private/a.txt", "data/private", true)},
		{"not anchored elsewhere", "read_file", map[string]any{"path": "other/data/private/b.txt"}, "not anchored here\n"},
		{"the parent lists the rest", "list_files", map[string]any{"path": "data"}, "public.txt\n(1 hidden entry not shown)"},
		{"moving the parent would expose it", "move_file", map[string]any{"src": "data", "dst": "moved"},
			`[SECURITY BLOCKED] path-hidden: move_file.src "data" may contain paths matching the hidden path pattern "data/private" (hidden_paths in the policy); moving it would expose them`},
		{"moving a visible file out of the parent is fine", "move_file", map[string]any{"src": "data/public.txt", "dst": "public.txt"}, "moved data/public.txt to public.txt"},
		{"a policy without .env does not hide it", "read_file", map[string]any{"path": ".env"}, "token=" + hs.secret + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := cli(tt.sub, tt.params)
			checkInvariant(t, res)
			if res.Text != tt.want {
				t.Fatalf("got  %q\nwant %q", res.Text, tt.want)
			}
		})
	}
}

func TestEmptyHiddenPathsHidesNothing(t *testing.T) {
	hs := newHiddenSandbox(t)
	g := customHidden(t, hs)
	res := g.Call(context.Background(), ToolCLI, map[string]any{"tool_name": "read_file", "params": map[string]any{"path": "notes"}})
	if res.Text != "token="+hs.secret+"\n" {
		t.Fatalf("res = %+v", res)
	}
}

func TestHiddenPatternMatching(t *testing.T) {
	p := testPolicy(t)
	tests := []struct {
		path, want string
	}{
		{".env", ".env"},
		{".ENV", ".env"},
		{"a/b/.env", ".env"},
		{".env/x", ".env"},
		{".env.", ".env"}, // trailing dots and blanks are also matched trimmed
		{".env. ", ".env"},
		{".env.production", ".env.*"},
		{"envelope", ""},
		{"my.env", ""},
		{"x.env.md", ""},
		{"certs/ca.PEM", "*.pem"},
		{"a.pem.txt", ""},
		{"keys/id_rsa.pub", "id_rsa*"},
		{"ID_ED25519", "id_ed25519*"},
		{".git", ".git"},
		{".gitignore", ""},
		{".github/workflows/x.yml", ""},
		{"sub/.git/config", ".git"},
		{".lppctl/skills/x/skills.md", ".lppctl"},
		{".npmrc", ".npmrc"},
		{".pypirc", ".pypirc"},
		{"home/.ssh", ".ssh"},
		{".\u017f\u017fh/config", ".ssh"}, // long s folds to s on case-insensitive file systems
		{"x.\u212aEY", "*.key"},           // Kelvin sign
		{".\uff45nv", ""},                 // fullwidth e is another name everywhere
		{".", ""},
		{"docs/readme.md", ""},
	}
	for _, tt := range tests {
		if got := p.hiddenBy(tt.path); got != tt.want {
			t.Errorf("hiddenBy(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
	h, err := compileHidden("./data/Private/")
	if err != nil || h.Pattern != "data/Private" || strings.Join(h.parts, "/") != "data/private" {
		t.Fatalf("compileHidden = %+v, %v", h, err)
	}
	q := &Policy{Hidden: []HiddenPattern{h}}
	for _, tt := range []struct{ path, below string }{{".", "data/Private"}, {"data", "data/Private"}, {"DATA", "data/Private"}, {"data/private", ""}, {"docs", ""}} {
		if got := q.hiddenBelow(tt.path); got != tt.below {
			t.Errorf("hiddenBelow(%q) = %q, want %q", tt.path, got, tt.below)
		}
	}
}

// A name copied from macOS spells "é" as "e" and a combining accent (NFD):
// the pattern "geheim-é" and the protected path "données", typed composed,
// cover it as well, as the project's write scripts (NFC in _lpp_common) do.
func TestAPathSpelledDecomposedIsHiddenAndProtectedLikeItsComposedForm(t *testing.T) {
	sb := newSandbox(t, WithProtected("données"))
	h, err := compileHidden("geheim-é")
	require.NoError(t, err)
	sb.g.policy.Hidden = append(sb.g.policy.Hidden, h)
	for _, sc := range []string{"read_file", "make_directory"} {
		sb.g.policy.CLI.SubCommands[sc].Params["path"].Pattern = regexp.MustCompile(`^.+$`)
	}
	sb.write(t, "docs/geheim-e\u0301", "SECRET")

	res := sb.cli("list_files", map[string]any{"path": "docs"})
	assert.Equal(t, "readme.md\n(1 hidden entry not shown)", res.Text)
	res = sb.cli("read_file", map[string]any{"path": "docs/geheim-e\u0301"})
	assert.Equal(t, "[SECURITY BLOCKED] path-hidden: read_file.path \"docs/geheim-e\u0301\" matches the hidden path pattern \"geheim-é\" (hidden_paths in the policy); hidden paths are never shown to the model", res.Text)
	res = sb.cli("make_directory", map[string]any{"path": "donne\u0301es/x"})
	assert.Equal(t, "[SECURITY BLOCKED] protected-path: make_directory.path \"donne\u0301es/x\" is inside the protected path \"données\", which no tool may change; use another path, e.g. under output/", res.Text)
}

// A name macOS wrote decomposed (NFD: "e" and a combining accent) is read
// with the name list_files shows, and given to a script, under the default
// policy: its patterns take combining marks (\p{M}) as they take letters.
func TestADecomposedNameIsNotRefusedByTheDefaultPatterns(t *testing.T) {
	needPython(t)
	sb := newSandbox(t)
	sb.write(t, "docs/re\u0301sume\u0301.md", "cv")
	res := sb.cli("list_files", map[string]any{"path": "docs"})
	require.Equal(t, "readme.md\nre\u0301sume\u0301.md", res.Text)
	res = sb.cli("read_file", map[string]any{"path": "docs/re\u0301sume\u0301.md"})
	require.Equal(t, "cv", res.Text)
	res = sb.run(map[string]any{"script_name": "scripts/echo.py", "args": []any{"docs/re\u0301sume\u0301.md"}})
	require.Equal(t, DecisionAllow, res.Decision, res.Text)
}
