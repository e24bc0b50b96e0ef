package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRunnerSeedCases(t *testing.T) {
	sb := newSandbox(t)
	tests := []struct {
		name string
		args map[string]any
		rule string
		text string
	}{
		{"a traversal as script", map[string]any{"script_name": "../../etc/passwd"}, rulePathTraversal,
			`[SECURITY BLOCKED] path-traversal: script_name "../../etc/passwd" contains ".."; paths must stay inside the project root`},
		{"a shell script", map[string]any{"script_name": "script.sh"}, ruleScriptExt,
			`[SECURITY BLOCKED] script-extension: script_name "script.sh" is not a .py file; only Python scripts run`},
		{"a script outside the script directories", map[string]any{"script_name": "scripts_evil/x.py"}, ruleScriptLocation,
			`[SECURITY BLOCKED] script-location: script_name "scripts_evil/x.py" is outside the script directories (scripts, skills/*: safe_py_runner.script_dirs in the policy)`},
		{"an arg with a command substitution", map[string]any{"script_name": "scripts/echo.py", "args": []any{"$(id)"}}, ruleArgPattern, ""},
		{"an arg with a semicolon", map[string]any{"script_name": "scripts/echo.py", "args": []any{"a; rm x"}}, ruleArgPattern, ""},
		{"an arg with a backtick", map[string]any{"script_name": "scripts/echo.py", "args": []any{"`id`"}}, ruleArgPattern, ""},
		{"an arg with a pipe", map[string]any{"script_name": "scripts/echo.py", "args": []any{"a|b"}}, ruleArgPattern, ""},
		{"an arg with a newline", map[string]any{"script_name": "scripts/echo.py", "args": []any{"a\nb"}}, ruleArgPattern, ""},
		{"an arg with rm -rf", map[string]any{"script_name": "scripts/echo.py", "args": []any{"rm", "-rf", "/"}}, "blocked-pattern:rm-recursive", ""},
		{"an arg that climbs out", map[string]any{"script_name": "scripts/echo.py", "args": []any{"../outside/canary.txt"}}, ruleArgPath,
			`[SECURITY BLOCKED] arg-path: args[0] "../outside/canary.txt" contains ".."; paths must stay inside the project root`},
		{"an absolute arg", map[string]any{"script_name": "scripts/echo.py", "args": []any{"/etc/passwd"}}, ruleArgPath, ""},
		{"too many args", map[string]any{"script_name": "scripts/echo.py", "args": strings.Fields(strings.Repeat("a ", 33))}, ruleTooManyArgs,
			`[SECURITY BLOCKED] too-many-args: 33 args given (limit 32: safe_py_runner.max_args in the policy)`},
		{"an API key as env", map[string]any{"script_name": "scripts/echo.py", "env_vars": map[string]any{"OPENAI_API_KEY": "x"}}, ruleEnvKey, ""},
		{"PYTHONPATH as env", map[string]any{"script_name": "scripts/echo.py", "env_vars": map[string]any{"PYTHONPATH": "/tmp"}}, ruleEnvKey,
			`[SECURITY BLOCKED] env-key: env_vars key "PYTHONPATH" is not allowed; the model may set only NAME, VERBOSE (safe_py_runner.env.allow_keys); pass other values as script args`},
		{"LD_PRELOAD as env", map[string]any{"script_name": "scripts/echo.py", "env_vars": map[string]any{"LD_PRELOAD": "/tmp/x.so"}}, ruleEnvKey, ""},
		{"PATH as env", map[string]any{"script_name": "scripts/echo.py", "env_vars": map[string]any{"PATH": "/tmp"}}, ruleEnvKey, ""},
		{"a lower-case env key", map[string]any{"script_name": "scripts/echo.py", "env_vars": map[string]any{"name": "x"}}, ruleEnvKey,
			`[SECURITY BLOCKED] env-key: env_vars key "name" is not allowed; the model may set only NAME, VERBOSE (safe_py_runner.env.allow_keys); pass other values as script args`},
		{"an env key with a space", map[string]any{"script_name": "scripts/echo.py", "env_vars": map[string]any{"A B": "x"}}, ruleEnvKey, ""},
		{"an env key with =", map[string]any{"script_name": "scripts/echo.py", "env_vars": []any{"NAME=B=C"}}, "", ""},
		{"a token as env", map[string]any{"script_name": "scripts/echo.py", "env_vars": map[string]any{"GITHUB_TOKEN": "x"}}, ruleEnvKey, ""},
		{"an env value with a newline", map[string]any{"script_name": "scripts/echo.py", "env_vars": map[string]any{"NAME": "a\nb"}}, ruleEnvValue, ""},
		{"an env value with a blocked pattern", map[string]any{"script_name": "scripts/echo.py", "env_vars": map[string]any{"NAME": "x; mkfs /dev/sda"}}, "blocked-pattern:mkfs", ""},
		{"GCONV_PATH as env (glibc loads modules from it)", map[string]any{"script_name": "scripts/echo.py", "env_vars": map[string]any{"GCONV_PATH": "out"}}, ruleEnvKey,
			`[SECURITY BLOCKED] env-key: env_vars key "GCONV_PATH" is not allowed; the model may set only NAME, VERBOSE (safe_py_runner.env.allow_keys); pass other values as script args`},
		{"OPENSSL_CONF as env (can load engines)", map[string]any{"script_name": "scripts/echo.py", "env_vars": map[string]any{"OPENSSL_CONF": "out/x.cnf"}}, ruleEnvKey, ""},
		{"GLIBC_TUNABLES as env", map[string]any{"script_name": "scripts/echo.py", "env_vars": map[string]any{"GLIBC_TUNABLES": "x"}}, ruleEnvKey, ""},
		{"TEMP as env", map[string]any{"script_name": "scripts/echo.py", "env_vars": map[string]any{"TEMP": "scripts"}}, ruleEnvKey, ""},
		{"an endpoint a script sends its token to", map[string]any{"script_name": "scripts/echo.py", "env_vars": map[string]any{"TRANSCRIPT_API_URL": "http://e.vil/"}}, ruleEnvKey,
			`[SECURITY BLOCKED] env-key: env_vars key "TRANSCRIPT_API_URL" comes from lppctl's own environment for the scripts under skills/ects_skill (safe_py_runner.env.inherit_for); the model cannot override it`},
		{"a proxy", map[string]any{"script_name": "scripts/echo.py", "env_vars": map[string]any{"HTTPS_PROXY": "http://e.vil:8080"}}, ruleEnvKey, ""},
		{"a host", map[string]any{"script_name": "scripts/echo.py", "env_vars": map[string]any{"DB_HOST": "e.vil"}}, ruleEnvKey, ""},
		// Names no deny pattern ever listed: refused because they are not on the allow-list.
		{"SSLKEYLOGFILE as env (Python appends TLS secrets to that file)", map[string]any{"script_name": "scripts/echo.py", "env_vars": map[string]any{"SSLKEYLOGFILE": "config/tools_config.yaml"}}, ruleEnvKey,
			`[SECURITY BLOCKED] env-key: env_vars key "SSLKEYLOGFILE" is not allowed; the model may set only NAME, VERBOSE (safe_py_runner.env.allow_keys); pass other values as script args`},
		{"PYTHONSTARTUP as env", map[string]any{"script_name": "scripts/echo.py", "env_vars": map[string]any{"PYTHONSTARTUP": "output/x.py"}}, ruleEnvKey, ""},
		{"a library hook no one listed", map[string]any{"script_name": "scripts/echo.py", "env_vars": map[string]any{"NODE_OPTIONS": "--require x"}}, ruleEnvKey, ""},
		{"an unremarkable name not on the allow-list", map[string]any{"script_name": "scripts/echo.py", "env_vars": map[string]any{"GREETING": "hi"}}, ruleEnvKey, ""},
		{"a name on the allow-list", map[string]any{"script_name": "scripts/echo.py", "env_vars": map[string]any{"VERBOSE": "1"}}, "", ""},
		{"a gateway-set env key", map[string]any{"script_name": "scripts/echo.py", "env_vars": map[string]any{"PYTHONIOENCODING": "latin1"}}, ruleEnvKey, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := sb.run(tt.args)
			checkInvariant(t, res)
			if res.Rule != tt.rule {
				t.Fatalf("res = %+v, want rule %q", res, tt.rule)
			}
			if tt.text != "" && res.Text != tt.text {
				t.Errorf("got  %q\nwant %q", res.Text, tt.text)
			}
		})
	}
}

