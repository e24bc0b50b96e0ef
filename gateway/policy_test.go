package gateway

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/stretchr/testify/require"
)

func TestLoadPolicyAcceptsTheProjectPolicy(t *testing.T) {
	p := testPolicy(t)
	if got := len(p.CLI.SubCommands); got != 7 {
		t.Errorf("sub-commands = %d, want 7", got)
	}
	if p.Runner.Timeout != 2*time.Minute {
		t.Errorf("runner timeout = %s", p.Runner.Timeout)
	}
	if p.CLI.SubCommands["read_file"].Timeout != 10*time.Second {
		t.Errorf("read_file timeout = %s", p.CLI.SubCommands["read_file"].Timeout)
	}
	var hidden []string
	for _, h := range p.Hidden {
		hidden = append(hidden, h.Pattern)
	}
	if got, want := strings.Join(hidden, " "), ".git .env .env.* *.pem *.key id_rsa* id_ed25519* .lppctl .netrc .npmrc .pypirc .ssh"; got != want {
		t.Errorf("hidden_paths = %s\nwant %s", got, want)
	}
	for _, name := range []string{"rm-recursive", "mkfs", "dd", "pipe-to-shell", "python-eval", "python-exec", "python-dunder-import", "os-system", "subprocess"} {
		found := false
		for _, b := range p.Blocked {
			found = found || b.Name == name
		}
		if !found {
			t.Errorf("blocked pattern %s missing", name)
		}
	}
}

func TestLoadPolicyFailsClosedOnMissingFile(t *testing.T) {
	_, err := LoadPolicy(filepath.Join(t.TempDir(), "nope.yaml"))
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v, want not-exist", err)
	}
	if !strings.HasPrefix(err.Error(), "cannot load policy: open ") || !strings.HasSuffix(err.Error(), "(the gateway refuses every tool call without a valid policy)") {
		t.Errorf("message = %q", err)
	}
}

func TestNewRefusesNilPolicy(t *testing.T) {
	_, err := New(t.TempDir(), nil)
	if err == nil || err.Error() != "cannot start gateway: no policy (the gateway refuses every tool call without a valid policy)" {
		t.Fatalf("err = %v", err)
	}
}

