package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	osbox "github.com/lppctl/lppctl/gateway/sandbox"
)

// runRequest is a decoded safe_py_runner call.
type runRequest struct {
	script string
	args   []string
	env    [][2]string // sorted by key
	stdin  string
}

var runnerKeys = map[string]string{
	"script_name": "script_name", "script": "script_name", "script_path": "script_name",
	"args": "args", "arguments": "args", "argv": "args",
	"env_vars": "env_vars", "env": "env_vars", "environment": "env_vars",
	"stdin_text": "stdin_text", "stdin": "stdin_text", "input": "stdin_text",
}

// decodeRunRequest reads the model's arguments leniently: args may be one
// string (split on blanks), env_vars may be a list of "K=V" strings or a JSON
// string holding an object, scalars become strings.
func decodeRunRequest(args map[string]any) (runRequest, error) {
	var req runRequest
	seen := map[string]string{}
	for _, k := range sortedKeys(args) {
		canon, ok := runnerKeys[k]
		if !ok {
			return req, fmt.Errorf("unknown argument %s%s (safe_py_runner takes: script_name, args, env_vars, stdin_text)", quote(k), didYouMean(k, []string{"script_name", "args", "env_vars", "stdin_text"}))
		}
		if prev, dup := seen[canon]; dup {
			return req, fmt.Errorf("%q and %q both give %s", prev, k, canon)
		}
		seen[canon] = k
		v := args[k]
		switch canon {
		case "script_name":
			s, ok := v.(string)
			if !ok {
				return req, fmt.Errorf("%q must be a string", k)
			}
			req.script = strings.TrimSpace(s)
		case "args":
			switch x := v.(type) {
			case nil:
			case string:
				if strings.ContainsAny(x, "\"'`") {
					// A shell would keep "Ada Lovelace" together; split on
					// blanks it would reach the script as two quoted halves.
					return req, fmt.Errorf("%q is one string with quotes in it (%s); it is not split as a shell splits it: give the args as a list of strings, one per argument, e.g. [\"--name\", \"Ada Lovelace\"]", k, truncate(x, 80))
				}
				req.args = strings.Fields(x)
			case []string:
				req.args = append(req.args, x...)
			case []any:
				for i, e := range x {
					s, ok := scalar(e)
					if !ok {
						return req, fmt.Errorf("%s[%d] must be a string", k, i)
					}
					req.args = append(req.args, s)
				}
			default:
				if s, ok := scalar(x); ok {
					req.args = []string{s}
				} else {
					return req, fmt.Errorf("%q must be a list of strings", k)
				}
			}
		case "env_vars":
			env, err := decodeEnv(k, v)
			if err != nil {
				return req, err
			}
			req.env = env
		case "stdin_text":
			switch x := v.(type) {
			case nil:
			case string:
				req.stdin = x
			default:
				return req, fmt.Errorf("%q must be a string", k)
			}
		}
	}
	return req, nil
}

func decodeEnv(k string, v any) ([][2]string, error) {
	m := map[string]string{}
	switch x := v.(type) {
	case nil:
	case string:
		if strings.TrimSpace(x) == "" {
			break
		}
		obj, err := decodeArgs(x)
		if err != nil || obj == nil {
			return nil, fmt.Errorf("%q must be an object of strings, e.g. {\"NAME\": \"Ada\"}, or a list of \"KEY=VALUE\" strings", k)
		}
		return decodeEnv(k, obj)
	case map[string]string:
		for kk, vv := range x {
			m[kk] = vv
		}
	case map[string]any:
		for kk, vv := range x {
			s, ok := scalar(vv)
			if !ok {
				return nil, fmt.Errorf("%s.%s must be a string", k, quote(kk))
			}
			m[kk] = s
		}
	case []any:
		for i, e := range x {
			s, ok := e.(string)
			key, val, found := strings.Cut(s, "=")
			if !ok || !found {
				return nil, fmt.Errorf("%s[%d] must be a \"KEY=VALUE\" string", k, i)
			}
			m[key] = val
		}
	default:
		return nil, fmt.Errorf("%q must be an object of strings, e.g. {\"NAME\": \"Ada\"}, or a list of \"KEY=VALUE\" strings", k)
	}
	out := make([][2]string, 0, len(m))
	for _, kk := range sortedKeys(m) {
		out = append(out, [2]string{kk, m[kk]})
	}
	return out, nil
}