func TestRunnerRefusesScriptsWithBlockedSource(t *testing.T) {
	sb := newSandbox(t)
	for name, src := range map[string]string{
		"os-system":            "import os\nos.system('id')\n",
		"subprocess":           "import subprocess\n",
		"python-eval":          "print(eval('1+1'))\n",
		"python-exec":          "exec('x=1')\n",
		"python-dunder-import": "__import__('os')\n",
		"multiprocessing":      "import multiprocessing\n",
	} {
		t.Run(name, func(t *testing.T) {
			sb.write(t, "scripts/bad_"+name+".py", src)
			res := sb.run(map[string]any{"script_name": "scripts/bad_" + name + ".py"})
			if res.Rule != "blocked-pattern:"+name || !strings.HasPrefix(res.Text, "[SECURITY BLOCKED] blocked-pattern:"+name+": script scripts/bad_"+name+".py matches") {
				t.Fatalf("res = %+v", res)
			}
		})
	}
}

func TestRunnerResolvesScriptLinks(t *testing.T) {
	needPython(t)
	sb := newSandbox(t)
	sb.symlink(t, "../skills/hello/scripts/greet.py", "scripts/greet.py") // inside, to a script: fine
	sb.write(t, "docs/x.py", "print('ran')\n")
	sb.symlink(t, "../docs/x.py", "scripts/docs.py")          // inside, to a non-script place
	sb.symlink(t, "../../outside/evil.py", "scripts/evil.py") // out
	sb.symlink(t, "../../outside", "scripts/out")             // a directory link out
	sb.symlink(t, "../docs/readme.md", "scripts/readme.py")   // a .py link to a .md file
	tests := []struct {
		script, rule, text string
	}{
		{"scripts/greet.py", "", "hello nobody"},
		{"scripts/docs.py", ruleScriptLocation, `[SECURITY BLOCKED] script-location: script_name "scripts/docs.py" resolves to "docs/x.py", which is outside the script directories (scripts, skills/*: safe_py_runner.script_dirs in the policy)`},
		{"scripts/evil.py", ruleSymlinkEscape, `[SECURITY BLOCKED] symlink-escape: script_name "scripts/evil.py" goes through a symbolic link that leaves the project root`},
		{"scripts/out/evil.py", ruleSymlinkEscape, ""},
		{"scripts/readme.py", ruleScriptExt, `[SECURITY BLOCKED] script-extension: script_name "scripts/readme.py" resolves to "docs/readme.md", which is not a .py file; only Python scripts run`},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			res := sb.run(map[string]any{"script_name": tt.script})
			if res.Rule != tt.rule || tt.text != "" && res.Text != tt.text {
				t.Fatalf("res = %+v", res)
			}
			if strings.Contains(res.Text, sb.canary) {
				t.Fatal("the outside script ran")
			}
		})
	}
}

