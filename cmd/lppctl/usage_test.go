package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/urfave/cli/v2"
)

// What a new user meets first: no arguments, --version, a wrong flag, a
// missing file, a bad number.
func TestUsageErrors(t *testing.T) {
	spec := writeSpec(t, "lpp: 1\nname: s\ninitial: a\nstates:\n  a: {next: done}\n  done: {final: true}\n")
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string // a regexp, "" for none
		stderr string // a regexp
	}{
		{"no arguments print the help on stderr", nil, exitUsage, "", `(?s)^NAME:\n   lppctl - run LLM agents.*USAGE:\n   lppctl \[global options\] command \[command options\].*COMMANDS:.*   run .*GLOBAL OPTIONS:.*--version.*\n$`},
		{"--version prints the version", []string{"--version"}, exitOK, `^lppctl dev \(.*go1\.\d+.*, \w+/\w+\)\n$`, `^$`},
		{"an unknown flag of a command gives its usage line", []string{"run", "--frob", spec}, exitUsage, "",
			`^lppctl: unknown flag --frob\nusage: lppctl run \[command options\] \[SPEC\] \(lppctl run --help for more\)\n$`},
		{"an unknown flag of a subcommand", []string{"runs", "show", "-z"}, exitUsage, "",
			`^lppctl: unknown flag -z\nusage: lppctl runs show \[command options\] RUN_ID \(lppctl runs show --help for more\)\n$`},
		{"an unknown global flag", []string{"--frob"}, exitUsage, "",
			`^lppctl: unknown flag --frob\nusage: lppctl \[global options\] command \[command options\] \(lppctl --help for more\)\n$`},
		{"a flag without its value", []string{"run", "--spec"}, exitUsage, "",
			`^lppctl: flag --spec needs a value\nusage: lppctl run \[command options\] \[SPEC\] \(lppctl run --help for more\)\n$`},
		{"a flag with a bad value", []string{"run", "--max-transitions", "x", spec}, exitUsage, "",
			`^lppctl: invalid value "x" for flag --max-transitions: parse error\nusage: lppctl run `},
		{"a negative --max-transitions", []string{"run", "--max-transitions", "-5", spec}, exitUsage, "",
			`^lppctl: --max-transitions -5: give a number of transitions above 0 \(leave it out for the spec's limits.max_transitions, else 10000\)\n$`},
		{"a negative --max-transitions on resume", []string{"resume", "--max-transitions", "-1", "RUN"}, exitUsage, "",
			`^lppctl: --max-transitions -1: give a number of transitions above 0 `},
		{"run: a spec file that does not exist", []string{"run", "missing.yaml"}, exitUsage, "",
			`^lppctl: cannot read spec: open missing.yaml: no such file or directory\n$`},
		{"validate: a spec file that does not exist", []string{"validate", spec, "missing.yaml"}, exitUsage, `: ok\n$`,
			`^lppctl: cannot read spec: open missing.yaml: no such file or directory\n$`},
		{"worker: --segment-values 0", []string{"worker", "--temporal", "127.0.0.1:1", "--segment-values", "0"}, exitUsage, "",
			`^lppctl: --segment-values 0: give a size in MB of 1 or more\n$`},
		{"completion for an unknown shell", []string{"completion", "tcsh"}, exitUsage, "", `^lppctl: cannot complete for shell "tcsh": give bash, zsh or fish\n$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			code, out, errOut := runCLI(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out, errOut)
			}
			if tc.stdout == "" && out != "" || tc.stdout != "" && !regexp.MustCompile(tc.stdout).MatchString(out) {
				t.Errorf("stdout:\n%s\nwant it to match %s", out, tc.stdout)
			}
			if !regexp.MustCompile(tc.stderr).MatchString(errOut) {
				t.Errorf("stderr:\n%s\nwant it to match %s", errOut, tc.stderr)
			}
		})
	}
}

// TestHelpFitsIn100Columns reads the help of every command and subcommand.
func TestHelpFitsIn100Columns(t *testing.T) {
	var paths [][]string
	var walk func(prefix []string, cmds []*cli.Command)
	walk = func(prefix []string, cmds []*cli.Command) {
		for _, c := range cmds {
			p := append(append([]string(nil), prefix...), c.Name)
			paths = append(paths, p)
			walk(p, c.Subcommands)
		}
	}
	walk(nil, commands())
	paths = append(paths, nil) // lppctl --help
	if len(paths) < 20 {
		t.Fatalf("only %d commands found", len(paths))
	}
	for _, p := range paths {
		code, out, errOut := runCLI(t, append(p, "--help")...)
		if code != exitOK || out == "" {
			t.Errorf("lppctl %s --help: exit %d\n%s%s", strings.Join(p, " "), code, out, errOut)
			continue
		}
		for i, line := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(line); n > helpWidth {
				t.Errorf("lppctl %s --help, line %d is %d columns wide (at most %d):\n%s", strings.Join(p, " "), i+1, n, helpWidth, line)
			}
		}
	}
}

func TestWrapFlagHelp(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"--yes, -y\tapprove the plan (default: false)", "--yes, -y\tapprove the plan"},
		{"--var NAME=VALUE [ --var NAME=VALUE ]\toverride one", "--var NAME=VALUE\toverride one"},
		{"--x N\t" + strings.Repeat("word ", 12) + "end", "--x N\t" + strings.TrimSpace(strings.Repeat("word ", 11)) + "\n\tword end"},
		{"no tab", "no tab"},
	} {
		if got := wrapFlagHelp(tc.in); got != tc.want {
			t.Errorf("wrapFlagHelp(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestVersionString(t *testing.T) {
	for _, tc := range []struct {
		name, linked string
		bi           *debug.BuildInfo
		want         string
	}{
		{"go install module@version", "dev", &debug.BuildInfo{Main: debug.Module{Path: "github.com/lppctl/lppctl", Version: "v1.2.3"}}, "v1.2.3"},
		{"go build in a checkout", "dev", &debug.BuildInfo{Main: debug.Module{Path: "github.com/lppctl/lppctl", Version: "(devel)"}}, "dev"},
		{"set at link time", "v2.0.0", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v2.0.0"},
		{"no build information", "dev", nil, "dev"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := versionFrom(tc.linked, tc.bi); got != tc.want {
				t.Errorf("versionFrom = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCompletionScripts loads the bash script into a real bash and asks it
// to complete, with the built lppctl on PATH; zsh and fish are checked for
// what they call.
func TestCompletionScripts(t *testing.T) {
	for shell, want := range map[string]string{"bash": "complete -o bashdefault -o default -F _lppctl_complete lppctl\n", "zsh": "compdef _lppctl_complete lppctl\n", "fish": "complete -c lppctl -n '__fish_lppctl_no_subcommand' -f -l version"} {
		code, out, errOut := runCLI(t, "completion", shell)
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("completion %s: exit %d, %s\n%s\nwant it to contain %q", shell, code, errOut, out, want)
		}
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	bin := buildLppctl(t)
	for _, tc := range []struct{ line, want string }{
		{"lppctl ru", "run runs"},
		{"lppctl run --sk", "--skill --skills-library"},
		{"lppctl runs t", "trace"},
		{"lppctl compl", "completion"},
	} {
		words := strings.Fields(tc.line)
		script := `source <(lppctl completion bash)
COMP_WORDS=(` + tc.line + `); COMP_CWORD=` + string(rune('0'+len(words)-1)) + `
_lppctl_complete
echo "${COMPREPLY[*]}"`
		cmd := exec.Command(bash, "--norc", "-c", script)
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != tc.want {
			t.Errorf("completing %q: %q, %v; want %q", tc.line, out, err, tc.want)
		}
	}
}

// TestManPage renders the manual page with groff, which must not warn.
func TestManPage(t *testing.T) {
	code, out, errOut := runCLI(t, "man")
	if code != exitOK || !strings.HasPrefix(out, ".nh\n.TH lppctl 1") {
		t.Fatalf("man: exit %d, %s\n%.200s", code, errOut, out)
	}
	for _, want := range []string{"\n.SH COMMANDS\n", "\n.SH run\n", "\n.SS serve\n", "--max-transitions", "\n.SH completion\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the manual page lacks %q", want)
		}
	}
	groff, err := exec.LookPath("groff")
	if err != nil {
		t.Skip("no groff")
	}
	cmd := exec.Command(groff, "-man", "-Tutf8", "-ww", "-z")
	cmd.Stdin = strings.NewReader(out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Errorf("groff: %v\n%s", err, stderr.String())
	}
}