func TestParsePolicyRejectsInvalidPolicies(t *testing.T) {
	base, err := os.ReadFile(policyFile)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		edit    func(string) string
		problem string // the exact text of one reported problem
	}{
		{"an empty file", func(string) string { return "  \n" }, "cannot load policy p.yaml: invalid policy: the file is empty"},
		{"an unknown top-level key", func(s string) string { return s + "\nallow_everything: true\n" }, `unknown key "allow_everything" in the policy`},
		{"an unknown nested key", func(s string) string {
			return strings.Replace(s, "  max_args: 32", "  max_args: 32\n  shell: true", 1)
		}, `unknown key "shell" in safe_py_runner`},
		{"a bad regex", func(s string) string {
			return strings.Replace(s, `pattern: '^[0-9]{1,2}$'`, `pattern: '^[0-9'`, 1)
		}, "safe_cli_executor.sub_commands.tree.params.depth.pattern: invalid regex: missing closing ]: `[0-9`"},
		{"a bad blocked pattern", func(s string) string {
			return strings.Replace(s, `pattern: '__import__'`, `pattern: '(__import__'`, 1)
		}, "blocked_patterns[6].pattern: invalid regex: missing closing ): `(__import__`"},
		{"a bad duration", func(s string) string {
			return strings.Replace(s, "  timeout: 120s     # the default when omitted", "  timeout: soon", 1)
		}, `safe_py_runner.timeout: invalid duration "soon" (e.g. 30s, 2m)`},
		{"an unknown sub-command", func(s string) string {
			return strings.Replace(s, "    read_file:\n", "    read_fil:\n", 1)
		}, `safe_cli_executor.sub_commands.read_fil: unknown sub-command (did you mean "read_file"?) (implemented: copy_file, list_files, make_directory, move_file, python_run, read_file, tree)`},
		{"an unknown parameter", func(s string) string {
			return strings.Replace(s, "        depth:\n", "        dpeth:\n", 1)
		}, `safe_cli_executor.sub_commands.tree.params.dpeth: unknown parameter (did you mean "depth"?) (tree takes: depth, path)`},
		{"a version other than 1", func(s string) string { return strings.Replace(s, "version: 1", "version: 2", 1) }, "version: must be 1, got 2"},
		{"a secret in the inherited env", func(s string) string {
			return strings.Replace(s, "inherit: [PATH,", "inherit: [OPENAI_API_KEY, PATH,", 1)
		}, "safe_py_runner.env.inherit[0]: OPENAI_API_KEY must never pass to scripts"},
		{"PYTHONPATH in the inherited env", func(s string) string {
			return strings.Replace(s, "inherit: [PATH,", "inherit: [PYTHONPATH, PATH,", 1)
		}, "safe_py_runner.env.inherit[0]: PYTHONPATH must never pass to scripts"},
		{"a protected path outside the root", func(s string) string {
			return strings.Replace(s, "  - .lppctl\n", "  - ../x\n", 1)
		}, `protected_paths[2]: "../x" leaves the project root`},
		{"a misspelt hidden_paths key", func(s string) string {
			return strings.Replace(s, "hidden_paths:\n", "hidden_path:\n", 1)
		}, `unknown key "hidden_path" in the policy`},
		{"a bad hidden glob", func(s string) string {
			return strings.Replace(s, "  - .env           # API keys\n", "  - '[.env'\n", 1)
		}, `hidden_paths[1]: "[.env" is not a valid glob: syntax error in pattern`},
		{"an absolute hidden path", func(s string) string {
			return strings.Replace(s, "  - .netrc ", "  - /etc/passwd ", 1)
		}, `hidden_paths[8]: "/etc/passwd" must be relative to the project root`},
		{"a hidden path leaving the root", func(s string) string {
			return strings.Replace(s, "  - .netrc ", "  - ../x ", 1)
		}, `hidden_paths[8]: "../x" leaves the project root`},
		{"a ** hidden pattern", func(s string) string {
			return strings.Replace(s, "  - .netrc ", "  - '**/.netrc' ", 1)
		}, `hidden_paths[8]: "**/.netrc": ** is not supported (a pattern without "/" already matches at any depth)`},
		{"a backslash in a hidden pattern", func(s string) string {
			return strings.Replace(s, "  - .netrc ", `  - 'a\b' `, 1)
		}, `hidden_paths[8]: "a\\b" contains a backslash; use "/" between components and [*] for a literal *`},
		{"the root as a hidden path", func(s string) string {
			return strings.Replace(s, "  - .netrc ", "  - ./ ", 1)
		}, `hidden_paths[8]: "./" names the project root`},
		{"an empty hidden pattern", func(s string) string {
			return strings.Replace(s, "  - .netrc ", "  - '' ", 1)
		}, `hidden_paths[8]: empty pattern`},
		{"a duplicate hidden pattern", func(s string) string {
			return strings.Replace(s, "  - .netrc ", "  - .ENV ", 1)
		}, `hidden_paths[8]: duplicate ".ENV"`},
		{"a hidden_paths that is not a list", func(s string) string {
			i := strings.Index(s, "hidden_paths:\n")
			j := strings.Index(s, "\nlimits:")
			return s[:i] + "hidden_paths: .env\n" + s[j:]
		}, "p.yaml:30: .env is a string, where a list belongs"},
		{"a zero limit", func(s string) string {
			return strings.Replace(s, "tree_max_depth: 6", "tree_max_depth: 0", 1)
		}, "limits.tree_max_depth: 0 is out of range [1, 64]"},
		{"a zero list_max_bytes", func(s string) string {
			return strings.Replace(s, "tree_max_depth: 6", "tree_max_depth: 6\n  list_max_bytes: 0", 1)
		}, "limits.list_max_bytes: 0 is out of range [1, 16777216]"},
		{"a command line as interpreter", func(s string) string {
			return strings.Replace(s, "python: python3", "python: python3 -c x", 1)
		}, `safe_py_runner.python: "python3 -c x" must be a program name or path, not a command line`},
		{"inherit_for outside the script directories", func(s string) string {
			return strings.Replace(s, "      skills/ects_skill: [", "      output/x: [", 1)
		}, `safe_py_runner.env.inherit_for.output/x: "output/x" is not inside a script directory (script_dirs)`},
		{"inherit_for leaving the root", func(s string) string {
			return strings.Replace(s, "      skills/ects_skill: [", "      ../x: [", 1)
		}, `safe_py_runner.env.inherit_for.../x: "../x" leaves the project root`},
		{"a provider key in inherit_for", func(s string) string {
			return strings.Replace(s, "[TRANSCRIPT_API_URL, TRANSCRIPT_API_TOKEN]", "[TRANSCRIPT_API_URL, OPENAI_API_KEY]", 1)
		}, "safe_py_runner.env.inherit_for.skills/ects_skill[1]: OPENAI_API_KEY must never pass to scripts"},
		{"a bad name in inherit_for", func(s string) string {
			return strings.Replace(s, "[TRANSCRIPT_API_URL, TRANSCRIPT_API_TOKEN]", "[TRANSCRIPT-URL]", 1)
		}, `safe_py_runner.env.inherit_for.skills/ects_skill[0]: "TRANSCRIPT-URL" is not a variable name`},
		{"a regex in allow_keys", func(s string) string {
			return strings.Replace(s, "allow_keys: [NAME, VERBOSE]", "allow_keys: ['^[A-Z]+$']", 1)
		}, `safe_py_runner.env.allow_keys[0]: "^[A-Z]+$" is not a variable name (allow_keys lists the exact names the model may set, e.g. NAME)`},
		{"LD_PRELOAD in allow_keys", func(s string) string {
			return strings.Replace(s, "allow_keys: [NAME, VERBOSE]", "allow_keys: [NAME, LD_PRELOAD]", 1)
		}, "safe_py_runner.env.allow_keys[1]: LD_PRELOAD must never be set by the model (it changes what code runs)"},
		{"SSLKEYLOGFILE in allow_keys", func(s string) string {
			return strings.Replace(s, "allow_keys: [NAME, VERBOSE]", "allow_keys: [SSLKEYLOGFILE]", 1)
		}, "safe_py_runner.env.allow_keys[0]: SSLKEYLOGFILE must never be set by the model (matches deny_keys ^(GCONV_PATH|"},
		{"a provider key in allow_keys", func(s string) string {
			return strings.Replace(s, "allow_keys: [NAME, VERBOSE]", "allow_keys: [OPENAI_BASE]", 1)
		}, "safe_py_runner.env.allow_keys[0]: OPENAI_BASE must never be set by the model (lppctl's own provider variables never reach scripts)"},
		{"a duplicate in allow_keys", func(s string) string {
			return strings.Replace(s, "allow_keys: [NAME, VERBOSE]", "allow_keys: [NAME, NAME]", 1)
		}, "safe_py_runner.env.allow_keys[1]: duplicate NAME"},
		{"a script directory at the root", func(s string) string {
			return strings.Replace(s, "    - skills/*\n", "    - '*'\n", 1)
		}, `safe_py_runner.script_dirs[1]: "*" must start with a fixed directory such as scripts (script directories are write-protected)`},
		{"a missing runner", func(s string) string {
			i := strings.Index(s, "safe_py_runner:\n")
			return s[:i]
		}, "safe_py_runner: missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParsePolicy(strings.NewReader(tt.edit(string(base))), "p.yaml")
			if err == nil {
				t.Fatal("policy accepted")
			}
			if !errors.Is(err, ErrInvalidPolicy) {
				t.Errorf("error does not wrap ErrInvalidPolicy: %v", err)
			}
			if !strings.HasPrefix(err.Error(), "cannot load policy p.yaml: invalid policy: ") {
				t.Errorf("message = %q", err)
			}
			if !strings.Contains(err.Error(), tt.problem) {
				t.Errorf("message = %q\nwant it to contain %q", err, tt.problem)
			}
		})
	}
}

