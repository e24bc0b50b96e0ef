package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAFileOrRunThatDoesNotExistIsAUsageError: the README's exit code table
// (2: a spec file that does not exist) holds for every command, and an
// unknown run ID (or a prefix of several) is the same kind of mistake.
func TestAFileOrRunThatDoesNotExistIsAUsageError(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "runs")
	spec := filepath.Join(tmp, "count.yaml")
	require.NoError(t, os.WriteFile(spec, []byte(countSpec), 0o644))
	for i := 0; i < 2; i++ {
		code, _, errOut := lppctlCLI(t, "run", "-q", "--run-dir", dir, spec)
		require.Equal(t, exitOK, code, errOut)
	}
	missing := filepath.Join(tmp, "nope.yaml")
	tests := []struct {
		name string
		args []string
		want string // the error's beginning
	}{
		{"validate", []string{"validate", missing}, "lppctl: cannot read spec: open "},
		{"check", []string{"check", missing}, "lppctl: cannot read spec: open "},
		{"export", []string{"export", missing}, "lppctl: cannot read spec: open "},
		{"run", []string{"run", missing}, "lppctl: cannot read spec: open "},
		{"resume", []string{"resume", "--run-dir", dir, "nope"}, `lppctl: cannot open run "nope": no such run in `},
		{"runs show", []string{"runs", "show", "--run-dir", dir, "nope"}, `lppctl: cannot open run "nope": no such run in `},
		{"runs trace", []string{"runs", "trace", "--run-dir", dir, "nope"}, `lppctl: cannot open run "nope": no such run in `},
		{"export --run", []string{"export", "--run-dir", dir, "--run", "nope"}, `lppctl: cannot open run "nope": no such run in `},
		{"a prefix of two runs", []string{"runs", "show", "--run-dir", dir, "2"}, `lppctl: cannot open run "2": the prefix matches 2 runs: `},
		{"import lpp", []string{"import", "lpp", missing}, "lppctl: cannot read blueprint: open "},
		{"an unknown subcommand", []string{"skills", "nope"}, `lppctl: unknown skills subcommand "nope": use install, list, add, update, remove, search or stats` + "\n"},
		{"an unknown runs subcommand", []string{"runs", "--run-dir", dir, "nope"}, `lppctl: unknown runs subcommand "nope": use show, trace, cancel or fork` + "\n"},
		{"a command of subcommands alone", []string{"mcp"}, "USAGE:\n   lppctl mcp"},
		{"a required flag left out", []string{"runs", "fork", "--run-dir", dir, "x"}, "lppctl: lppctl runs fork needs flag --step (lppctl runs fork --help)\n"},
		{"two required flags left out", []string{"skills", "add", "x"}, "lppctl: lppctl skills add needs flags --principle and --when-to-apply (lppctl skills add --help)\n"},
		{"version with an argument", []string{"version", "x"}, "lppctl: version takes no arguments: lppctl version\n"},
		{"run --llm of no provider, in a spec that calls no model", []string{"run", "--run-dir", dir, "--llm", "bogus", spec}, `lppctl: cannot use LLM "bogus" (from --llm): unknown provider "bogus"; `},
		{"run --llm of a script that does not exist, in a spec that calls no model", []string{"run", "--run-dir", dir, "--llm", "script:" + missing, spec}, "lppctl: cannot load LLM script: open " + missing},
		{"run --root", []string{"run", "--root", filepath.Join(tmp, "nowhere"), spec}, "lppctl: --root " + filepath.Join(tmp, "nowhere") + ": no such folder; give the project's folder (the one holding specs/ and config/), or leave --root out for the current one\n"},
		{"validate --root", []string{"validate", "--root", filepath.Join(tmp, "nowhere"), spec}, "lppctl: --root " + filepath.Join(tmp, "nowhere") + ": no such folder"},
		{"validate --root a file", []string{"validate", "--root", spec, spec}, "lppctl: --root " + spec + ": not a folder; give the project's folder (the one holding specs/ and config/)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := lppctlCLI(t, tt.args...)
			assert.Equal(t, exitUsage, code, errOut)
			assert.Contains(t, errOut, tt.want)
		})
	}
}

func TestHelpAfterArgumentsAndGlobalFlagsBeforeTheCommand(t *testing.T) {
	t.Parallel()
	code, out, errOut := lppctlCLI(t, "import", "lpp", "--help")
	assert.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "lppctl import [command options] lpp BLUEPRINT.json")

	spec := filepath.Join(t.TempDir(), "count.yaml")
	require.NoError(t, os.WriteFile(spec, []byte(countSpec), 0o644))
	code, out, errOut = lppctlCLI(t, "--log-level", "debug", "run", spec, "-q", "--run-dir", filepath.Join(filepath.Dir(spec), "runs"))
	assert.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "completed in done after 5 steps\n", out)
}

// TestAValidSpecLPlusPlusCannotSayFailsItsExportNotAsInvalid: export
// --format lpp of a valid spec that L++ has no way to write (an action on
// entering a state) fails the command (exit 1); 3 is for an invalid spec,
// and validate accepts this one.
func TestAValidSpecLPlusPlusCannotSayFailsItsExportNotAsInvalid(t *testing.T) {
	t.Parallel()
	spec := filepath.Join(t.TempDir(), "entering.yaml")
	require.NoError(t, os.WriteFile(spec, []byte("lpp: 1\nname: entering\ninitial: a\nstates:\n  a:\n    do: log\n    with: {message: hi}\n    next: done\n  done: {final: true}\n"), 0o644))
	code, _, errOut := lppctlCLI(t, "validate", spec)
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = lppctlCLI(t, "export", "--format", "lpp", spec)
	assert.Equal(t, exitFailed, code, errOut)
	assert.Contains(t, errOut, `cannot write state "a" as L++: it runs log on entering; L++ runs actions on transitions`)
}
