package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// Tool names the model calls.
const (
	ToolCLI    = "safe_cli_executor"
	ToolRunner = "safe_py_runner"
)

// Decisions recorded in a Result and the audit log.
const (
	DecisionAllow = "allow"
	DecisionBlock = "block"
	DecisionError = "error"
)

// Result prefixes the model sees.
const (
	PrefixBlocked = "[SECURITY BLOCKED]"
	PrefixError   = "[ERROR]"
	NoOutput      = "(no output)"
)

// Result is what one tool call gives back to the model (Text) and to the caller.
// Decision is "block" exactly when Text starts with [SECURITY BLOCKED], "error"
// exactly when it starts with [ERROR] (ordinary failures, a script's non-zero
// exit, a timeout), and "allow" otherwise.
type Result struct {
	Text     string        `json:"text"`
	Decision string        `json:"decision"`
	Rule     string        `json:"rule,omitempty"`      // the rule that refused the call, or "timeout"
	ExitCode int           `json:"exit_code"`           // script exit code (77 = the script refused, see ExitRefused); 0/1 for native sub-commands; -1 blocked, killed or not run
	Duration time.Duration `json:"duration_ns"`         // wall time of the call
	TimedOut bool          `json:"timed_out,omitempty"` // the call hit its timeout
}

func blocked(r *refusal) Result {
	return Result{Text: PrefixBlocked + " " + r.rule + ": " + r.detail, Decision: DecisionBlock, Rule: r.rule, ExitCode: -1}
}

func failed(format string, args ...any) Result {
	return Result{Text: PrefixError + " " + fmt.Sprintf(format, args...), Decision: DecisionError, ExitCode: 1}
}

func allowed(text string) Result {
	if strings.TrimSpace(text) == "" {
		text = NoOutput
	}
	return Result{Text: text, Decision: DecisionAllow}
}

// content is the allowed result of a tool that shows content (a file's text,
// a listing): content that would read as the gateway's own outcome (it
// starts like a refusal or an error, or is "(no output)") comes after the
// label line, so the first line always tells how the call went.
func content(label, text string) Result {
	if looksLikeOutcome(text) {
		text = label + "\n" + text
	}
	return allowed(text)
}

// looksLikeOutcome reports whether text, leading blanks aside, starts like a
// refusal or an error, or is the text of an empty result.
func looksLikeOutcome(text string) bool {
	t := strings.TrimLeft(text, " \t\r\n")
	return strings.HasPrefix(t, PrefixBlocked) || strings.HasPrefix(t, PrefixError) || strings.TrimSpace(t) == NoOutput
}

// Option configures a Gateway.
type Option func(*options)

type options struct {
	audit     io.Writer
	protected []string
	python    string
	now       func() time.Time
	observe   func(context.Context, CallInfo)
	effects   Effects
	confine   confinement
}

// WithAudit writes one JSON line per call to w. Writes are serialised.
func WithAudit(w io.Writer) Option { return func(o *options) { o.audit = w } }

// WithProtected adds root-relative paths that no write may touch (e.g. the run directory ".lppctl").
func WithProtected(paths ...string) Option {
	return func(o *options) { o.protected = append(o.protected, paths...) }
}

// WithPython runs scripts with this interpreter instead of the policy's (tests, pinned installs).
func WithPython(path string) Option { return func(o *options) { o.python = path } }

// Gateway is the agent's only way to touch the project. It is safe for
// concurrent use.
type Gateway struct {
	policy    *Policy
	root      *os.Root
	rootPath  string // absolute
	protected []string
	protWhy   map[string]string // lower-cased protected path -> why it is protected, for messages
	python    string
	pythonErr error
	realPy    sync.Once // resolves python through wrappers (e.g. pyenv shims) once
	closedErr error     // set for a gateway that refuses everything
	now       func() time.Time

	auditMu sync.Mutex
	audit   io.Writer
	observe func(context.Context, CallInfo) // see WithObserver
	effects Effects                         // see WithEffects
	confine confinement                     // see WithConfinedScripts, WithUnconfined
}

