package gateway

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/lppctl/lppctl/internal/envname"
	"github.com/lppctl/lppctl/internal/textx"
)

// ErrInvalidPolicy is wrapped by every error about a policy's content.
var ErrInvalidPolicy = errors.New("invalid policy")

// Policy is the parsed, validated content of config/tools_config.yaml.
// A Policy is immutable once returned by ParsePolicy or LoadPolicy.
type Policy struct {
	Name       string   // where the policy came from (file path or the name given to ParsePolicy)
	Version    int      // format version; only 1 exists
	Protected  []string // cleaned root-relative paths no write may touch
	Hidden     []HiddenPattern
	Limits     Limits
	Blocked    []BlockedPattern
	blockedAny *regexp.Regexp // all blocked patterns in one alternation: one pass when nothing matches
	CLI        CLIPolicy
	Runner     RunnerPolicy
}

// HiddenPattern is one hidden_paths entry: a glob naming paths the model may
// not read, list, copy, move or pass to a script (see hidden.go).
type HiddenPattern struct {
	Pattern string   // as written in the policy, cleaned
	parts   []string // lower-cased path components, each a valid path.Match pattern
}

// DefaultListMaxBytes is limits.list_max_bytes when the policy leaves it out.
const DefaultListMaxBytes = 64 << 10

// Limits caps sizes and counts.
type Limits struct {
	MaxOutputBytes   int
	ReadFileMaxBytes int
	ListMaxEntries   int
	ListMaxBytes     int // list_files and tree: the entries shown fit in this many bytes
	TreeMaxDepth     int
	TreeMaxEntries   int
	CopyMaxBytes     int64
	MaxParamBytes    int
	MaxStdinBytes    int
	MaxScriptBytes   int
}

// BlockedPattern is one early-filter rule.
type BlockedPattern struct {
	Name        string
	Description string
	Pattern     string         // as written in the policy
	Re          *regexp.Regexp // Pattern, case-insensitive
}

// CLIPolicy describes safe_cli_executor.
type CLIPolicy struct {
	Description string
	SubCommands map[string]*SubCommand
}

// SubCommand is one whitelisted safe_cli_executor sub-command.
type SubCommand struct {
	Name        string
	Description string
	Timeout     time.Duration
	Params      map[string]*Param
}

// Param is one parameter of a sub-command.
type Param struct {
	Name        string
	Description string
	Pattern     *regexp.Regexp
	Aliases     []string
}

// RunnerPolicy describes safe_py_runner.
type RunnerPolicy struct {
	Description string
	Python      string
	Timeout     time.Duration
	ScriptDirs  []string // cleaned; "*" matches one component
	MaxArgs     int
	ArgPattern  *regexp.Regexp
	Env         EnvPolicy
	// Sandbox says which scripts run in the OS sandbox: SandboxGenerated
	// (the default), SandboxAll or SandboxOff.
	Sandbox string
}

// EnvPolicy describes the environment a script gets.
type EnvPolicy struct {
	Inherit      []string
	InheritFor   map[string][]string // script directory → variables only its scripts inherit (a skill's own credentials)
	Set          map[string]string
	AllowKeys    []string  // the exact env_vars keys the model may set
	DenyKeys     []DenyKey // no AllowKeys entry may match one (checked at load, case-insensitively)
	ValuePattern *regexp.Regexp
	MaxVars      int
}

// DenyKey is one safe_py_runner.env.deny_keys entry.
type DenyKey struct {
	Pattern string         // as written in the policy
	Re      *regexp.Regexp // Pattern, case-insensitive: http_proxy is HTTP_PROXY to Python, curl and requests
}

// nativeParams lists the parameters each implemented sub-command understands;
// the required ones are marked true.
var nativeParams = map[string]map[string]bool{
	"list_files":     {"path": false},
	"read_file":      {"path": true},
	"make_directory": {"path": true},
	"tree":           {"path": false, "depth": false},
	"copy_file":      {"src": true, "dst": true},
	"move_file":      {"src": true, "dst": true},
	"python_run":     {},
}

// paramOrder is the order parameters are shown in.
var paramOrder = []string{"path", "src", "dst", "depth"}