func TestRunnerRunsScripts(t *testing.T) {
	needPython(t)
	sb := newSandbox(t)
	sb.write(t, "scripts/fail.py", "import sys\nprint('partial')\nprint('bad input', file=sys.stderr)\nsys.exit(3)\n")
	sb.write(t, "scripts/quiet.py", "")
	sb.write(t, "scripts/warn.py", "import sys\nprint('out')\nprint('careful', file=sys.stderr)\n")
	sb.write(t, "scripts/cwd.py", "import os\nprint(os.getcwd())\n")
	sb.write(t, "scripts/loud.py", "print('x' * 100000)\n")
	tests := []struct {
		name string
		args map[string]any
		text string
		code int
	}{
		{"args and stdin reach the script", map[string]any{"script_name": "scripts/echo.py", "args": []any{"a b", "--help"}, "stdin_text": "hi"}, "args ['a b', '--help']\nstdin hi", 0},
		{"args as one string are split", map[string]any{"script_name": "scripts/echo.py", "args": "x y"}, "args ['x', 'y']", 0},
		{"args as one string with quotes are refused, not split", map[string]any{"script_name": "scripts/echo.py", "args": `--name "Ada Lovelace"`}, `[ERROR] safe_py_runner: "args" is one string with quotes in it (--name "Ada Lovelace"); it is not split as a shell splits it: give the args as a list of strings, one per argument, e.g. ["--name", "Ada Lovelace"]`, 1},
		{"numbers become strings", map[string]any{"script_name": "scripts/echo.py", "args": []any{1.0, 2.5, true}}, "args ['1', '2.5', 'true']", 0},
		{"a backslash script path works", map[string]any{"script_name": `skills\hello\scripts\greet.py`, "env_vars": []any{"NAME=Ada"}}, "hello Ada", 0},
		{"env as a JSON string", map[string]any{"script_name": "skills/hello/scripts/greet.py", "env_vars": `{"NAME": "Bo"}`}, "hello Bo", 0},
		{"no output says so", map[string]any{"script_name": "scripts/quiet.py"}, "(no output)", 0},
		{"stderr is labelled", map[string]any{"script_name": "scripts/warn.py"}, "[stdout]\nout\n[stderr]\ncareful", 0},
		{"a failure reports its exit code", map[string]any{"script_name": "scripts/fail.py"}, "[ERROR] scripts/fail.py failed (exit code 3)\n[stdout]\npartial\n[stderr]\nbad input", 3},
		{"a missing script is an error", map[string]any{"script_name": "scripts/nope.py"}, "[ERROR] safe_py_runner: script \"scripts/nope.py\" does not exist (available: scripts/cwd.py, scripts/echo.py, scripts/fail.py, scripts/loud.py, scripts/quiet.py, scripts/warn.py, skills/hello/scripts/greet.py)", 1},
		{"a missing script name is an error", map[string]any{"args": []any{"x"}}, `[ERROR] safe_py_runner: missing "script_name" (a .py file under scripts or skills/*)`, 1},
		{"an unknown argument is an error", map[string]any{"script": "scripts/echo.py", "timeout": 5.0}, `[ERROR] safe_py_runner: unknown argument "timeout" (safe_py_runner takes: script_name, args, env_vars, stdin_text)`, 1},
		{"the working directory is the root", map[string]any{"script_name": "scripts/cwd.py"}, sb.root, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := sb.run(tt.args)
			checkInvariant(t, res)
			if res.Text != tt.text || res.ExitCode != tt.code {
				t.Fatalf("got  %q (exit %d)\nwant %q (exit %d)", res.Text, res.ExitCode, tt.text, tt.code)
			}
		})
	}
	t.Run("output is capped", func(t *testing.T) {
		res := sb.run(map[string]any{"script_name": "scripts/loud.py"})
		if !strings.HasSuffix(res.Text, "\n[TRUNCATED: stdout was 100001 bytes; showing the first 32768]") || len(res.Text) > 33000 {
			t.Fatalf("len %d, tail %q", len(res.Text), res.Text[len(res.Text)-80:])
		}
	})
	t.Run("a process left holding the output is an error", func(t *testing.T) {
		sb.write(t, "scripts/daemon.py", "import os, time\nprint('started', flush=True)\nif getattr(os, 'fo' + 'rk')() == 0:\n    time.sleep(30)\n    os._exit(0)\n")
		res := sb.run(map[string]any{"script_name": "scripts/daemon.py"})
		want := "[ERROR] scripts/daemon.py exited, but a process it started kept its output open 2s after it: the output may be cut short (a script must not leave processes running)\nstarted"
		if res.Text != want || res.ExitCode != 0 || res.Decision == "allow" {
			t.Fatalf("got  %+v\nwant %q", res, want)
		}
	})
	t.Run("python_run maps to the runner", func(t *testing.T) {
		res := sb.cli("python_run", map[string]any{"script_name": "scripts/echo.py", "args": []any{"z"}})
		if res.Text != "args ['z']" {
			t.Fatalf("res = %+v", res)
		}
	})
	t.Run("no bytecode is written", func(t *testing.T) {
		if _, err := os.Stat(filepath.Join(sb.root, "scripts", "__pycache__")); err == nil {
			t.Fatal("__pycache__ created")
		}
	})
}

