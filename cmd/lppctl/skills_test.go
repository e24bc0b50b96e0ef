package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/skills"
)

// lppctl runs the CLI in-process and returns its exit code, stdout and stderr.
func lppctl(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"lppctl"}, args...), strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestSkillsCommands(t *testing.T) {
	lib := filepath.Join(t.TempDir(), "lib", "skills.json")
	steps := []struct {
		name     string
		args     []string
		code     int
		stdout   string // exact unless empty
		noStdout bool   // stdout must be empty
		contains string // substring of stdout
		stderr   string // exact
	}{
		{name: "list empty", args: []string{"skills", "list", "--library", lib}, stdout: "no skills in " + lib + "\n"},
		{name: "list empty as JSON", args: []string{"skills", "list", "--json", "--library", lib}, noStdout: true},
		{name: "search empty", args: []string{"skills", "search", "--library", lib, "anything"}, stdout: "no skills in " + lib + "\n"},
		{name: "search empty as JSON", args: []string{"skills", "search", "--json", "--library", lib, "anything"}, noStdout: true},
		{name: "add", args: []string{"skills", "add", "--library", lib, "--principle", "Retry transient errors with backoff.", "--when-to-apply", "HTTP 429 or 5xx.", "retry_with_backoff"},
			stdout: "added skill retry_with_backoff\n"},
		{name: "add another", args: []string{"skills", "add", "-l", lib, "-p", "Check every output file exists.", "-w", "Before reporting success.", "verify_output_paths"},
			stdout: "added skill verify_output_paths\n"},
		{name: "list", args: []string{"skills", "list", "--library", lib}, stdout: `retry_with_backoff
  principle:     Retry transient errors with backoff.
  when to apply: HTTP 429 or 5xx.
  used 0 times; created at iteration 0, last used at iteration 0
verify_output_paths
  principle:     Check every output file exists.
  when to apply: Before reporting success.
  used 0 times; created at iteration 0, last used at iteration 0
`},
		{name: "search", args: []string{"skills", "search", "--library", lib, "-k", "1", "output", "file"},
			stdout: "1. verify_output_paths (score 1.740)\n   principle:     Check every output file exists.\n   when to apply: Before reporting success.\n"},
		{name: "search as JSON", args: []string{"skills", "search", "--library", lib, "--json", "-k", "5", "backoff"}, contains: `{"name":"retry_with_backoff","principle":"Retry transient errors with backoff.","when_to_apply":"HTTP 429 or 5xx.","created_iteration":0,"last_used_iteration":0,"usage_count":1,"score":1.109`}, // the only hit: verify_output_paths shares no word with the query
		{name: "search matching nothing", args: []string{"skills", "search", "--library", lib, "kubernetes"}, stdout: "no skill in " + lib + " shares a word with the query\n"},
		{name: "search matching nothing as JSON", args: []string{"skills", "search", "--library", lib, "--json", "kubernetes"}, noStdout: true},
		{name: "usage recorded for hits only", args: []string{"skills", "list", "--json", "--library", lib}, contains: `{"name":"verify_output_paths","principle":"Check every output file exists.","when_to_apply":"Before reporting success.","created_iteration":0,"last_used_iteration":0,"usage_count":1}
`},
		{name: "update", args: []string{"skills", "update", "--library", lib, "--rename", "check_outputs", "verify_output_paths"}, stdout: "updated skill check_outputs\n"},
		{name: "update as JSON", args: []string{"skills", "update", "--library", lib, "--json", "-w", "At the end of every step.", "check_outputs"}, contains: `"when_to_apply": "At the end of every step."`},
		{name: "remove", args: []string{"skills", "remove", "--library", lib, "retry_with_backoff"}, stdout: "removed skill retry_with_backoff\n"},
		{name: "remove unknown", args: []string{"skills", "remove", "--library", lib, "retry_with_backoff"}, code: 1,
			stderr: "lppctl: cannot remove skill \"retry_with_backoff\": not found\n"},
		{name: "update unknown", args: []string{"skills", "update", "--library", lib, "-p", "x", "ghost"}, code: 1,
			stderr: "lppctl: cannot update skill \"ghost\": not found\n"},
		{name: "update without changes", args: []string{"skills", "update", "--library", lib, "check_outputs"}, code: 2,
			stderr: "lppctl: skills update: nothing to change: give --rename, --principle or --when-to-apply\n"},
		{name: "add invalid name", args: []string{"skills", "add", "--library", lib, "-p", "p", "-w", "w", "bad\tname"}, code: 2,
			stderr: "lppctl: cannot add skill: skill name \"bad\\tname\" contains the control character U+0009: invalid\n"},
		{name: "add without principle", args: []string{"skills", "add", "--library", lib, "-w", "w", "x"}, code: 2,
			stderr: "lppctl: lppctl skills add needs flag --principle (lppctl skills add --help)\n"},
		{name: "flag after arguments", args: []string{"skills", "search", "--library", lib, "backoff", "-k", "2"}, code: 0},
		// After "--", "-k" is the query (it was refused as "flag -k after
		// the arguments"), and a name starting with "-" (valid, e.g. added
		// over MCP) can be added and removed.
		{name: "flag-like argument after --", args: []string{"skills", "search", "--library", lib, "--json", "--", "-k"}, code: 0, noStdout: true},
		{name: "add a name starting with -", args: []string{"skills", "add", "--library", lib, "-p", "p", "-w", "w", "--", "-dash"}, code: 0},
		{name: "remove a name starting with -", args: []string{"skills", "remove", "--library", lib, "--", "-dash"}, code: 0},
		{name: "two names", args: []string{"skills", "remove", "--library", lib, "a", "b"}, code: 2,
			stderr: "lppctl: skills remove takes one NAME, got 2 arguments\n"},
		{name: "search without query", args: []string{"skills", "search", "--library", lib}, code: 2,
			stderr: "lppctl: skills search needs a QUERY\n"},
		{name: "bad k", args: []string{"skills", "search", "--library", lib, "-k", "0", "x"}, code: 2,
			stderr: "lppctl: -k must be at least 1, got 0\n"},
		{name: "unknown embeddings provider", args: []string{"skills", "search", "--library", lib, "--embeddings", "cohere", "x"}, code: 2,
			stderr: "lppctl: cannot configure embeddings: unknown provider \"cohere\" (want openai[:model], ollama[:model] or none): invalid\n"},
	}
	for _, st := range steps {
		code, stdout, stderr := lppctl(t, "", st.args...)
		if code != st.code || stderr != st.stderr {
			t.Errorf("%s: exit %d, stderr %q; want %d, %q", st.name, code, stderr, st.code, st.stderr)
		}
		if st.stdout != "" && stdout != st.stdout {
			t.Errorf("%s: stdout\n%s\nwant\n%s", st.name, stdout, st.stdout)
		}
		if st.noStdout && stdout != "" {
			t.Errorf("%s: stdout\n%s\nwant none", st.name, stdout)
		}
		if st.contains != "" && !strings.Contains(stdout, st.contains) {
			t.Errorf("%s: stdout %s lacks %s", st.name, stdout, st.contains)
		}
	}
}

