package gateway

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
)

// ToolDef describes one tool for LLM tool calling. Parameters is a JSON schema.
type ToolDef struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
}

// Tools returns the definitions of safe_cli_executor and safe_py_runner,
// generated from the policy.
func (g *Gateway) Tools() []ToolDef { return g.tools(false) }

// ReadOnlyTools returns the tools for a caller whose calls run in a ReadOnly
// context (a checker such as the evaluator): safe_cli_executor offers only
// the sub-commands that look (list_files, read_file, tree), since the others
// would always be refused; safe_py_runner stays (scripts run with
// LPPCTL_READ_ONLY=1, so the project's write scripts refuse to write).
func (g *Gateway) ReadOnlyTools() []ToolDef { return g.tools(true) }

func (g *Gateway) tools(readOnly bool) []ToolDef {
	if g.policy == nil {
		return []ToolDef{
			{Name: ToolCLI, Description: "Unavailable: no valid tool policy is loaded.", Parameters: map[string]any{"type": "object", "properties": map[string]any{}}},
			{Name: ToolRunner, Description: "Unavailable: no valid tool policy is loaded.", Parameters: map[string]any{"type": "object", "properties": map[string]any{}}},
		}
	}
	p := g.policy
	names := g.subCommandNames()
	if readOnly {
		names = slices.DeleteFunc(names, func(n string) bool { return writeSubCommands[n] })
	}
	var sub strings.Builder
	for _, name := range names {
		sc := p.CLI.SubCommands[name]
		fmt.Fprintf(&sub, "\n- %s(%s): %s", name, g.paramSignature(sc), sc.Description)
	}
	cli := ToolDef{
		Name:        ToolCLI,
		Description: p.CLI.Description + "\nSub-commands:" + sub.String(),
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"tool_name": map[string]any{
					"type":        "string",
					"enum":        toAnySlice(names),
					"description": "the sub-command to run",
				},
				"params": map[string]any{
					"type":                 "object",
					"description":          "the sub-command's parameters, e.g. {\"path\": \"skills/x/skills.md\"}",
					"properties":           g.paramSchema(names),
					"additionalProperties": false,
				},
			},
			"required":             []any{"tool_name"},
			"additionalProperties": false,
		},
	}
	runner := ToolDef{
		Name:        ToolRunner,
		Description: fmt.Sprintf("%s Scripts live under: %s.", p.Runner.Description, strings.Join(p.Runner.ScriptDirs, ", ")),
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"script_name": map[string]any{
					"type":        "string",
					"description": "root-relative path of the .py script, e.g. scripts/write_file.py",
				},
				"args": map[string]any{
					"type":        "array",
					"items":       map[string]any{"type": "string"},
					"maxItems":    p.Runner.MaxArgs,
					"description": "command-line arguments for the script (no shell: quoting is not needed)",
				},
				"env_vars": map[string]any{
					"type":                 "object",
					"additionalProperties": map[string]any{"type": "string"},
					"maxProperties":        p.Runner.Env.MaxVars,
					"description":          envVarsDescription(p.Runner.Env.AllowKeys),
				},
				"stdin_text": map[string]any{
					"type":        "string",
					"description": "text piped to the script's standard input (e.g. the content write_file.py writes)",
				},
			},
			"required":             []any{"script_name"},
			"additionalProperties": false,
		},
	}
	return []ToolDef{cli, runner}
}

// envVarsDescription tells the model which env_vars keys it may set.
func envVarsDescription(allow []string) string {
	if len(allow) == 0 {
		return "extra environment variables: none may be set (pass values as args)"
	}
	return "extra environment variables; only these names may be set: " + strings.Join(allow, ", ") + " (any other name is refused; pass other values as args)"
}

// paramSchema merges the parameters of the named sub-commands into one object schema.
func (g *Gateway) paramSchema(names []string) map[string]any {
	props := map[string]any{}
	for _, name := range names {
		sc := g.policy.CLI.SubCommands[name]
		if name == "python_run" {
			for _, k := range []string{"script_name", "stdin_text"} {
				props[k] = map[string]any{"type": "string", "description": "python_run: see safe_py_runner"}
			}
			props["args"] = map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "python_run: see safe_py_runner"}
			props["env_vars"] = map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}, "description": "python_run: see safe_py_runner"}
			continue
		}
		for _, pn := range sortedKeys(sc.Params) {
			prm := sc.Params[pn]
			entry, _ := props[pn].(map[string]any)
			if entry == nil {
				entry = map[string]any{"type": "string"}
				props[pn] = entry
			}
			line := name + ": " + prm.Description
			if d, ok := entry["description"].(string); ok {
				line = d + "; " + line
			}
			entry["description"] = line
		}
	}
	return props
}