// New opens the project root and returns a gateway enforcing p there.
// A nil policy is an error: the gateway fails closed.
func New(root string, p *Policy, opts ...Option) (*Gateway, error) {
	if p == nil {
		return nil, errors.New("cannot start gateway: no policy (the gateway refuses every tool call without a valid policy)")
	}
	o := options{now: time.Now}
	for _, opt := range opts {
		opt(&o)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("cannot start gateway: %w", err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	r, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("cannot start gateway: cannot open project root: %w", err)
	}
	g := &Gateway{policy: p, root: r, rootPath: abs, audit: o.audit, now: o.now, observe: o.observe, effects: o.effects, confine: o.confine}
	g.python = o.python
	if g.python == "" {
		g.python = p.Runner.Python
	}
	if lp, err := exec.LookPath(g.python); err != nil {
		g.pythonErr = err
	} else {
		g.python = lp
	}

	prot := append([]string(nil), p.Protected...)
	why := map[string]string{}
	for _, pr := range p.Protected {
		why[strings.ToLower(pr)] = "protected_paths in the policy"
	}
	// What lppctl itself loads from the project, whatever the policy lists:
	// a policy with protected_paths: [] must not let the model write the
	// journals a resume replays, or the policy and configuration the next
	// run loads by default.
	for _, a := range alwaysProtected {
		prot = append(prot, a.path)
		why[a.path] = a.why
	}
	// The policy file as named and as its links resolve: replacing a link
	// named --policy (saved with the run) would hand the next resume the
	// model's policy, and replacing its target would change this one's.
	for _, rel := range policyPaths(abs, p.Name) {
		prot = append(prot, rel)
		why[strings.ToLower(rel)] = "the tool policy"
	}
	// The runner executes code below the script directories: no tool may write there,
	// or the model could write a script (or a module a trusted script imports) and run it.
	for _, d := range p.Runner.scriptRoots() {
		prot = append(prot, d)
		why[strings.ToLower(d)] = "a script directory: no tool may write code that safe_py_runner runs"
	}
	// A Python installation inside the root (a project .venv on PATH) runs
	// code from there at every start: its site-packages is on sys.path, and a
	// .pth file there is executed.
	if g.pythonErr == nil {
		for _, d := range interpreterHomes(abs, g.python) {
			prot = append(prot, d)
			why[strings.ToLower(d)] = "the Python installation that runs scripts"
		}
	}
	for _, x := range o.protected {
		c, err := cleanPolicyPath(x)
		if err != nil {
			r.Close()
			return nil, fmt.Errorf("cannot start gateway: protected path: %w", err)
		}
		prot = append(prot, c)
	}
	seen := map[string]bool{}
	g.protWhy = map[string]string{}
	for _, x := range prot {
		for _, y := range []string{x, g.resolveQuiet(x)} {
			if y != "" && !seen[strings.ToLower(y)] {
				seen[strings.ToLower(y)] = true
				g.protected = append(g.protected, y)
				if w := why[strings.ToLower(x)]; w != "" {
					g.protWhy[strings.ToLower(y)] = w
				}
			}
		}
	}

	return g, nil
}

// alwaysProtected are protected in every gateway, whatever the policy says.
var alwaysProtected = []struct{ path, why string }{
	{".lppctl", "the run directory: journals, LLM logs, the skill library"},
	{"config/tools_config.yaml", "the project's default tool policy, which the next run loads"},
	{"config/lppctl.yaml", "the project's configuration, which picks the next run's model"},
}

// policyPaths returns the root-relative, slash-separated paths of the
// policy file name inside the (link-free, absolute) root: the file as named
// (its directory's links resolved, the last component kept, so a link is
// named itself) and the file its links lead to. Either is left out when it
// lies outside the root.
func policyPaths(root, name string) []string {
	if name == "" {
		return nil
	}
	pa, err := filepath.Abs(name)
	if err != nil {
		return nil
	}
	named := pa
	if dir, err := filepath.EvalSymlinks(filepath.Dir(pa)); err == nil {
		named = filepath.Join(dir, filepath.Base(pa))
	}
	cands := []string{named}
	if real, err := filepath.EvalSymlinks(pa); err == nil && real != named {
		cands = append(cands, real)
	}
	var out []string
	for _, c := range cands {
		if rel, err := filepath.Rel(root, c); err == nil && filepath.IsLocal(rel) {
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out
}

// interpreterHomes returns the root-relative directories of a Python
// interpreter that lies inside the root (as found, or after resolving links):
// the installation above its bin/ directory (a venv: pyvenv.cfg, lib/.../site-packages),
// or, for an interpreter directly in the root, the interpreter and lib.
func interpreterHomes(root, python string) []string {
	if !filepath.IsAbs(python) {
		python = filepath.Join(root, python) // exec runs a relative path from cmd.Dir, the root
	}
	cands := []string{python}
	if real, err := filepath.EvalSymlinks(python); err == nil && real != python {
		cands = append(cands, real)
	}
	var out []string
	for _, c := range cands {
		rel, err := filepath.Rel(root, c)
		if err != nil || !filepath.IsLocal(rel) {
			continue
		}
		rel = filepath.ToSlash(rel)
		switch dir := path.Dir(rel); {
		case dir == ".":
			out = append(out, rel, "lib", "pyvenv.cfg")
		case path.Dir(dir) == ".":
			out = append(out, dir, "lib", "pyvenv.cfg")
		default:
			out = append(out, path.Dir(dir))
		}
	}
	return out
}

// resolveQuiet resolves a trusted path, returning "" when it leaves the root.
func (g *Gateway) resolveQuiet(p string) string {
	r, ref, err := g.resolve(p, p)
	if ref != nil || err != nil {
		return ""
	}
	return r
}

// Closed returns a gateway that refuses every call with
// "[SECURITY BLOCKED] policy-unavailable", for callers that must keep answering
// tool calls when the policy could not be loaded.
func Closed(reason error, opts ...Option) *Gateway {
	o := options{now: time.Now}
	for _, opt := range opts {
		opt(&o)
	}
	if reason == nil {
		reason = errors.New("no policy")
	}
	return &Gateway{closedErr: reason, audit: o.audit, now: o.now, observe: o.observe}
}

// Root returns the absolute project root.
func (g *Gateway) Root() string { return g.rootPath }

// Policy returns the policy the gateway enforces (nil for a Closed gateway).
func (g *Gateway) Policy() *Policy { return g.policy }

// Close releases the project root.
func (g *Gateway) Close() error {
	if g.root == nil {
		return nil
	}
	return g.root.Close()
}

// CallJSON is Call with the raw JSON arguments string the model produced.
// Malformed JSON becomes an "[ERROR] ..." result.
func (g *Gateway) CallJSON(ctx context.Context, tool, argsJSON string) Result {
	if strings.TrimSpace(argsJSON) == "" {
		return g.Call(ctx, tool, map[string]any{})
	}
	args, err := decodeArgs(argsJSON)
	if err != nil || args == nil {
		start := g.now()
		msg := "the arguments must be a JSON object"
		var typeErr *json.UnmarshalTypeError
		switch {
		case errors.As(err, &typeErr) && typeErr.Type != nil && typeErr.Type.Kind() == reflect.Float64:
			// Inside the object (the object itself decodes into a map): a
			// number too large for a float64, such as 1e400.
			msg = fmt.Sprintf("cannot read the arguments: the %s (at byte %d) is out of range; send it as a string", typeErr.Value, typeErr.Offset)
		case errors.As(err, &typeErr):
			msg = fmt.Sprintf("the arguments must be a JSON object of named parameters, not %s %s", article(typeErr.Value), typeErr.Value)
		case err != nil:
			msg = "cannot parse the arguments as JSON: " + err.Error()
		}
		// The model sees its own malformed call as {} in the history (providers
		// refuse anything else there), so the error says what it sent.
		sent := quote(argsJSON)
		if len(argsJSON) > 120 {
			sent += fmt.Sprintf(" (%d bytes)", len(argsJSON))
		}
		msg += "; the arguments sent were " + sent
		if ex := argsExample[tool]; ex != "" {
			msg += "; send one JSON object, e.g. " + ex
		}
		res := failed("%s", msg)
		res.Duration = g.now().Sub(start)
		g.writeAudit(start, tool, "", map[string]any{"raw": truncate(argsJSON, 512)}, res, 0)
		g.observeCall(ctx, CallInfo{Tool: tool, Start: start, Result: res})
		return res
	}
	return g.Call(ctx, tool, args)
}

// argsExample shows each tool's arguments, for a call whose arguments are not a JSON object.
var argsExample = map[string]string{
	ToolCLI:    `{"tool_name": "list_files", "params": {"path": "."}}`,
	ToolRunner: `{"script_name": "scripts/write_file.py", "args": ["out.md"], "stdin_text": "..."}`,
}

// readOnlyKey marks a context whose tool calls may not change files.
type readOnlyKey struct{}

// ReadOnly returns a context in which the gateway refuses every tool call
// that changes files: make_directory, copy_file and move_file, and the
// writes of the project's scripts (they get LPPCTL_READ_ONLY=1 and refuse
// through _lpp_common.safe_path). For a checker such as the evaluator.
func ReadOnly(ctx context.Context) context.Context {
	return context.WithValue(ctx, readOnlyKey{}, true)
}

func isReadOnly(ctx context.Context) bool {
	ro, _ := ctx.Value(readOnlyKey{}).(bool)
	return ro
}

// writeSubCommands are the native sub-commands that change files.
var writeSubCommands = map[string]bool{"make_directory": true, "copy_file": true, "move_file": true}

// Call runs one tool call as the model sent it; args is the decoded JSON object.
// Model mistakes never come back as Go errors: they are [ERROR] or
// [SECURITY BLOCKED] results. Call never panics.
func (g *Gateway) Call(ctx context.Context, tool string, args map[string]any) (res Result) {
	start := g.now()
	sub := ""
	defer func() {
		if r := recover(); r != nil {
			res = failed("internal error in the gateway: %v", r)
			if os.Getenv("LPPCTL_GATEWAY_DEBUG") != "" {
				res.Text += "\n" + string(debug.Stack())
			}
		}
		res.Duration = g.now().Sub(start)
		g.writeAudit(start, tool, sub, args, res, len(res.Text))
		g.observeCall(ctx, CallInfo{Tool: tool, SubCommand: sub, Args: args, Start: start, Result: res})
	}()
	if ctx == nil {
		ctx = context.Background()
	}
	if g.closedErr != nil {
		return blocked(refuse(rulePolicy, "no valid tool policy is loaded, so every tool call is refused (%v)", g.closedErr))
	}
	replay, done, err := g.recordEffects(ctx, tool, args)
	switch {
	case err != nil:
		return failed("cannot record the tool call before it runs, so it did not run: %v", err)
	case replay != nil:
		return *replay
	case done != nil:
		defer func() { done(res) }()
	}
	switch tool {
	case ToolCLI:
		return g.callCLI(ctx, args, &sub)
	case ToolRunner:
		return g.callRunner(ctx, args, ToolRunner)
	default:
		return blocked(refuse(ruleUnknownTool, "%s is not an available tool (available: %s, %s)", quote(tool), ToolCLI, ToolRunner))
	}
}

// callCLI decodes safe_cli_executor's arguments and dispatches the sub-command.
func (g *Gateway) callCLI(ctx context.Context, args map[string]any, sub *string) Result {
	name, rest, err := takeString(args, "tool_name", "command", "sub_command", "subcommand", "tool", "name")
	if err != nil {
		return failed("safe_cli_executor: %v", err)
	}
	*sub = name
	if name == "" {
		return failed("safe_cli_executor: missing \"tool_name\" (one of: %s)", strings.Join(g.subCommandNames(), ", "))
	}
	sc, ok := g.policy.CLI.SubCommands[name]
	if !ok {
		return blocked(refuse(ruleUnknownSubCmd, "%s is not an allowed safe_cli_executor sub-command%s (allowed by safe_cli_executor.sub_commands in the policy: %s)",
			quote(name), didYouMean(name, g.subCommandNames()), strings.Join(g.subCommandNames(), ", ")))
	}
	params, err := takeParams(rest)
	if err != nil {
		return failed("%s: %v", name, err)
	}
	if name == "python_run" {
		return g.callRunner(ctx, params, "python_run")
	}
	if writeSubCommands[name] && isReadOnly(ctx) {
		return blocked(refuse(ruleReadOnly, "%s changes files, and this tool call may only look (a checker such as the evaluator verifies the work, it does not change it); use read_file, list_files or tree", name))
	}
	vals, res, ok := g.checkParams(sc, params)
	if !ok {
		return res
	}
	tctx, cancel := context.WithTimeout(ctx, sc.Timeout)
	defer cancel()
	res = g.runNative(tctx, sc, vals)
	if res.TimedOut && ctx.Err() == nil {
		// The sub-command's own limit ran out: say which, and where it is set.
		res.Text = fmt.Sprintf("[ERROR] %s: timed out after %s (the policy's safe_cli_executor.sub_commands.%s.timeout)", name, sc.Timeout, name)
	}
	return res
}

func (g *Gateway) subCommandNames() []string { return sortedKeys(g.policy.CLI.SubCommands) }

// checkParams maps aliases to parameter names and applies the length limit,
// the blocked patterns, the path rules and the policy regexes.
func (g *Gateway) checkParams(sc *SubCommand, params map[string]any) (map[string]string, Result, bool) {
	vals := map[string]string{}
	given := map[string]string{} // parameter -> the name it was given under
	for _, k := range sortedKeys(params) {
		canon := ""
		for pn, p := range sc.Params {
			if k == pn || contains(p.Aliases, k) {
				canon = pn
			}
		}
		if canon == "" {
			return nil, failed("%s: unknown parameter %s%s (%s takes: %s)", sc.Name, quote(k), didYouMean(k, sortedKeys(sc.Params)), sc.Name, paramList(sc)), false
		}
		if _, dup := vals[canon]; dup {
			return nil, failed("%s: parameter %q given twice, as %s and as %s; send it once", sc.Name, canon, quote(given[canon]), quote(k)), false
		}
		s, ok := scalar(params[k])
		if !ok {
			return nil, failed("%s: parameter %s must be a string", sc.Name, quote(k)), false
		}
		vals[canon] = s
		given[canon] = k
	}
	for pn, req := range nativeParams[sc.Name] {
		if req && vals[pn] == "" {
			return nil, failed("%s: missing parameter %q (%s takes: %s)", sc.Name, pn, sc.Name, paramList(sc)), false
		}
	}
	lim := g.policy.Limits.MaxParamBytes
	parts := []string{sc.Name}
	for _, k := range sortedKeys(vals) {
		if len(vals[k]) > lim {
			return nil, blocked(refuse(ruleParamTooLong, "%s.%s is %d bytes long (limit %d: limits.max_param_bytes in the policy)", sc.Name, k, len(vals[k]), lim)), false
		}
		parts = append(parts, vals[k])
	}
	if r := g.scanBlocked("the call", parts...); r != nil {
		return nil, blocked(r), false
	}
	for _, k := range sortedKeys(vals) {
		v := vals[k]
		if v == "" {
			continue
		}
		if isPathParam(k) {
			c, r := checkPathSyntax(v)
			if r != nil {
				r.detail = sc.Name + "." + k + " " + r.detail
				return nil, blocked(r), false
			}
			_ = c
		}
		if p := sc.Params[k]; p.Pattern != nil && !p.Pattern.MatchString(v) {
			return nil, blocked(refuse(ruleParamPattern, "%s.%s %s does not match the allowed pattern %s (safe_cli_executor.sub_commands.%s.params.%s.pattern in the policy)", sc.Name, k, quote(v), p.Pattern, sc.Name, k)), false
		}
	}
	return vals, Result{}, true
}

func isPathParam(name string) bool { return name == "path" || name == "src" || name == "dst" }

func paramList(sc *SubCommand) string {
	names := orderedParams(sc)
	if len(names) == 0 {
		return "no parameters"
	}
	return strings.Join(names, ", ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ifsTricks are shell spellings of a blank that payloads use to dodge filters.
var ifsTricks = strings.NewReplacer("${IFS}", " ", "$IFS$9", " ", "$IFS", " ", "\t", " ")

// scanBlocked checks parts (joined by spaces) against the blocked patterns.
func (g *Gateway) scanBlocked(what string, parts ...string) *refusal {
	text := ifsTricks.Replace(strings.Join(parts, " "))
	if any := g.policy.blockedAny; any != nil && len(g.policy.Blocked) > 0 && !any.MatchString(text) {
		return nil
	}
	for _, b := range g.policy.Blocked {
		if loc := b.Re.FindStringIndex(text); loc != nil {
			desc := ""
			if b.Description != "" {
				desc = " (" + b.Description + ")"
			}
			return refuse(ruleBlockedPattern+":"+b.Name, "%s matches the blocked pattern %q%s at %s (blocked_patterns in the policy)", what, b.Name, desc, quote(text[loc[0]:loc[1]]))
		}
	}
	return nil
}

// auditRecord is one JSON line of the audit log.
type auditRecord struct {
	Time        string         `json:"time"`
	Tool        string         `json:"tool"`
	SubCommand  string         `json:"sub_command,omitempty"`
	Params      map[string]any `json:"params,omitempty"`
	Decision    string         `json:"decision"`
	Rule        string         `json:"rule,omitempty"`
	ExitCode    int            `json:"exit_code"`
	DurationMS  float64        `json:"duration_ms"`
	OutputBytes int            `json:"output_bytes"`
	TimedOut    bool           `json:"timed_out,omitempty"`
}

func (g *Gateway) writeAudit(start time.Time, tool, sub string, args map[string]any, res Result, outBytes int) {
	if g.audit == nil {
		return
	}
	rec := auditRecord{
		Time:        start.UTC().Format(time.RFC3339Nano),
		Tool:        truncate(tool, 128),
		SubCommand:  truncate(sub, 128),
		Params:      auditParams(args),
		Decision:    res.Decision,
		Rule:        res.Rule,
		ExitCode:    res.ExitCode,
		DurationMS:  float64(res.Duration.Microseconds()) / 1000,
		OutputBytes: outBytes,
		TimedOut:    res.TimedOut,
	}
	line, err := json.Marshal(rec)
	if err != nil {
		rec.Params = map[string]any{"unencodable": fmt.Sprintf("%T", args)}
		line, _ = json.Marshal(rec)
	}
	line = append(line, '\n')
	g.auditMu.Lock()
	defer g.auditMu.Unlock()
	_, _ = g.audit.Write(line)
}

// auditParams copies args for the log, shortening long strings and recording
// only the size of stdin.
func auditParams(args map[string]any) map[string]any {
	if len(args) == 0 {
		return nil
	}
	var walk func(v any, depth int) any
	walk = func(v any, depth int) any {
		if depth > 4 {
			return "…"
		}
		switch x := v.(type) {
		case string:
			return truncate(x, 512)
		case map[string]any:
			m := make(map[string]any, len(x))
			for k, e := range x {
				if k == "stdin_text" || k == "stdin" || k == "input" {
					if s, ok := e.(string); ok {
						m[k] = fmt.Sprintf("<%d bytes>", len(s))
						continue
					}
				}
				m[truncate(k, 128)] = walk(e, depth+1)
			}
			return m
		case []any:
			out := make([]any, 0, min(len(x), 64))
			for i, e := range x {
				if i == 64 {
					out = append(out, fmt.Sprintf("… %d more", len(x)-64))
					break
				}
				out = append(out, walk(e, depth+1))
			}
			return out
		case []string:
			return walk(toAnySlice(x), depth)
		case map[string]string:
			m := make(map[string]any, len(x))
			for k, e := range x {
				m[k] = e
			}
			return walk(m, depth)
		case nil, bool, float64, int, int64, json.Number:
			return x
		default:
			return fmt.Sprintf("%T", x)
		}
	}
	m, _ := walk(args, 0).(map[string]any)
	return m
}

func toAnySlice(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// quoteList quotes model-supplied names for a message, at most 8 of them.
func quoteList(names []string) string {
	q := make([]string, 0, min(len(names), 9))
	for i, n := range names {
		if i == 8 {
			q = append(q, fmt.Sprintf("and %d more", len(names)-8))
			break
		}
		q = append(q, quote(n))
	}
	return strings.Join(q, ", ")
}

// article returns "an" before a word starting with a vowel, else "a".
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}