// callRunner checks and runs one script call. via names the tool for messages.
func (g *Gateway) callRunner(ctx context.Context, args map[string]any, via string) Result {
	req, err := decodeRunRequest(args)
	if err != nil {
		return failed("%s: %v", via, err)
	}
	if req.script == "" {
		return failed("%s: missing \"script_name\" (a .py file under %s)", via, strings.Join(g.policy.Runner.ScriptDirs, " or "))
	}
	script, res, ok := g.checkRun(req, via)
	if !ok {
		return res
	}
	return g.execScript(ctx, script, req)
}

// checkRun applies every rule to a run request and returns the resolved,
// root-relative script path.
func (g *Gateway) checkRun(req runRequest, via string) (string, Result, bool) {
	pol := g.policy.Runner
	lim := g.policy.Limits
	no := func(r *refusal) (string, Result, bool) { return "", blocked(r), false }

	if len(req.script) > lim.MaxParamBytes {
		return no(refuse(ruleParamTooLong, "script_name is %d bytes long (limit %d: limits.max_param_bytes in the policy)", len(req.script), lim.MaxParamBytes))
	}
	if len(req.args) > pol.MaxArgs {
		return no(refuse(ruleTooManyArgs, "%d args given (limit %d: safe_py_runner.max_args in the policy)", len(req.args), pol.MaxArgs))
	}
	if len(req.env) > pol.Env.MaxVars {
		return no(refuse(ruleTooManyEnv, "%d env_vars given (limit %d: safe_py_runner.env.max_vars in the policy)", len(req.env), pol.Env.MaxVars))
	}
	parts := []string{req.script}
	for i, a := range req.args {
		if len(a) > lim.MaxParamBytes {
			return no(refuse(ruleParamTooLong, "args[%d] is %d bytes long (limit %d: limits.max_param_bytes in the policy)", i, len(a), lim.MaxParamBytes))
		}
		parts = append(parts, a)
	}
	for _, kv := range req.env {
		if len(kv[1]) > lim.MaxParamBytes {
			return no(refuse(ruleParamTooLong, "env_vars.%s is %d bytes long (limit %d: limits.max_param_bytes in the policy)", quote(kv[0]), len(kv[1]), lim.MaxParamBytes))
		}
		parts = append(parts, kv[1])
	}
	if r := g.scanBlocked("the call", parts...); r != nil {
		return no(r)
	}

	clean, r := checkPathSyntax(req.script)
	if r != nil {
		r.detail = "script_name " + r.detail
		return no(r)
	}
	if r := g.checkScriptPlace(clean, req.script, "is"); r != nil {
		return no(r)
	}
	resolved, r, err := g.resolve(clean, req.script)
	if r != nil {
		r.detail = "script_name " + r.detail
		return no(r)
	}
	if err != nil {
		return "", failed("%s: %v", via, err), false
	}
	if resolved != clean {
		if r := g.checkScriptPlace(resolved, req.script, "resolves to "+quote(resolved)+", which is"); r != nil {
			return no(r)
		}
	}
	if r := g.checkHidden("script_name", req.script, clean, resolved); r != nil {
		return no(r)
	}

	for i, a := range req.args {
		if !pol.ArgPattern.MatchString(a) {
			return no(refuse(ruleArgPattern, "args[%d] %s does not match the allowed pattern %s (safe_py_runner.arg_pattern in the policy)", i, quote(a), pol.ArgPattern))
		}
		if r := argPathSyntax(i, a, g.isDir); r != nil {
			return no(r)
		}
		if r := g.argPaths(i, a); r != nil {
			return no(r)
		}
	}
	for _, kv := range req.env {
		if r := g.checkEnvKey(kv[0]); r != nil {
			return no(r)
		}
		if !pol.Env.ValuePattern.MatchString(kv[1]) {
			return no(refuse(ruleEnvValue, "env_vars.%s %s does not match the allowed pattern %s (safe_py_runner.env.value_pattern in the policy)", kv[0], quote(kv[1]), pol.Env.ValuePattern))
		}
	}
	if r := g.inheritedCredential(); r != nil {
		return no(r)
	}
	if len(req.stdin) > lim.MaxStdinBytes {
		return "", failed("%s: stdin_text is %d bytes, more than the limit of %d (limits.max_stdin_bytes in the policy); send less", via, len(req.stdin), lim.MaxStdinBytes), false
	}

	f, err := g.openRead(resolved)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", failed("%s: script %s does not exist%s", via, quote(req.script), g.scriptHint(req.script)), false
		}
		return "", fsError(via, "script_name", req.script, err), false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fsError(via, "script_name", req.script, err), false
	}
	if !fi.Mode().IsRegular() {
		return "", failed("%s: script %s is not a regular file", via, quote(req.script)), false
	}
	if fi.Size() > int64(lim.MaxScriptBytes) {
		return no(refuse(ruleScriptTooLarge, "script %s is %d bytes (limit %d: limits.max_script_bytes in the policy)", quote(req.script), fi.Size(), lim.MaxScriptBytes))
	}
	src, err := io.ReadAll(io.LimitReader(f, int64(lim.MaxScriptBytes)+1))
	if err != nil {
		return "", fsError(via, "script_name", req.script, err), false
	}
	if len(src) > lim.MaxScriptBytes {
		return no(refuse(ruleScriptTooLarge, "script %s is more than %d bytes (limit %d: limits.max_script_bytes in the policy)", quote(req.script), lim.MaxScriptBytes, lim.MaxScriptBytes))
	}
	if r := g.scanBlocked("script "+resolved, string(src)); r != nil {
		return no(r)
	}
	return resolved, Result{}, true
}