func TestParsePolicyReportsEveryProblemAtOnce(t *testing.T) {
	base, _ := os.ReadFile(policyFile)
	s := strings.Replace(string(base), "version: 1", "version: 3", 1)
	s = strings.Replace(s, "tree_max_depth: 6", "tree_max_depth: -1", 1)
	_, err := ParsePolicy(strings.NewReader(s), "p.yaml")
	var pe *PolicyError
	if !errors.As(err, &pe) || len(pe.Problems) != 2 {
		t.Fatalf("err = %v", err)
	}
	if !strings.HasPrefix(err.Error(), "cannot load policy p.yaml: invalid policy: 2 problems:\n  ") {
		t.Errorf("message = %q", err)
	}
}

func TestClosedGatewayRefusesEveryCall(t *testing.T) {
	_, perr := LoadPolicy("/nonexistent/tools_config.yaml")
	g := Closed(perr)
	res := g.Call(t.Context(), ToolCLI, map[string]any{"tool_name": "list_files"})
	mustPrefix(t, res, "[SECURITY BLOCKED] policy-unavailable: no valid tool policy is loaded, so every tool call is refused (cannot load policy: open /nonexistent/tools_config.yaml")
	if res.Decision != DecisionBlock || res.Rule != rulePolicy {
		t.Errorf("res = %+v", res)
	}
	if len(g.Tools()) != 2 || !strings.Contains(g.ToolDocs(), "no valid tool policy") {
		t.Error("closed gateway should still describe its (unavailable) tools")
	}
}