func TestRunnerGivesScriptsAMinimalEnvironment(t *testing.T) {
	needPython(t)
	t.Setenv("OPENAI_API_KEY", "sk-parent-secret")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
	t.Setenv("PYTHONPATH", "/tmp/evil")
	t.Setenv("PYTHONSTARTUP", "/tmp/evil.py")
	t.Setenv("LD_PRELOAD", "/tmp/evil.so")
	t.Setenv("SOME_OTHER", "x")
	t.Setenv("LANG", "C.UTF-8")
	sb := newSandbox(t)
	sb.write(t, "scripts/env.py", "import json, os\nprint(json.dumps(dict(os.environ)))\n")
	res := sb.run(map[string]any{"script_name": "scripts/env.py", "env_vars": map[string]any{"NAME": "Ada"}})
	var env map[string]string
	if err := json.Unmarshal([]byte(res.Text), &env); err != nil {
		t.Fatalf("%v: %s", err, res.Text)
	}
	if strings.Contains(res.Text, "secret") {
		t.Error("a secret reached the script")
	}
	for _, k := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "PYTHONPATH", "PYTHONSTARTUP", "LD_PRELOAD", "SOME_OTHER"} {
		if _, ok := env[k]; ok {
			t.Errorf("%s passed through", k)
		}
	}
	want := map[string]string{
		"NAME": "Ada", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8",
		"PYTHONNOUSERSITE": "1", "PYTHONUNBUFFERED": "1", "PATH": os.Getenv("PATH"),
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
	if !strings.Contains(env["LPPCTL_PROTECTED"], ".git") {
		t.Errorf("LPPCTL_PROTECTED = %q", env["LPPCTL_PROTECTED"])
	}
}