// checkScriptPlace requires a .py file inside one of the script directories.
func (g *Gateway) checkScriptPlace(p, shown, verb string) *refusal {
	if path.Ext(p) != ".py" || path.Base(p) == ".py" {
		return refuse(ruleScriptExt, "script_name %s %s not a .py file; only Python scripts run", quote(shown), verb)
	}
	if !g.inScriptDir(p) {
		return refuse(ruleScriptLocation, "script_name %s %s outside the script directories (%s: safe_py_runner.script_dirs in the policy)", quote(shown), verb, strings.Join(g.policy.Runner.ScriptDirs, ", "))
	}
	return nil
}

// inScriptDir reports whether p lies strictly below a script directory ("*" = one component).
func (g *Gateway) inScriptDir(p string) bool { return g.policy.InScriptDir(p) }

// InScriptDir reports whether the root-relative, slash-separated, clean path
// p lies strictly below one of the policy's script directories ("*" matches
// one component, not a hidden one): where safe_py_runner (and script.run)
// may run a script.
func (pol *Policy) InScriptDir(p string) bool {
	parts := strings.Split(p, "/")
	for _, d := range pol.Runner.ScriptDirs {
		dp := strings.Split(d, "/")
		if len(parts) <= len(dp) {
			continue
		}
		ok := true
		for i, c := range dp {
			if c == "*" {
				if strings.HasPrefix(parts[i], ".") {
					ok = false
				}
				continue
			}
			if c != parts[i] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func (g *Gateway) checkEnvKey(k string) *refusal {
	pol := g.policy.Runner.Env
	if _, set := pol.Set[k]; set {
		return refuse(ruleEnvKey, "env_vars key %s is set by the gateway (safe_py_runner.env.set in the policy); the model cannot override it", quote(k))
	}
	// Inherited variables are the operator's (say, the URL a script sends a
	// token to): the model may not override them.
	if contains(pol.Inherit, k) {
		return refuse(ruleEnvKey, "env_vars key %s comes from lppctl's own environment (safe_py_runner.env.inherit); the model cannot override it", quote(k))
	}
	for _, dir := range sortedKeys(pol.InheritFor) {
		if contains(pol.InheritFor[dir], k) {
			return refuse(ruleEnvKey, "env_vars key %s comes from lppctl's own environment for the scripts under %s (safe_py_runner.env.inherit_for); the model cannot override it", quote(k), dir)
		}
	}
	// An allow-list: names no one thought of (SSLKEYLOGFILE, PYTHONSTARTUP,
	// a library's own hook) are refused without anyone having to list them.
	if !slices.Contains(pol.AllowKeys, k) {
		if len(pol.AllowKeys) == 0 {
			return refuse(ruleEnvKey, "env_vars key %s is not allowed; the model may set no env_vars (safe_py_runner.env.allow_keys is empty); pass values as script args", quote(k))
		}
		return refuse(ruleEnvKey, "env_vars key %s is not allowed; the model may set only %s (safe_py_runner.env.allow_keys); pass other values as script args", quote(k), strings.Join(pol.AllowKeys, ", "))
	}
	return nil
}

// scriptHint lists a few available scripts for a missing one.
func (g *Gateway) scriptHint(shown string) string {
	list, err := g.Scripts()
	if err != nil || len(list) == 0 {
		return ""
	}
	if dym := didYouMean(shown, list); dym != "" {
		return dym
	}
	if len(list) > 10 {
		list = append(list[:10:10], "…")
	}
	return " (available: " + strings.Join(list, ", ") + ")"
}

// environ builds the child's environment for script (root-relative): the
// inherited allowlist, the variables inherited by the script's directory
// (inherit_for), the model's checked extras, then the gateway's own
// settings, which win; with readOnly, LPPCTL_READ_ONLY=1 as well.
func (g *Gateway) environ(script string, extra [][2]string, readOnly bool) []string {
	pol := g.policy.Runner.Env
	vals := map[string]string{}
	var order []string
	put := func(k, v string) {
		if _, ok := vals[k]; !ok {
			order = append(order, k)
		}
		vals[k] = v
	}
	for _, k := range pol.Inherit {
		if v, ok := os.LookupEnv(k); ok {
			put(k, v)
		}
	}
	for _, dir := range sortedKeys(pol.InheritFor) {
		if !g.under(script, dir) {
			continue
		}
		for _, k := range pol.InheritFor[dir] {
			if v, ok := os.LookupEnv(k); ok {
				put(k, v)
			}
		}
	}
	for _, kv := range extra {
		put(kv[0], kv[1])
	}
	for _, k := range sortedKeys(pol.Set) {
		put(k, pol.Set[k])
	}
	put("LPPCTL_PROTECTED", protectedEnv(g.protected))
	if readOnly {
		put("LPPCTL_READ_ONLY", "1")
	}
	env := make([]string, 0, len(order))
	for _, k := range order {
		env = append(env, k+"="+vals[k])
	}
	return env
}

// under reports whether the root-relative path p lies below dir. Names are
// compared as the file system compares them: exactly, or, where a spelling
// differs only in case, by asking whether both name the same directory (so
// skills/Feed is skills/feed on a case-insensitive file system only).
func (g *Gateway) under(p, dir string) bool {
	if strings.HasPrefix(p, dir+"/") {
		return true
	}
	if len(p) <= len(dir) || p[len(dir)] != '/' || !strings.EqualFold(p[:len(dir)], dir) {
		return false
	}
	a, err := g.root.Stat(dir)
	if err != nil {
		return false
	}
	b, err := g.root.Stat(p[:len(dir)])
	return err == nil && os.SameFile(a, b)
}

// protectedEnv joins the protected paths for LPPCTL_PROTECTED: colon-separated,
// with "%" and ":" inside a path written %25 and %3A (a path may hold a colon).
func protectedEnv(paths []string) string {
	esc := strings.NewReplacer("%", "%25", ":", "%3A")
	parts := make([]string, len(paths))
	for i, p := range paths {
		parts[i] = esc.Replace(p)
	}
	return strings.Join(parts, ":")
}

// execScript runs python3 on the script with an argv list and no shell.
func (g *Gateway) execScript(ctx context.Context, script string, req runRequest) Result {
	if g.pythonErr != nil {
		return failed("safe_py_runner: cannot run %s: %s", script, g.noPython())
	}
	g.realPy.Do(g.resolveInterpreter)
	timeout := g.policy.Runner.Timeout
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	// A leading "./" keeps the script path from ever reading as an interpreter option.
	argv := append([]string{"./" + script}, req.args...)
	env := g.environ(script, req.env, isReadOnly(ctx))
	var cmd *exec.Cmd
	if g.confined(script) {
		if err := sandboxAvailable(); err != nil && !g.confine.unconfined {
			return blocked(refuse(ruleSandboxUnavailable, "%s is model-written code, which runs only in the OS sandbox (safe_py_runner.sandbox in the policy), and %v; give --unconfined to run it anyway, unconfined, at your own risk", script, err))
		} else if err == nil {
			if !g.confine.all {
				if r := g.checkSandboxReadable(script); r != nil {
					return blocked(r)
				}
			}
			so, cleanup, err := g.sandboxOptions(script, g.confinedEnv(env, !g.confine.all))
			if err != nil {
				return failed("safe_py_runner: cannot prepare the sandbox for %s: %v", script, err)
			}
			defer cleanup()
			if cmd, err = osbox.Command(runCtx, so, g.python, argv...); err != nil {
				return failed("safe_py_runner: cannot sandbox %s: %v", script, err)
			}
		}
	}
	if cmd == nil {
		cmd = exec.CommandContext(runCtx, g.python, argv...)
		cmd.Env = env
		setProcessGroup(cmd)
	}
	cmd.Dir = g.rootPath
	cmd.Stdin = strings.NewReader(req.stdin)
	max := g.policy.Limits.MaxOutputBytes
	stdout, stderr := &cappedBuffer{max: max}, &cappedBuffer{max: max}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.Cancel = func() error { return killProcessGroup(cmd) }
	cmd.WaitDelay = 2 * time.Second

	if err := cmd.Start(); err != nil {
		return failed("safe_py_runner: cannot start %s: %v", script, err)
	}
	err := cmd.Wait()
	// Reap anything the script left running in its group.
	_ = killProcessGroup(cmd)

	timedOut := errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	code := -1
	if cmd.ProcessState != nil {
		code = cmd.ProcessState.ExitCode()
	}
	out := formatStreams(stdout, stderr)
	switch {
	case timedOut:
		r := failed("timed out after %s: %s was killed, with every process of its process group\n%s", timeout, script, out)
		r.Rule, r.TimedOut, r.ExitCode = "timeout", true, -1
		return r
	case ctx.Err() != nil:
		r := failed("cancelled: %s was stopped (%v)\n%s", script, ctx.Err(), out)
		r.ExitCode = -1
		return r
	case code == ExitRefused:
		if r, ok := scriptRefusal(stderr); ok {
			r.ExitCode = code
			return r
		}
		// Any other exit 77 (os.EX_NOPERM, say) is an ordinary failure.
		r := failed("%s failed (exit code %d)\n%s", script, code, out)
		r.ExitCode = code
		return r
	case code == 0 && errors.Is(err, exec.ErrWaitDelay):
		// The script exited, but something it started held its output open
		// past WaitDelay: what was read may be cut short, so it is no result.
		r := failed("%s exited, but a process it started kept its output open %s after it: the output may be cut short (a script must not leave processes running)\n%s", script, cmd.WaitDelay, out)
		r.ExitCode = code
		return r
	case code != 0:
		why := fmt.Sprintf("exit code %d", code)
		if code < 0 && err != nil {
			why = err.Error()
		}
		r := failed("%s failed (%s)\n%s", script, why, out)
		r.ExitCode = code
		return r
	}
	return allowed(out)
}

// ExitRefused is the exit code with which a project script refuses a path
// for a security reason; its stderr then starts "[SECURITY BLOCKED] <rule>: ".
// Scripts are trusted (no tool can write the script directories), so the
// gateway reports such a refusal like its own.
const ExitRefused = 77

var scriptRefusalLine = regexp.MustCompile(`^\[SECURITY BLOCKED\] ([a-z0-9][a-z0-9:_-]{0,63}): \S`)

// scriptRefusal turns the stderr of a script that exited with ExitRefused
// into a [SECURITY BLOCKED] result; ok is false when stderr has another shape.
func scriptRefusal(stderr *cappedBuffer) (Result, bool) {
	text := strings.TrimSpace(stderr.String("stderr"))
	m := scriptRefusalLine.FindStringSubmatch(text)
	if m == nil {
		return Result{}, false
	}
	return Result{Text: text, Decision: DecisionBlock, Rule: m[1]}, true
}

// formatStreams shows stdout alone when stderr is empty, both labelled otherwise.
func formatStreams(stdout, stderr *cappedBuffer) string {
	o, e := stdout.String("stdout"), stderr.String("stderr")
	switch {
	case strings.TrimSpace(e) == "" && strings.TrimSpace(o) == "":
		return NoOutput
	case strings.TrimSpace(e) == "" && !looksLikeOutcome(o):
		return strings.TrimRight(o, "\n")
	case strings.TrimSpace(e) == "":
		// Output that would read as the gateway's own outcome is labelled.
		return "[stdout]\n" + strings.TrimRight(o, "\n")
	case strings.TrimSpace(o) == "":
		return "[stderr]\n" + strings.TrimRight(e, "\n")
	}
	return "[stdout]\n" + strings.TrimRight(o, "\n") + "\n[stderr]\n" + strings.TrimRight(e, "\n")
}

// cappedBuffer keeps the first max bytes written and counts the rest.
type cappedBuffer struct {
	max   int
	buf   []byte
	total int64
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	c.total += int64(len(p))
	if room := c.max - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// String returns the kept text with a truncation note when output was dropped.
func (c *cappedBuffer) String(name string) string {
	s := strings.ToValidUTF8(string(c.buf), "\uFFFD")
	if c.total > int64(len(c.buf)) {
		s = strings.TrimRight(s, "\uFFFD")
		s += fmt.Sprintf("\n[TRUNCATED: %s was %d bytes; showing the first %d]", name, c.total, len(c.buf))
	}
	return s
}