func TestAllowKeysAreCheckedAgainstDenyKeysInAnyCase(t *testing.T) {
	base, err := os.ReadFile(policyFile)
	require.NoError(t, err)
	const proxy = "(matches deny_keys (^|_)(URLS?|URIS?|ENDPOINTS?|HOSTS?|HOSTNAME|PROXY|SERVER|ADDR|ADDRESS)(_|$))"
	tests := []struct {
		name, keys, want string
	}{
		{"upper-case proxy", "HTTPS_PROXY", "safe_py_runner.env.allow_keys[0]: HTTPS_PROXY must never be set by the model " + proxy},
		{"lower-case proxy", "http_proxy", "safe_py_runner.env.allow_keys[0]: http_proxy must never be set by the model " + proxy},
		{"mixed-case proxy", "All_Proxy", "safe_py_runner.env.allow_keys[0]: All_Proxy must never be set by the model " + proxy},
		{"lower-case home", "home", "safe_py_runner.env.allow_keys[0]: home must never be set by the model (matches deny_keys ^(PATH|HOME|SHELL|IFS|ENV|BASH_ENV|CDPATH|PS4|TMPDIR|LANG|LC_.*|TZ)$)"},
		{"lower-case code loader", "pythonstartup", "safe_py_runner.env.allow_keys[0]: pythonstartup must never be set by the model (it changes what code runs)"},
		{"lower-case provider variable", "openai_base_url", "safe_py_runner.env.allow_keys[0]: openai_base_url must never be set by the model (lppctl's own provider variables never reach scripts)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := strings.Replace(string(base), "allow_keys: [NAME, VERBOSE]", "allow_keys: ["+tt.keys+"]", 1)
			_, err := ParsePolicy(strings.NewReader(s), "p.yaml")
			require.EqualError(t, err, "cannot load policy p.yaml: invalid policy: "+at(t, s, "allow_keys: [", 13)+tt.want)
		})
	}
}