func TestSkillsLibraryFromEnvironment(t *testing.T) {
	lib := filepath.Join(t.TempDir(), "env.json")
	t.Setenv("LPPCTL_SKILLS", lib)
	if code, _, stderr := lppctl(t, "", "skills", "add", "-p", "p", "-w", "w", "from_env"); code != 0 {
		t.Fatalf("add: %d %s", code, stderr)
	}
	code, stdout, _ := lppctl(t, "", "skills", "list", "--json", "--library", lib)
	if list := decodeJSONLines[skills.Skill](t, stdout); code != 0 || len(list) != 1 || list[0].Name != "from_env" {
		t.Errorf("list = %d %s", code, stdout)
	}
}

// The skills commands and mcp serve find the project root upwards, as run
// does: in a subfolder of the project they work on the library the agent
// reads (ROOT/.lppctl/skills.json), never on a new one in the subfolder.
func TestSkillsCommandsInASubfolderUseTheProjectsLibrary(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "skills", "mine")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "config"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "config", "tools_config.yaml"), []byte("version: 1\n"), 0o644))
	t.Chdir(sub)

	code, stdout, stderr := lppctl(t, "", "skills", "list")
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, "no skills in ../../.lppctl/skills.json\n", stdout)

	code, stdout, stderr = lppctl(t, "", "skills", "add", "-p", "Greet people by name.", "-w", "When greeting.", "greet_by_name")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "added skill greet_by_name\n", stdout)
	assert.NoDirExists(t, filepath.Join(sub, ".lppctl"))
	lib, err := skills.Open(filepath.Join(root, ".lppctl", "skills.json"))
	require.NoError(t, err)
	_, err = lib.Get("greet_by_name")
	require.NoError(t, err, "the skill is in the project's library")

	code, stdout, _ = lppctl(t, "", "skills", "search", "-k", "1", "greet")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, "1. greet_by_name")

	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_skills","arguments":{}}}` + "\n"
	code, stdout, stderr = lppctl(t, in, "mcp", "serve")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, `greet_by_name`, "mcp serve lists the project's library")

	code, stdout, _ = lppctl(t, "", "skills", "list", "--library", "here.json")
	assert.Equal(t, 0, code)
	assert.Equal(t, "no skills in here.json\n", stdout, "--library is taken as given")
}