func (g *Gateway) paramSignature(sc *SubCommand) string {
	if sc.Name == "python_run" {
		return "script_name, args?, env_vars?, stdin_text?"
	}
	var parts []string
	for _, pn := range orderedParams(sc) {
		if !nativeParams[sc.Name][pn] {
			pn += "?"
		}
		parts = append(parts, pn)
	}
	return strings.Join(parts, ", ")
}

// ToolDocs returns a readable description of both tools for prompts.
func (g *Gateway) ToolDocs() string {
	if g.policy == nil {
		return "No tools are available: no valid tool policy is loaded.\n"
	}
	p := g.policy
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n%s\nCall it as {\"tool_name\": \"<sub-command>\", \"params\": {...}}.\n\n", ToolCLI, p.CLI.Description)
	for _, name := range g.subCommandNames() {
		sc := p.CLI.SubCommands[name]
		fmt.Fprintf(&b, "- %s(%s): %s\n", name, g.paramSignature(sc), sc.Description)
		for _, pn := range orderedParams(sc) {
			fmt.Fprintf(&b, "    %s: %s\n", pn, sc.Params[pn].Description)
		}
	}
	fmt.Fprintf(&b, "\n## %s\n%s\nCall it as {\"script_name\": \"scripts/write_file.py\", \"args\": [\"out.md\"], \"env_vars\": {}, \"stdin_text\": \"...\"}.\n", ToolRunner, p.Runner.Description)
	fmt.Fprintf(&b, "Scripts must be .py files under: %s. At most %d args; the timeout is %s.\n", strings.Join(p.Runner.ScriptDirs, ", "), p.Runner.MaxArgs, p.Runner.Timeout)
	if list, err := g.Scripts(); err == nil && len(list) > 0 {
		b.WriteString("Available scripts:\n")
		for _, s := range list {
			fmt.Fprintf(&b, "- %s\n", s)
		}
	}
	fmt.Fprintf(&b, "\n## Results\nA refused call returns a result starting %s and naming the rule; an ordinary failure starts %s; an empty result reads %s.\n", PrefixBlocked, PrefixError, NoOutput)
	return b.String()
}

// Scripts lists the .py scripts the runner would accept, root-relative and
// sorted. Files whose name starts with "_" (helper modules) are left out.
func (g *Gateway) Scripts() ([]string, error) {
	if g.policy == nil {
		return nil, fmt.Errorf("cannot list scripts: no policy")
	}
	fsys := g.root.FS()
	seen := map[string]bool{}
	var out []string
	var starts []string
	for _, d := range g.policy.Runner.ScriptDirs {
		matches, err := fs.Glob(fsys, d)
		if err != nil {
			return nil, fmt.Errorf("cannot list scripts: %w", err)
		}
		starts = append(starts, matches...)
	}
	for _, start := range starts {
		err := fs.WalkDir(fsys, start, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable parts are skipped
			}
			if d.IsDir() {
				if p != start && (strings.HasPrefix(d.Name(), ".") || d.Name() == "__pycache__" || g.policy.hiddenBy(p) != "") {
					return fs.SkipDir
				}
				return nil
			}
			if path.Ext(p) != ".py" || strings.HasPrefix(d.Name(), "_") || seen[p] {
				return nil
			}
			if _, r := checkPathSyntax(p); r != nil || !g.inScriptDir(p) || g.policy.hiddenBy(p) != "" {
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 {
				res, r, err := g.resolve(p, p)
				if r != nil || err != nil || !g.inScriptDir(res) || path.Ext(res) != ".py" || g.policy.hiddenBy(res) != "" {
					return nil
				}
			}
			seen[p] = true
			out = append(out, p)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("cannot list scripts: %w", err)
		}
	}
	sort.Strings(out)
	return out, nil
}