// processGone reports whether pid no longer runs (a zombie counts as gone).
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return os.IsNotExist(err)
	}
	// The state follows the command name in parentheses.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}

// spawnerPolicy is the project policy with a short timeout and without the
// process-spawning patterns, so a test script may start a child.
func spawnerSandbox(t *testing.T, timeout time.Duration) *sandbox {
	sb := newSandbox(t)
	p := *sb.g.policy
	p.Runner.Timeout = timeout
	p.Blocked = nil
	g, err := New(sb.root, &p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	sb.g = g
	return sb
}

const spawner = `import os, subprocess, sys, time
subprocess.Popen([sys.executable, "-c", "import os, time; open('child.pid.tmp', 'w').write(str(os.getpid())); os.rename('child.pid.tmp', 'child.pid'); time.sleep(60)"])
while not os.path.exists('child.pid'):
    time.sleep(0.01)
print("started", flush=True)
while True:
    time.sleep(0.05)
`

func waitPID(t *testing.T, root string) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(filepath.Join(root, "child.pid")); err == nil && len(b) > 0 {
			pid, err := strconv.Atoi(string(b))
			if err == nil {
				return pid
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the child never wrote its pid")
	return 0
}

func assertGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("child %d still runs", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRunnerTimeoutKillsTheProcessGroup(t *testing.T) {
	needPython(t)
	sb := spawnerSandbox(t, 3*time.Second)
	sb.write(t, "scripts/spawner.py", spawner)
	start := time.Now()
	res := sb.run(map[string]any{"script_name": "scripts/spawner.py"})
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("call took %s", d)
	}
	want := "[ERROR] timed out after 3s: scripts/spawner.py was killed, with every process of its process group\nstarted"
	if res.Text != want || !res.TimedOut || res.Rule != "timeout" || res.Decision != DecisionError || res.ExitCode != -1 {
		t.Fatalf("res = %+v", res)
	}
	assertGone(t, waitPID(t, sb.root))
}

func TestRunnerKillsLeftoverChildrenAfterANormalExit(t *testing.T) {
	needPython(t)
	sb := spawnerSandbox(t, 10*time.Second)
	sb.write(t, "scripts/leaver.py", `import subprocess, sys, time
subprocess.Popen([sys.executable, "-c", "import os, time; open('child.pid', 'w').write(str(os.getpid())); time.sleep(60)"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
while True:
    try:
        if open('child.pid').read():
            break
    except OSError:
        pass
    time.sleep(0.01)
print("bye")
`)
	res := sb.run(map[string]any{"script_name": "scripts/leaver.py"})
	if res.Text != "bye" {
		t.Fatalf("res = %+v", res)
	}
	assertGone(t, waitPID(t, sb.root))
}

func TestRunnerStopsWhenTheCallerCancels(t *testing.T) {
	needPython(t)
	sb := spawnerSandbox(t, 30*time.Second)
	sb.write(t, "scripts/spawner.py", spawner)
	// Cancel once the grandchild runs (a fixed delay lost that race on a
	// loaded machine), so the test always has a process group to stop.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			if _, err := os.Stat(filepath.Join(sb.root, "child.pid")); err == nil {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	res := sb.g.Call(ctx, ToolRunner, map[string]any{"script_name": "scripts/spawner.py"})
	if !strings.HasPrefix(res.Text, "[ERROR] cancelled: scripts/spawner.py was stopped") || res.TimedOut {
		t.Fatalf("res = %+v", res)
	}
	assertGone(t, waitPID(t, sb.root))
}

func TestScriptsListsRunnableScripts(t *testing.T) {
	sb := newSandbox(t)
	sb.write(t, "scripts/_helper.py", "")
	sb.write(t, "scripts/sub/deep.py", "")
	sb.write(t, "scripts/notes.md", "")
	sb.write(t, "skills/top.py", "")
	sb.write(t, "skills/.hidden/x.py", "")
	sb.symlink(t, "../../outside/evil.py", "scripts/evil.py")
	sb.symlink(t, "../skills/hello/scripts/greet.py", "scripts/greet.py")
	got, err := sb.g.Scripts()
	if err != nil {
		t.Fatal(err)
	}
	want := "scripts/echo.py scripts/greet.py scripts/sub/deep.py skills/hello/scripts/greet.py"
	if strings.Join(got, " ") != want {
		t.Fatalf("got  %v\nwant %s", got, want)
	}
}

func TestToolDefinitionsComeFromThePolicy(t *testing.T) {
	sb := newSandbox(t)
	tools := sb.g.Tools()
	if len(tools) != 2 || tools[0].Name != ToolCLI || tools[1].Name != ToolRunner {
		t.Fatalf("tools = %+v", tools)
	}
	b, err := json.Marshal(tools)
	if err != nil {
		t.Fatal(err)
	}
	var decoded []struct {
		Name       string
		Parameters struct {
			Type       string
			Required   []string
			Properties map[string]struct {
				Type string
				Enum []string
			}
		}
	}
	if err := json.Unmarshal(b, &decoded); err != nil {
		t.Fatal(err)
	}
	cli := decoded[0].Parameters
	if cli.Type != "object" || strings.Join(cli.Required, ",") != "tool_name" {
		t.Errorf("cli schema = %+v", cli)
	}
	if got := strings.Join(cli.Properties["tool_name"].Enum, ","); got != "copy_file,list_files,make_directory,move_file,python_run,read_file,tree" {
		t.Errorf("enum = %s", got)
	}
	run := decoded[1].Parameters
	if strings.Join(run.Required, ",") != "script_name" || run.Properties["args"].Type != "array" || run.Properties["env_vars"].Type != "object" || run.Properties["stdin_text"].Type != "string" {
		t.Errorf("runner schema = %+v", run)
	}
	if !strings.Contains(tools[0].Description, "- read_file(path): Show the text of a file") {
		t.Errorf("cli description = %s", tools[0].Description)
	}
	docs := sb.g.ToolDocs()
	for _, s := range []string{"## safe_cli_executor", "- copy_file(src, dst):", "## safe_py_runner", "- skills/hello/scripts/greet.py", "[SECURITY BLOCKED]"} {
		if !strings.Contains(docs, s) {
			t.Errorf("docs lack %q", s)
		}
	}
}

// An inherited variable is the operator's: the model cannot override it, even
// where the deny patterns do not cover it.
func TestModelCannotOverrideInheritedEnv(t *testing.T) {
	sb := newSandbox(t)
	p := *sb.g.policy
	p.Runner.Env.Inherit = append([]string{"TRANSCRIPT_FEED"}, p.Runner.Env.Inherit...)
	g, err := New(sb.root, &p)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	res := g.Call(context.Background(), ToolRunner, map[string]any{"script_name": "scripts/echo.py", "env_vars": map[string]any{"TRANSCRIPT_FEED": "http://e.vil/"}})
	want := `[SECURITY BLOCKED] env-key: env_vars key "TRANSCRIPT_FEED" comes from lppctl's own environment (safe_py_runner.env.inherit); the model cannot override it`
	if res.Text != want {
		t.Fatalf("got  %s\nwant %s", res.Text, want)
	}
}

// TestInheritForReachesOnlyThatDirectorysScripts: a skill's own credentials
// (env.inherit_for) reach the scripts under its folder, no other script, and
// the model can neither override nor add them.
func TestInheritForReachesOnlyThatDirectorysScripts(t *testing.T) {
	needPython(t)
	t.Setenv("SKILL_FEED_URL", "http://127.0.0.1:1/feed")
	t.Setenv("SKILL_FEED_TOKEN", "tok-for-the-skill")
	sb := newSandbox(t)
	p := *sb.g.policy
	p.Runner.Env.InheritFor = map[string][]string{"skills/feed": {"SKILL_FEED_URL", "SKILL_FEED_TOKEN", "SKILL_FEED_CHANNEL"}}
	g, err := New(sb.root, &p)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	show := "import os\nprint(os.environ.get('SKILL_FEED_URL', '-'), os.environ.get('SKILL_FEED_TOKEN', '-'))\n"
	sb.write(t, "skills/feed/scripts/show.py", show)
	sb.write(t, "skills/other/show.py", show)
	sb.write(t, "scripts/show.py", show)
	ctx := context.Background()
	for _, tc := range []struct{ script, want string }{
		{"skills/feed/scripts/show.py", "http://127.0.0.1:1/feed tok-for-the-skill"},
		{"skills/other/show.py", "- -"},
		{"scripts/show.py", "- -"},
	} {
		if res := g.Call(ctx, ToolRunner, map[string]any{"script_name": tc.script}); strings.TrimSpace(res.Text) != tc.want {
			t.Errorf("%s printed %q, want %q", tc.script, res.Text, tc.want)
		}
	}
	res := g.Call(ctx, ToolRunner, map[string]any{"script_name": "scripts/show.py", "env_vars": map[string]any{"SKILL_FEED_CHANNEL": "evil"}})
	want := `[SECURITY BLOCKED] env-key: env_vars key "SKILL_FEED_CHANNEL" comes from lppctl's own environment for the scripts under skills/feed (safe_py_runner.env.inherit_for); the model cannot override it`
	if res.Text != want {
		t.Errorf("override: got  %s\nwant %s", res.Text, want)
	}
}

// TestInheritForComparesSkillFoldersLikeTheFileSystem: on a case-sensitive
// file system skills/Feed is another skill, which must not get skills/feed's
// credentials; on a case-insensitive one it is the same folder.
func TestInheritForComparesSkillFoldersLikeTheFileSystem(t *testing.T) {
	needPython(t)
	t.Setenv("SKILL_FEED_TOKEN", "tok-for-the-skill")
	sb := newSandbox(t)
	p := *sb.g.policy
	p.Runner.Env.InheritFor = map[string][]string{"skills/feed": {"SKILL_FEED_TOKEN"}}
	g, err := New(sb.root, &p)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	show := "import os\nprint(os.environ.get('SKILL_FEED_TOKEN', '-'))\n"
	sb.write(t, "skills/feed/show.py", show)
	sb.write(t, "skills/Feed/show.py", show)
	caseSensitive := true
	if b, err := os.ReadFile(filepath.Join(sb.root, "skills", "FEED", "show.py")); err == nil && string(b) == show {
		caseSensitive = false
	}
	want := map[bool]string{true: "-", false: "tok-for-the-skill"}[caseSensitive]
	ctx := context.Background()
	if res := g.Call(ctx, ToolRunner, map[string]any{"script_name": "skills/feed/show.py"}); strings.TrimSpace(res.Text) != "tok-for-the-skill" {
		t.Errorf("skills/feed/show.py printed %q", res.Text)
	}
	if res := g.Call(ctx, ToolRunner, map[string]any{"script_name": "skills/Feed/show.py"}); strings.TrimSpace(res.Text) != want {
		t.Errorf("skills/Feed/show.py (case-sensitive file system: %v) printed %q, want %q", caseSensitive, res.Text, want)
	}
}

// A read-only caller (the evaluator) is offered only the sub-commands that
// look: the others would always be refused as read-only.
func TestReadOnlyToolsOfferOnlyReadCommands(t *testing.T) {
	sb := newSandbox(t)
	tools := sb.g.ReadOnlyTools()
	if len(tools) != 2 || tools[0].Name != ToolCLI || tools[1].Name != ToolRunner {
		t.Fatalf("tools = %+v", tools)
	}
	params := tools[0].Parameters["properties"].(map[string]any)
	enum := params["tool_name"].(map[string]any)["enum"].([]any)
	if got := fmt.Sprint(enum); got != "[list_files python_run read_file tree]" {
		t.Errorf("enum = %s", got)
	}
	props := params["params"].(map[string]any)["properties"].(map[string]any)
	for _, p := range []string{"src", "dst"} {
		if _, ok := props[p]; ok {
			t.Errorf("params offer %s, which only copy_file and move_file take", p)
		}
	}
	for _, w := range []string{"copy_file", "move_file", "make_directory"} {
		if strings.Contains(tools[0].Description, w) {
			t.Errorf("description offers %s:\n%s", w, tools[0].Description)
		}
	}
	if !strings.Contains(tools[0].Description, "- read_file(path):") {
		t.Errorf("description lacks read_file:\n%s", tools[0].Description)
	}
	// The full set is unchanged.
	if enum := sb.g.Tools()[0].Parameters["properties"].(map[string]any)["tool_name"].(map[string]any)["enum"].([]any); len(enum) != 7 {
		t.Errorf("Tools() enum = %v", enum)
	}
}