func TestInheritedVariablesThatLookLikeCredentialsOrAreLppctlsAreRefused(t *testing.T) {
	base, err := os.ReadFile(policyFile)
	require.NoError(t, err)
	const credential = " must never pass to every script (it looks like a credential; give it to one skill's scripts with inherit_for)"
	const own = " must never pass to scripts (lppctl's own provider variables never reach scripts)"
	tests := []struct {
		name, inherit, inheritFor, want string
	}{
		{"a password without a word boundary", "PGPASSWORD", "", "safe_py_runner.env.inherit[0]: PGPASSWORD" + credential},
		{"a personal access token", "GITHUB_PAT", "", "safe_py_runner.env.inherit[0]: GITHUB_PAT" + credential},
		{"a token without a word boundary", "MYTOKEN", "", "safe_py_runner.env.inherit[0]: MYTOKEN" + credential},
		{"a secret key in one word", "SECRETKEY", "", "safe_py_runner.env.inherit[0]: SECRETKEY" + credential},
		{"headers carrying a token", "OTEL_EXPORTER_OTLP_HEADERS", "", "safe_py_runner.env.inherit[0]: OTEL_EXPORTER_OTLP_HEADERS" + credential},
		{"a numbered key", "OPENAI_API_KEY_2", "", "safe_py_runner.env.inherit[0]: OPENAI_API_KEY_2" + own},
		{"lppctl's own endpoint", "OPENAI_API_BASE", "", "safe_py_runner.env.inherit[0]: OPENAI_API_BASE" + own},
		{"lppctl's own setting", "LPPCTL_LLM", "", "safe_py_runner.env.inherit[0]: LPPCTL_LLM" + own},
		{"lppctl's own setting in lower case", "anthropic_base_url", "", "safe_py_runner.env.inherit[0]: anthropic_base_url" + own},
		{"lppctl's own setting for one skill", "", "LPPCTL_LLM", "safe_py_runner.env.inherit_for.skills/ects_skill[0]: LPPCTL_LLM" + own},
		{"a code loader for one skill, in lower case", "", "ld_preload", "safe_py_runner.env.inherit_for.skills/ects_skill[0]: ld_preload must never pass to scripts (it changes what code runs)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := string(base)
			var where string
			if tt.inherit != "" {
				s = strings.Replace(s, "inherit: [PATH, HOME, LANG, LC_ALL, LC_CTYPE, TZ, TMPDIR]", "inherit: ["+tt.inherit+", PATH, PWD, HOME]", 1)
				where = at(t, s, "inherit: [", 10)
			}
			if tt.inheritFor != "" {
				s = strings.Replace(s, "[TRANSCRIPT_API_URL, TRANSCRIPT_API_TOKEN]", "["+tt.inheritFor+", TRANSCRIPT_API_TOKEN]", 1)
				where = at(t, s, "["+tt.inheritFor, 1)
			}
			_, err := ParsePolicy(strings.NewReader(s), "p.yaml")
			require.EqualError(t, err, "cannot load policy p.yaml: invalid policy: "+where+tt.want)
		})
	}
}

// A skill's own token may pass to that skill's scripts (inherit_for), and
// ordinary names to every script.
func TestInheritKeepsOrdinaryNamesAndInheritForKeepsASkillsToken(t *testing.T) {
	base, err := os.ReadFile(policyFile)
	require.NoError(t, err)
	s := strings.Replace(string(base), "inherit: [PATH, HOME, LANG, LC_ALL, LC_CTYPE, TZ, TMPDIR]", "inherit: [PATH, PWD, HOME, GIT_AUTHOR_NAME, XDG_SESSION_ID]", 1)
	s = strings.Replace(s, "[TRANSCRIPT_API_URL, TRANSCRIPT_API_TOKEN]", "[TRANSCRIPT_API_URL, TRANSCRIPT_API_TOKEN, GITHUB_PAT]", 1)
	p, err := ParsePolicy(strings.NewReader(s), "p.yaml")
	require.NoError(t, err)
	require.Equal(t, []string{"PATH", "PWD", "HOME", "GIT_AUTHOR_NAME", "XDG_SESSION_ID"}, p.Runner.Env.Inherit)
	require.Equal(t, []string{"TRANSCRIPT_API_URL", "TRANSCRIPT_API_TOKEN", "GITHUB_PAT"}, p.Runner.Env.InheritFor["skills/ects_skill"])
}

// A parameter alias is a plain name that a call can use: one with a blank,
// an empty one, or one spelled like a key that names the sub-command or
// holds the parameters (which the call reads first) is a policy error.
func TestAPolicyAliasMustBeAPlainNameACallCanUse(t *testing.T) {
	base, err := os.ReadFile(policyFile)
	require.NoError(t, err)
	for _, tt := range []struct{ name, alias, want string }{
		{"a blank inside", "'fr om'", `p.yaml:167:11: safe_cli_executor.sub_commands.copy_file.params.src.aliases: "fr om" is not a parameter name (letters, digits and _, not starting with a digit)`},
		{"empty", "''", `p.yaml:167:11: safe_cli_executor.sub_commands.copy_file.params.src.aliases: "" is not a parameter name (letters, digits and _, not starting with a digit)`},
		{"a leading digit", "9x", `p.yaml:167:11: safe_cli_executor.sub_commands.copy_file.params.src.aliases: "9x" is not a parameter name (letters, digits and _, not starting with a digit)`},
		{"the parameters object", "params", `p.yaml:167:11: safe_cli_executor.sub_commands.copy_file.params.src.aliases: "params" names the sub-command or the parameters object in a call, not a parameter`},
		{"the sub-command", "tool_name", `p.yaml:167:11: safe_cli_executor.sub_commands.copy_file.params.src.aliases: "tool_name" names the sub-command or the parameters object in a call, not a parameter`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := strings.Replace(string(base), "aliases: [source, from]", "aliases: [source, "+tt.alias+"]", 1)
			_, err := ParsePolicy(strings.NewReader(s), "p.yaml")
			require.Error(t, err)
			assert.Equal(t, "cannot load policy p.yaml: invalid policy: "+tt.want, err.Error())
		})
	}
}

