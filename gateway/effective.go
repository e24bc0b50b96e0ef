package gateway

import (
	"bytes"
	"fmt"
	"regexp"

	"gopkg.in/yaml.v3"
)

// Effective returns the policy as the gateway enforces it, in the policy
// file's own format: every default filled in, paths cleaned, keys in the
// file's order. Parsing the result gives the same policy.
func (p *Policy) Effective() ([]byte, error) {
	doc := effPolicy{
		Version:        p.Version,
		ProtectedPaths: nonNil(p.Protected),
		Limits: effLimits{
			MaxOutputBytes: p.Limits.MaxOutputBytes, ReadFileMaxBytes: p.Limits.ReadFileMaxBytes,
			ListMaxEntries: p.Limits.ListMaxEntries, ListMaxBytes: p.Limits.ListMaxBytes, TreeMaxDepth: p.Limits.TreeMaxDepth,
			TreeMaxEntries: p.Limits.TreeMaxEntries, CopyMaxBytes: p.Limits.CopyMaxBytes,
			MaxParamBytes: p.Limits.MaxParamBytes, MaxStdinBytes: p.Limits.MaxStdinBytes,
			MaxScriptBytes: p.Limits.MaxScriptBytes,
		},
		CLI: effCLI{Description: p.CLI.Description, SubCommands: map[string]effSubCommand{}},
	}
	doc.HiddenPaths = []string{}
	for _, h := range p.Hidden {
		doc.HiddenPaths = append(doc.HiddenPaths, h.Pattern)
	}
	doc.BlockedPatterns = []rawBlocked{}
	for _, b := range p.Blocked {
		doc.BlockedPatterns = append(doc.BlockedPatterns, rawBlocked{Name: b.Name, Pattern: b.Pattern, Description: b.Description})
	}
	for name, sc := range p.CLI.SubCommands {
		esc := effSubCommand{Description: sc.Description, Timeout: sc.Timeout.String()}
		if len(sc.Params) > 0 {
			esc.Params = map[string]rawParam{}
			for pn, prm := range sc.Params {
				esc.Params[pn] = rawParam{Description: prm.Description, Pattern: prm.Pattern.String(), Aliases: prm.Aliases}
			}
		}
		doc.CLI.SubCommands[name] = esc
	}
	r := p.Runner
	doc.Runner = effRunner{
		Description: r.Description, Python: r.Python, Timeout: r.Timeout.String(), Sandbox: r.Sandbox,
		ScriptDirs: nonNil(r.ScriptDirs), MaxArgs: r.MaxArgs, ArgPattern: regexString(r.ArgPattern),
		Env: effEnv{
			Inherit:      nonNil(r.Env.Inherit),
			InheritFor:   r.Env.InheritFor,
			Set:          r.Env.Set,
			AllowKeys:    nonNil(r.Env.AllowKeys),
			DenyKeys:     []string{},
			ValuePattern: regexString(r.Env.ValuePattern),
			MaxVars:      r.Env.MaxVars,
		},
	}
	if doc.Runner.Env.InheritFor == nil {
		doc.Runner.Env.InheritFor = map[string][]string{}
	}
	for _, d := range r.Env.DenyKeys {
		doc.Runner.Env.DenyKeys = append(doc.Runner.Env.DenyKeys, d.Pattern)
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# effective policy of %s: what the gateway enforces, defaults filled in\n", p.Name)
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("cannot encode policy: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("cannot encode policy: %w", err)
	}
	return buf.Bytes(), nil
}

// The effective policy's shape: rawPolicy's keys in the file's order, with
// every list present (an empty list prints as [], never as an omitted key,
// which would mean the default).
type effPolicy struct {
	Version         int          `yaml:"version"`
	ProtectedPaths  []string     `yaml:"protected_paths"`
	HiddenPaths     []string     `yaml:"hidden_paths"`
	Limits          effLimits    `yaml:"limits"`
	BlockedPatterns []rawBlocked `yaml:"blocked_patterns"`
	CLI             effCLI       `yaml:"safe_cli_executor"`
	Runner          effRunner    `yaml:"safe_py_runner"`
}

type effLimits struct {
	MaxOutputBytes   int   `yaml:"max_output_bytes"`
	ReadFileMaxBytes int   `yaml:"read_file_max_bytes"`
	ListMaxEntries   int   `yaml:"list_max_entries"`
	ListMaxBytes     int   `yaml:"list_max_bytes"`
	TreeMaxDepth     int   `yaml:"tree_max_depth"`
	TreeMaxEntries   int   `yaml:"tree_max_entries"`
	CopyMaxBytes     int64 `yaml:"copy_max_bytes"`
	MaxParamBytes    int   `yaml:"max_param_bytes"`
	MaxStdinBytes    int   `yaml:"max_stdin_bytes"`
	MaxScriptBytes   int   `yaml:"max_script_bytes"`
}

type effCLI struct {
	Description string                   `yaml:"description"`
	SubCommands map[string]effSubCommand `yaml:"sub_commands"`
}

type effSubCommand struct {
	Description string              `yaml:"description"`
	Timeout     string              `yaml:"timeout"`
	Params      map[string]rawParam `yaml:"params,omitempty"`
}

type effRunner struct {
	Description string   `yaml:"description"`
	Python      string   `yaml:"python"`
	Timeout     string   `yaml:"timeout"`
	ScriptDirs  []string `yaml:"script_dirs"`
	MaxArgs     int      `yaml:"max_args"`
	ArgPattern  string   `yaml:"arg_pattern"`
	Env         effEnv   `yaml:"env"`
	Sandbox     string   `yaml:"sandbox"`
}

type effEnv struct {
	Inherit      []string            `yaml:"inherit"`
	InheritFor   map[string][]string `yaml:"inherit_for"`
	Set          map[string]string   `yaml:"set"`
	AllowKeys    []string            `yaml:"allow_keys"`
	DenyKeys     []string            `yaml:"deny_keys"`
	ValuePattern string              `yaml:"value_pattern"`
	MaxVars      int                 `yaml:"max_vars"`
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// regexString returns re's source, or "" for nil.
func regexString(re *regexp.Regexp) string {
	if re == nil {
		return ""
	}
	return re.String()
}