// orderedParams returns the names of sc's parameters in display order.
func orderedParams(sc *SubCommand) []string {
	var out []string
	for _, n := range paramOrder {
		if _, ok := sc.Params[n]; ok {
			out = append(out, n)
		}
	}
	return out
}

// implementedSubCommands returns the sub-commands the gateway implements, sorted.
func implementedSubCommands() []string {
	names := make([]string, 0, len(nativeParams))
	for n := range nativeParams {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Raw YAML shapes, decoded strictly.
type rawPolicy struct {
	Version         int           `yaml:"version"`
	ProtectedPaths  *[]string     `yaml:"protected_paths"` // nil: omitted, the default list
	HiddenPaths     *[]string     `yaml:"hidden_paths"`
	Limits          rawLimits     `yaml:"limits"`
	BlockedPatterns *[]rawBlocked `yaml:"blocked_patterns"`
	CLI             *rawCLI       `yaml:"safe_cli_executor"`
	Runner          *rawRunner    `yaml:"safe_py_runner"`
}

type rawLimits struct {
	MaxOutputBytes   *int   `yaml:"max_output_bytes"`
	ReadFileMaxBytes *int   `yaml:"read_file_max_bytes"`
	ListMaxEntries   *int   `yaml:"list_max_entries"`
	ListMaxBytes     *int   `yaml:"list_max_bytes"`
	TreeMaxDepth     *int   `yaml:"tree_max_depth"`
	TreeMaxEntries   *int   `yaml:"tree_max_entries"`
	CopyMaxBytes     *int64 `yaml:"copy_max_bytes"`
	MaxParamBytes    *int   `yaml:"max_param_bytes"`
	MaxStdinBytes    *int   `yaml:"max_stdin_bytes"`
	MaxScriptBytes   *int   `yaml:"max_script_bytes"`
}

type rawBlocked struct {
	Name        string `yaml:"name"`
	Pattern     string `yaml:"pattern"`
	Description string `yaml:"description"`
}

type rawCLI struct {
	Description string                    `yaml:"description"`
	SubCommands map[string]*rawSubCommand `yaml:"sub_commands"`
}

type rawSubCommand struct {
	Description string               `yaml:"description"`
	Timeout     string               `yaml:"timeout"`
	Params      map[string]*rawParam `yaml:"params"`
}

type rawParam struct {
	Description string   `yaml:"description"`
	Pattern     string   `yaml:"pattern"`
	Aliases     []string `yaml:"aliases"`
}

type rawRunner struct {
	Description string   `yaml:"description"`
	Python      string   `yaml:"python"`
	Timeout     string   `yaml:"timeout"`
	ScriptDirs  []string `yaml:"script_dirs"`
	MaxArgs     *int     `yaml:"max_args"`
	ArgPattern  string   `yaml:"arg_pattern"`
	Env         *rawEnv  `yaml:"env"`
	Sandbox     string   `yaml:"sandbox"`
}

type rawEnv struct {
	Inherit      *[]string           `yaml:"inherit"` // nil: omitted, the default list
	InheritFor   map[string][]string `yaml:"inherit_for"`
	Set          *map[string]string  `yaml:"set"`
	AllowKeys    *[]string           `yaml:"allow_keys"`
	DenyKeys     *[]string           `yaml:"deny_keys"`
	ValuePattern string              `yaml:"value_pattern"`
	MaxVars      *int                `yaml:"max_vars"`
}

// LoadPolicy reads and validates the policy file at path. Any problem, a missing
// file included, is an error: callers must then refuse to run tools.
// The file is opened without blocking and must be a regular file: a FIFO
// would otherwise wait for a writer forever.
func LoadPolicy(path string) (*Policy, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, fmt.Errorf("cannot load policy: %w (the gateway refuses every tool call without a valid policy)", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("cannot load policy: %w (the gateway refuses every tool call without a valid policy)", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("cannot load policy %s: %w: it is %s; a policy is a regular file", path, ErrInvalidPolicy, modeKind(fi.Mode()))
	}
	return ParsePolicy(f, path)
}

// ParsePolicy reads and validates a policy from r; name is used in messages.
// Unknown keys, bad regexes, bad durations and unknown sub-commands are errors,
// all reported at once.
func ParsePolicy(r io.Reader, name string) (*Policy, error) {
	data, err := io.ReadAll(io.LimitReader(r, 1<<20+1))
	if err != nil {
		return nil, fmt.Errorf("cannot load policy %s: %w", name, err)
	}
	if len(data) > 1<<20 {
		return nil, fmt.Errorf("cannot load policy %s: %w: larger than 1 MiB", name, ErrInvalidPolicy)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("cannot load policy %s: %w: the file is empty", name, ErrInvalidPolicy)
	}
	raw, doc, msg := decodePolicy(data, name)
	if msg != "" {
		return nil, fmt.Errorf("cannot load policy %s: %w: %s", name, ErrInvalidPolicy, msg)
	}
	p, problems := buildPolicy(raw)
	if len(problems) > 0 {
		for i, pr := range problems {
			problems[i] = positioned(name, doc, pr)
		}
		return nil, &PolicyError{Name: name, Problems: problems}
	}
	p.Name = name
	return p, nil
}

// PolicyError lists every problem found in a policy.
type PolicyError struct {
	Name     string
	Problems []string
}

func (e *PolicyError) Error() string {
	if len(e.Problems) == 1 {
		return fmt.Sprintf("cannot load policy %s: %v: %s", e.Name, ErrInvalidPolicy, e.Problems[0])
	}
	return fmt.Sprintf("cannot load policy %s: %v: %d problems:\n  %s", e.Name, ErrInvalidPolicy, len(e.Problems), strings.Join(e.Problems, "\n  "))
}

// Unwrap lets errors.Is(err, ErrInvalidPolicy) hold.
func (e *PolicyError) Unwrap() error { return ErrInvalidPolicy }

type problemList []string

// aliasName is what a parameter alias may be: a plain name.
var aliasName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// callKeys are the keys of a safe_cli_executor call that name the
// sub-command or hold its parameters (takeString, takeParams): an alias
// spelled like one would never reach the parameter.
var callKeys = map[string]bool{"tool_name": true, "command": true, "sub_command": true, "subcommand": true, "tool": true, "name": true, "params": true, "parameters": true, "arguments": true}

func (p *problemList) addf(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

func (p *problemList) regex(field, expr string, required bool) *regexp.Regexp {
	if expr == "" {
		if required {
			p.addf("%s: missing", field)
		}
		return nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		p.addf("%s: invalid regex: %v", field, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		return nil
	}
	return re
}

func (p *problemList) duration(field, s string) time.Duration {
	if s == "" {
		p.addf("%s: missing (e.g. 30s)", field)
		return 0
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		p.addf("%s: invalid duration %q (e.g. 30s, 2m)", field, s)
		return 0
	}
	if d <= 0 || d > time.Hour {
		p.addf("%s: %s is out of range (0s, 1h]", field, s)
	}
	return d
}

func (p *problemList) positive(field string, v *int, max int) int {
	if v == nil {
		p.addf("%s: missing", field)
		return 0
	}
	if *v <= 0 || *v > max {
		p.addf("%s: %d is out of range [1, %d]", field, *v, max)
	}
	return *v
}

func buildPolicy(raw *rawPolicy) (*Policy, []string) {
	var probs problemList
	p := &Policy{Version: raw.Version}
	if raw.Version != 1 {
		probs.addf("version: must be 1, got %d", raw.Version)
	}

	for i, pp := range orDefault(raw.ProtectedPaths, defaultProtectedPaths) {
		c, err := cleanPolicyPath(pp)
		if err == nil {
			if g := globChar(c, false); g != "" {
				err = fmt.Errorf("%q holds the glob character %s; protected_paths are literal paths (a directory protects everything below it), not globs", pp, g)
			}
		}
		if err != nil {
			probs.addf("protected_paths[%d]: %v", i, err)
			continue
		}
		p.Protected = append(p.Protected, c)
	}

	hidden := map[string]bool{}
	for i, hp := range orDefault(raw.HiddenPaths, defaultHiddenPaths) {
		h, err := compileHidden(hp)
		if err != nil {
			probs.addf("hidden_paths[%d]: %v", i, err)
			continue
		}
		key := strings.Join(h.parts, "/")
		if hidden[key] {
			probs.addf("hidden_paths[%d]: duplicate %q", i, h.Pattern)
			continue
		}
		hidden[key] = true
		p.Hidden = append(p.Hidden, h)
	}

	l := raw.Limits
	p.Limits = Limits{
		MaxOutputBytes:   probs.positive("limits.max_output_bytes", l.MaxOutputBytes, 16<<20),
		ReadFileMaxBytes: probs.positive("limits.read_file_max_bytes", l.ReadFileMaxBytes, 16<<20),
		ListMaxEntries:   probs.positive("limits.list_max_entries", l.ListMaxEntries, 100000),
		ListMaxBytes:     DefaultListMaxBytes,
		TreeMaxDepth:     probs.positive("limits.tree_max_depth", l.TreeMaxDepth, 64),
		TreeMaxEntries:   probs.positive("limits.tree_max_entries", l.TreeMaxEntries, 100000),
		MaxParamBytes:    probs.positive("limits.max_param_bytes", l.MaxParamBytes, 1<<20),
		MaxStdinBytes:    probs.positive("limits.max_stdin_bytes", l.MaxStdinBytes, 64<<20),
		MaxScriptBytes:   probs.positive("limits.max_script_bytes", l.MaxScriptBytes, 64<<20),
	}
	if l.ListMaxBytes != nil { // optional: policies written before it have none
		p.Limits.ListMaxBytes = probs.positive("limits.list_max_bytes", l.ListMaxBytes, 16<<20)
	}
	if l.CopyMaxBytes == nil {
		probs.addf("limits.copy_max_bytes: missing")
	} else if *l.CopyMaxBytes <= 0 || *l.CopyMaxBytes > 1<<40 {
		probs.addf("limits.copy_max_bytes: %d is out of range [1, %d]", *l.CopyMaxBytes, int64(1<<40))
	} else {
		p.Limits.CopyMaxBytes = *l.CopyMaxBytes
	}

	seen := map[string]bool{}
	for i, b := range orDefault(raw.BlockedPatterns, defaultBlockedPatterns) {
		field := fmt.Sprintf("blocked_patterns[%d]", i)
		if !ruleName.MatchString(b.Name) {
			probs.addf("%s.name: %q must match %s", field, b.Name, ruleName)
		} else if seen[b.Name] {
			probs.addf("%s.name: duplicate %q", field, b.Name)
		}
		seen[b.Name] = true
		re := probs.regex(field+".pattern", b.Pattern, true)
		if re != nil {
			// Scanning is case-insensitive.
			re = regexp.MustCompile("(?i)" + b.Pattern)
			p.Blocked = append(p.Blocked, BlockedPattern{Name: b.Name, Description: b.Description, Pattern: b.Pattern, Re: re})
		}
	}

	if len(p.Blocked) > 0 {
		alts := make([]string, len(p.Blocked))
		for i, b := range p.Blocked {
			alts[i] = "(?:" + b.Re.String() + ")"
		}
		p.blockedAny = regexp.MustCompile(strings.Join(alts, "|"))
	}

	if raw.CLI == nil {
		probs.addf("safe_cli_executor: missing")
	} else {
		p.CLI = buildCLI(raw.CLI, &probs)
	}
	if raw.Runner == nil {
		probs.addf("safe_py_runner: missing")
	} else {
		p.Runner = buildRunner(raw.Runner, &probs)
		p.checkHiddenScriptDirs(raw.Runner.ScriptDirs, &probs)
	}
	return p, probs
}

// checkHiddenScriptDirs refuses a script directory whose scripts hidden_paths
// hides (script_dirs: [.git], or hidden_paths: ["*.py"]): the runner refuses
// a hidden script, so none of them could ever run.
func (p *Policy) checkHiddenScriptDirs(dirs []string, probs *problemList) {
	for i, d := range dirs {
		c, err := cleanPolicyPath(d)
		if err != nil {
			continue // reported by buildRunner
		}
		// Two unlike scripts stand for every script below c (a "*" of c
		// for two unlike folder names): a pattern that hides both hides
		// them all ("*.py", "scripts", "?*"), one that hides some does not
		// ("write_*.py", "?").
		var pat string
		for j, probe := range [][2]string{{"a", "a.py"}, {"Zq-9_x", "sub_dir/long_name-2.py"}} {
			parts := strings.Split(c, "/")
			for k := range parts {
				if parts[k] == "*" {
					parts[k] = probe[0]
				}
			}
			h := p.hiddenBy(path.Join(append(parts, probe[1])...))
			if j == 0 {
				pat = h
			} else if h == "" {
				pat = ""
			}
		}
		if pat != "" {
			probs.addf("safe_py_runner.script_dirs[%d]: the scripts in %q match the hidden path pattern %q (hidden_paths), so none of them could run; remove the directory from script_dirs or narrow the pattern", i, d, pat)
		}
	}
}

var ruleName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

func buildCLI(raw *rawCLI, probs *problemList) CLIPolicy {
	c := CLIPolicy{Description: strings.TrimSpace(raw.Description), SubCommands: map[string]*SubCommand{}}
	if c.Description == "" {
		probs.addf("safe_cli_executor.description: missing")
	}
	if len(raw.SubCommands) == 0 {
		probs.addf("safe_cli_executor.sub_commands: missing (list at least one of %s)", strings.Join(implementedSubCommands(), ", "))
	}
	for _, name := range sortedKeys(raw.SubCommands) {
		rs := raw.SubCommands[name]
		field := "safe_cli_executor.sub_commands." + name
		known, ok := nativeParams[name]
		if !ok {
			probs.addf("%s: unknown sub-command%s (implemented: %s)", field, didYouMean(name, implementedSubCommands()), strings.Join(implementedSubCommands(), ", "))
			continue
		}
		if rs == nil {
			probs.addf("%s: empty", field)
			continue
		}
		sc := &SubCommand{Name: name, Description: strings.TrimSpace(rs.Description), Params: map[string]*Param{}}
		if sc.Description == "" {
			probs.addf("%s.description: missing", field)
		}
		sc.Timeout = probs.duration(field+".timeout", rs.Timeout)
		names := map[string]string{}
		for _, pn := range sortedKeys(rs.Params) {
			rp := rs.Params[pn]
			pf := field + ".params." + pn
			if _, ok := known[pn]; !ok {
				probs.addf("%s: unknown parameter%s (%s takes: %s)", pf, didYouMean(pn, sortedKeys(known)), name, strings.Join(sortedKeys(known), ", "))
				continue
			}
			if rp == nil {
				probs.addf("%s: empty", pf)
				continue
			}
			prm := &Param{Name: pn, Description: strings.TrimSpace(rp.Description), Aliases: rp.Aliases}
			prm.Pattern = probs.regex(pf+".pattern", rp.Pattern, true)
			for _, a := range rp.Aliases {
				switch {
				case !aliasName.MatchString(a):
					probs.addf("%s.aliases: %q is not a parameter name (letters, digits and _, not starting with a digit)", pf, a)
				case callKeys[a]:
					probs.addf("%s.aliases: %q names the sub-command or the parameters object in a call, not a parameter", pf, a)
				}
			}
			for _, n := range append([]string{pn}, rp.Aliases...) {
				if prev, dup := names[n]; dup {
					probs.addf("%s: name %q already used by %s", pf, n, prev)
				}
				names[n] = pn
			}
			sc.Params[pn] = prm
		}
		for pn, req := range known {
			// A parameter given empty ("path:") is reported as empty, not as missing too.
			if _, given := rs.Params[pn]; !given && req {
				probs.addf("%s.params.%s: missing (required by %s)", field, pn, name)
			}
		}
		c.SubCommands[name] = sc
	}
	return c
}

func buildRunner(raw *rawRunner, probs *problemList) RunnerPolicy {
	r := RunnerPolicy{Description: strings.TrimSpace(raw.Description), Python: raw.Python}
	if r.Description == "" {
		probs.addf("safe_py_runner.description: missing")
	}
	if r.Python == "" {
		probs.addf("safe_py_runner.python: missing (e.g. python3)")
	} else if strings.ContainsAny(r.Python, " \t;|&$`") {
		probs.addf("safe_py_runner.python: %q must be a program name or path, not a command line", r.Python)
	}
	r.Timeout = probs.duration("safe_py_runner.timeout", cmp.Or(raw.Timeout, defaultRunnerTimeout))
	r.Sandbox = cmp.Or(raw.Sandbox, SandboxGenerated)
	if r.Sandbox != SandboxGenerated && r.Sandbox != SandboxAll && r.Sandbox != SandboxOff {
		probs.addf("safe_py_runner.sandbox: %q is not one of %s, %s, %s", raw.Sandbox, SandboxGenerated, SandboxAll, SandboxOff)
	}
	if len(raw.ScriptDirs) == 0 {
		probs.addf("safe_py_runner.script_dirs: missing (e.g. [scripts, skills/*])")
	}
	for i, d := range raw.ScriptDirs {
		c, err := cleanPolicyPath(d)
		if err == nil {
			if g := globChar(c, true); g != "" {
				err = fmt.Errorf("%q holds the glob character %s; script_dirs are literal directories where \"*\" may stand for one whole component (skills/*)", d, g)
			}
		}
		if err == nil && (c == "." || c == "*" || strings.HasPrefix(c, "*/")) {
			// Script directories are write-protected (see scriptRoots): a script
			// directory at the root would make the whole project read-only.
			err = fmt.Errorf("%q must start with a fixed directory such as scripts (script directories are write-protected)", d)
		}
		if err != nil {
			probs.addf("safe_py_runner.script_dirs[%d]: %v", i, err)
			continue
		}
		r.ScriptDirs = append(r.ScriptDirs, c)
	}
	r.MaxArgs = probs.positive("safe_py_runner.max_args", raw.MaxArgs, 1024)
	r.ArgPattern = probs.regex("safe_py_runner.arg_pattern", raw.ArgPattern, true)
	if raw.Env == nil {
		probs.addf("safe_py_runner.env: missing")
		return r
	}
	e := raw.Env
	r.Env.Set = map[string]string{}
	for i, re := range orDefault(e.DenyKeys, defaultEnvDenyKeys) {
		if x := probs.regex(fmt.Sprintf("safe_py_runner.env.deny_keys[%d]", i), re, true); x != nil {
			r.Env.DenyKeys = append(r.Env.DenyKeys, DenyKey{Pattern: re, Re: regexp.MustCompile("(?i)" + re)})
		}
	}
	for i, k := range orDefault(e.AllowKeys, defaultEnvAllowKeys) {
		field := fmt.Sprintf("safe_py_runner.env.allow_keys[%d]", i)
		if !envKeyShape.MatchString(k) {
			probs.addf("%s: %q is not a variable name (allow_keys lists the exact names the model may set, e.g. NAME)", field, k)
			continue
		}
		if reason := neverFromModel(k, r.Env.DenyKeys); reason != "" {
			probs.addf("%s: %s must never be set by the model (%s)", field, k, reason)
			continue
		}
		if slices.Contains(r.Env.AllowKeys, k) {
			probs.addf("%s: duplicate %s", field, k)
			continue
		}
		r.Env.AllowKeys = append(r.Env.AllowKeys, k)
	}
	r.Env.ValuePattern = probs.regex("safe_py_runner.env.value_pattern", e.ValuePattern, true)
	r.Env.MaxVars = probs.positive("safe_py_runner.env.max_vars", e.MaxVars, 1024)
	for i, k := range orDefault(e.Inherit, defaultEnvInherit) {
		switch {
		case !envKeyShape.MatchString(k):
			probs.addf("safe_py_runner.env.inherit[%d]: %q is not a variable name", i, k)
		case neverInherited(k) != "":
			probs.addf("safe_py_runner.env.inherit[%d]: %s must never pass to scripts (%s)", i, k, neverInherited(k))
		case envname.Credential(k):
			probs.addf("safe_py_runner.env.inherit[%d]: %s must never pass to every script (it looks like a credential; give it to one skill's scripts with inherit_for)", i, k)
		default:
			r.Env.Inherit = append(r.Env.Inherit, k)
		}
	}
	r.Env.InheritFor = map[string][]string{}
	for _, dir := range sortedKeys(e.InheritFor) {
		field := "safe_py_runner.env.inherit_for." + dir
		c, err := cleanPolicyPath(dir)
		if err != nil {
			probs.addf("%s: %v", field, err)
			continue
		}
		if !slices.ContainsFunc(r.scriptRoots(), func(root string) bool { return c == root || strings.HasPrefix(c, root+"/") }) {
			probs.addf("%s: %q is not inside a script directory (script_dirs)", field, dir)
			continue
		}
		for i, k := range e.InheritFor[dir] {
			switch {
			case !envKeyShape.MatchString(k):
				probs.addf("%s[%d]: %q is not a variable name", field, i, k)
			case neverInherited(k) != "":
				probs.addf("%s[%d]: %s must never pass to scripts (%s)", field, i, k, neverInherited(k))
			default:
				r.Env.InheritFor[c] = append(r.Env.InheritFor[c], k)
			}
		}
	}
	set := orDefault(e.Set, defaultEnvSet)
	for _, k := range sortedKeys(set) {
		if !envKeyShape.MatchString(k) {
			probs.addf("safe_py_runner.env.set: %q is not a variable name", k)
			continue
		}
		if strings.ContainsAny(set[k], "\x00\n") {
			probs.addf("safe_py_runner.env.set.%s: value contains NUL or a newline", k)
			continue
		}
		if what := envname.CredentialValue(set[k]); what != "" {
			probs.addf("safe_py_runner.env.set.%s: the value holds %s; env.set goes to every script and the policy file is readable by the model: give credentials with env.inherit_for", k, what)
			continue
		}
		r.Env.Set[k] = set[k]
	}
	return r
}

// scriptRoots returns the fixed leading part of each script directory
// ("skills" for "skills/*"). Everything below may be run as code, so the
// gateway write-protects these directories.
func (r RunnerPolicy) scriptRoots() []string {
	var out []string
	for _, d := range r.ScriptDirs {
		fixed := d
		if i := strings.Index("/"+d+"/", "/*/"); i >= 0 {
			fixed = strings.TrimSuffix(d[:i], "/")
		}
		if fixed != "" && fixed != "." {
			out = append(out, fixed)
		}
	}
	return out
}

var envKeyShape = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ownVariables is the reason lppctl's own variables never reach scripts.
const ownVariables = "lppctl's own provider variables never reach scripts"

// neverInherited says why no script may inherit k, or "": it loads code, or
// it is one of lppctl's own variables (envname.Own).
func neverInherited(k string) string {
	switch {
	case loadsCode(k):
		return "it changes what code runs"
	case envname.Own(k):
		return ownVariables
	}
	return ""
}

// neverFromModel says why the model may never set k through env_vars, or "":
// the names that load code (PYTHON*, LD_*, DYLD_*), lppctl's own provider
// variables, and whatever a deny_keys pattern matches.
// Names are compared case-insensitively throughout: programs read http_proxy
// before HTTPS_PROXY, and on Windows the two are one variable.
func neverFromModel(k string, deny []DenyKey) string {
	if why := neverInherited(k); why != "" {
		return why
	}
	for _, d := range deny {
		if d.Re.MatchString(k) {
			return "matches deny_keys " + d.Pattern
		}
	}
	return ""
}

// loadsCode reports whether the variable k changes what code a script runs
// (PYTHON*, LD_*, DYLD_*, in any case).
func loadsCode(k string) bool {
	u := strings.ToUpper(k)
	return strings.HasPrefix(u, "PYTHON") || strings.HasPrefix(u, "LD_") || strings.HasPrefix(u, "DYLD_")
}

// globChar returns the first glob character ("*", "?", "[", "]") in the
// clean path p, quoted, or "". With star, a component that is exactly "*"
// is allowed (script_dirs' one-component wildcard).
func globChar(p string, star bool) string {
	for c := range strings.SplitSeq(p, "/") {
		if star && c == "*" {
			continue
		}
		if i := strings.IndexAny(c, "*?[]"); i >= 0 {
			return strconv.Quote(c[i : i+1])
		}
	}
	return ""
}

// cleanPolicyPath cleans a root-relative path written in the policy.
func cleanPolicyPath(p string) (string, error) {
	p = strings.ReplaceAll(strings.TrimSpace(p), `\`, "/")
	if p == "" {
		return "", errors.New("empty path")
	}
	if strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("%q must be relative to the project root", p)
	}
	if strings.HasPrefix(p, "~") {
		return "", fmt.Errorf("%q must be relative to the project root (\"~\" is not a home directory here)", p)
	}
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("%q leaves the project root", p)
	}
	return c, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// didYouMean returns ` (did you mean "x"?)` for the closest candidate, or "".
func didYouMean(s string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := textx.Levenshtein(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}