// A script directory whose scripts hidden_paths hides could never run a
// script (the runner refuses a hidden one): the policy contradicts itself.
func TestAScriptDirectoryThatHiddenPathsHidesIsAPolicyError(t *testing.T) {
	base, err := os.ReadFile(policyFile)
	require.NoError(t, err)
	for _, tt := range []struct{ name, from, to, want string }{
		{"a hidden directory as a script directory", "    - scripts\n", "    - scripts\n    - .git\n",
			`p.yaml:203:7: safe_py_runner.script_dirs[1]: the scripts in ".git" match the hidden path pattern ".git" (hidden_paths), so none of them could run; remove the directory from script_dirs or narrow the pattern`},
		{"a pattern naming the directory", "  - .ssh\n", "  - .ssh\n  - Scripts\n",
			`p.yaml:203:7: safe_py_runner.script_dirs[0]: the scripts in "scripts" match the hidden path pattern "Scripts" (hidden_paths), so none of them could run; remove the directory from script_dirs or narrow the pattern`},
		{"a pattern hiding every script", "  - .ssh\n", "  - .ssh\n  - '*.py'\n",
			"2 problems:\n" +
				`  p.yaml:203:7: safe_py_runner.script_dirs[0]: the scripts in "scripts" match the hidden path pattern "*.py" (hidden_paths), so none of them could run; remove the directory from script_dirs or narrow the pattern` + "\n" +
				`  p.yaml:204:7: safe_py_runner.script_dirs[1]: the scripts in "skills/*" match the hidden path pattern "*.py" (hidden_paths), so none of them could run; remove the directory from script_dirs or narrow the pattern`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			require.Contains(t, string(base), tt.from)
			s := strings.Replace(string(base), tt.from, tt.to, 1)
			_, err := ParsePolicy(strings.NewReader(s), "p.yaml")
			require.Error(t, err)
			assert.Equal(t, "cannot load policy p.yaml: invalid policy: "+tt.want, err.Error())
		})
	}
	// A pattern hiding some scripts only is the operator's choice.
	s := strings.Replace(string(base), "  - .ssh\n", "  - .ssh\n  - 'scripts/write_*.py'\n  - skills/secret\n  - '?'\n  - '[*]'\n", 1)
	_, err = ParsePolicy(strings.NewReader(s), "p.yaml")
	require.NoError(t, err)
}

// A required parameter given without a value ("path:") is one problem, said
// once, where it is; one left out entirely is missing.
func TestARequiredParameterGivenEmptyIsReportedOnce(t *testing.T) {
	base, err := os.ReadFile(policyFile)
	require.NoError(t, err)
	const entry = "        path:\n          description: file to read, relative to the project root\n          pattern: '^[\\p{L}\\p{M}\\p{N}_. @+=,#\\-/\\\\]+$'\n          aliases: [file, filename, file_path]\n"
	require.Contains(t, string(base), entry)
	_, err = ParsePolicy(strings.NewReader(strings.Replace(string(base), entry, "        path:\n", 1)), "p.yaml")
	require.Error(t, err)
	assert.Equal(t, "cannot load policy p.yaml: invalid policy: p.yaml:136:9: safe_cli_executor.sub_commands.read_file.params.path: empty", err.Error())

	_, err = ParsePolicy(strings.NewReader(strings.Replace(string(base), "      params:\n"+entry, "", 1)), "p.yaml")
	require.Error(t, err)
	assert.Equal(t, "cannot load policy p.yaml: invalid policy: safe_cli_executor.sub_commands.read_file.params.path: missing (required by read_file)", err.Error())
}
