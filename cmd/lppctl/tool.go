package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/lppctl/lppctl/gateway"
	"github.com/urfave/cli/v2"
)

const toolUsage = `usage:
  lppctl tool safe_cli_executor SUB_COMMAND [NAME=VALUE ...] [flags]
  lppctl tool safe_py_runner SCRIPT [--arg A ...] [--env K=V ...]
         [--stdin TEXT | --stdin-file FILE] [flags]
  lppctl tool NAME --args-json '{...}' [flags]
  lppctl tool --docs [flags]
  lppctl tool --policy-check [flags]

Runs one tool call through the security gateway, exactly as the model would
make it, and prints what the model would get back. Exit code 0 when the gateway
answered (even with [SECURITY BLOCKED] or [ERROR]), 2 on usage errors, 3 when
the policy is invalid.

flags:
  --root DIR          project root (default: the current directory or the nearest
                      folder above it holding config/tools_config.yaml, as run
                      finds it)
  --policy FILE       policy file (default: config/tools_config.yaml under the root)
  --json              print the whole result as JSON
  --arg VALUE         a script argument (repeatable)
  --env KEY=VALUE     an extra environment variable for the script (repeatable)
  --stdin TEXT        text piped to the script
  --stdin-file FILE   file whose content is piped to the script ("-" for lppctl's stdin)
  --args-json JSON    the raw JSON arguments object, as the model sends it
  --docs              print the tool documentation the model is given
  --policy-check      check the policy and print it as the gateway enforces it
                      (every omitted key with its default filled in)
`

// toolArgsUsage is tool's usage line after "lppctl tool".
const toolArgsUsage = "safe_cli_executor SUB_COMMAND [NAME=VALUE ...] | safe_py_runner SCRIPT [--arg A] [--env K=V] [--stdin TEXT|--stdin-file F]"

// toolArgs is the parsed command line of `lppctl tool`.
type toolArgs struct {
	root, policy          string
	json, docs, check     bool
	positional            []string
	scriptArgs, env       []string
	stdin, stdinFile      string
	stdinSet, argsJSONSet bool
	argsJSON              string
}

func toolCommand() *cli.Command {
	return &cli.Command{
		Name:            "tool",
		Usage:           "run one gateway tool call by hand and print what the model would get",
		ArgsUsage:       toolArgsUsage,
		SkipFlagParsing: true, // flags may follow the positional arguments; parsed below
		Action: func(c *cli.Context) error {
			ta, help, err := parseToolArgs(c.Args().Slice())
			if err != nil {
				return err
			}
			if help {
				fmt.Fprint(c.App.Writer, toolUsage)
				return nil
			}
			return runTool(c, ta)
		},
	}
}

func parseToolArgs(args []string) (toolArgs, bool, error) {
	var ta toolArgs
	onlyPositional := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if onlyPositional || !strings.HasPrefix(a, "--") && a != "-h" {
			ta.positional = append(ta.positional, a)
			continue
		}
		if a == "--" {
			onlyPositional = true
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		value := func() (string, error) {
			if hasVal {
				return val, nil
			}
			if i+1 >= len(args) {
				return "", usageErrorf("tool: flag --%s needs a value\n\n%s", name, toolUsage)
			}
			i++
			return args[i], nil
		}
		var err error
		switch name {
		case "h", "help":
			return ta, true, nil
		case "json":
			ta.json = true
		case "docs":
			ta.docs = true
		case "policy-check":
			ta.check = true
		case "root":
			ta.root, err = value()
		case "policy":
			ta.policy, err = value()
		case "arg":
			var v string
			v, err = value()
			ta.scriptArgs = append(ta.scriptArgs, v)
		case "env":
			var v string
			if v, err = value(); err == nil {
				if !strings.Contains(v, "=") {
					return ta, false, usageErrorf("tool: --env wants KEY=VALUE, got %q", v)
				}
				ta.env = append(ta.env, v)
			}
		case "stdin":
			ta.stdin, err = value()
			ta.stdinSet = true
		case "stdin-file":
			ta.stdinFile, err = value()
		case "args-json":
			ta.argsJSON, err = value()
			ta.argsJSONSet = true
		default:
			// as every command says it (unknownFlag): the usage line, not the whole help
			return ta, false, usageErrorf("unknown flag %s\nusage: lppctl tool %s (lppctl tool --help for more)", a, toolArgsUsage)
		}
		if err != nil {
			return ta, false, err
		}
	}
	if ta.stdinSet && ta.stdinFile != "" {
		return ta, false, usageErrorf("tool: give --stdin or --stdin-file, not both")
	}
	return ta, false, nil
}

func runTool(c *cli.Context, ta toolArgs) error {
	root := ta.root
	if root == "" {
		root = findProjectRoot(".") // as run finds it: the tool sees what a run's model would
	}
	policyPath := ta.policy
	if policyPath == "" {
		policyPath = filepath.Join(root, "config", "tools_config.yaml")
	}
	if ta.check && (ta.docs || len(ta.positional) > 0) {
		return usageErrorf("tool: --policy-check takes no tool call\n\n%s", toolUsage)
	}
	if !ta.docs && !ta.check && len(ta.positional) == 0 {
		return usageErrorf("tool: name a tool (safe_cli_executor or safe_py_runner)\n\n%s", toolUsage)
	}
	p, err := gateway.LoadPolicy(policyPath)
	if err != nil {
		return withCode(exitInvalidSpec, err)
	}
	if ta.check {
		out, err := p.Effective()
		if err != nil {
			return err
		}
		_, err = c.App.Writer.Write(out)
		return err
	}
	g, err := gateway.New(root, p)
	if err != nil {
		return err
	}
	defer g.Close()
	if ta.docs {
		fmt.Fprint(c.App.Writer, g.ToolDocs())
		return nil
	}

	tool, rest := ta.positional[0], ta.positional[1:]
	ctx := c.Context
	if ctx == nil {
		ctx = context.Background()
	}
	var res gateway.Result
	if ta.argsJSONSet {
		if len(rest) > 0 || len(ta.scriptArgs) > 0 || len(ta.env) > 0 || ta.stdinSet || ta.stdinFile != "" {
			return usageErrorf("tool: --args-json replaces every other argument of the call")
		}
		res = g.CallJSON(ctx, tool, ta.argsJSON)
	} else {
		args, err := toolCallArgs(c, tool, rest, ta)
		if err != nil {
			return err
		}
		res = g.Call(ctx, tool, args)
	}
	if ta.json {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	text := strings.TrimRight(res.Text, "\n")
	if toolOutIsTerminal(c.App.Writer) {
		// On a terminal, escape what would drive it; piped or redirected,
		// the bytes are exactly what the model gets.
		text = terminalSafe(text)
	}
	fmt.Fprintln(c.App.Writer, text)
	return nil
}

// toolOutIsTerminal reports whether `lppctl tool` prints to a terminal (a
// variable: tests stand in for one).
var toolOutIsTerminal = isTerminal

// toolCallArgs builds the JSON-like arguments object the model would send.
func toolCallArgs(c *cli.Context, tool string, rest []string, ta toolArgs) (map[string]any, error) {
	switch tool {
	case gateway.ToolCLI:
		if len(ta.scriptArgs) > 0 || len(ta.env) > 0 || ta.stdinSet || ta.stdinFile != "" {
			return nil, usageErrorf("tool: --arg, --env, --stdin and --stdin-file are for safe_py_runner")
		}
		if len(rest) == 0 {
			return nil, usageErrorf("tool: safe_cli_executor needs a sub-command, e.g. list_files path=skills")
		}
		params := map[string]any{}
		for _, kv := range rest[1:] {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return nil, usageErrorf("tool: parameter %q must be NAME=VALUE", kv)
			}
			params[k] = v
		}
		return map[string]any{"tool_name": rest[0], "params": params}, nil
	case gateway.ToolRunner:
		if len(rest) != 1 {
			return nil, usageErrorf("tool: safe_py_runner needs exactly one script (pass script arguments with --arg)")
		}
		args := map[string]any{"script_name": rest[0]}
		if len(ta.scriptArgs) > 0 {
			list := make([]any, len(ta.scriptArgs))
			for i, a := range ta.scriptArgs {
				list[i] = a
			}
			args["args"] = list
		}
		if len(ta.env) > 0 {
			env := map[string]any{}
			for _, kv := range ta.env {
				k, v, _ := strings.Cut(kv, "=")
				env[k] = v
			}
			args["env_vars"] = env
		}
		switch {
		case ta.stdinSet:
			args["stdin_text"] = ta.stdin
		case ta.stdinFile == "-":
			b, err := readAllLimited(c.App.Reader)
			if err != nil {
				return nil, fmt.Errorf("cannot read stdin: %w", err)
			}
			args["stdin_text"] = string(b)
		case ta.stdinFile != "":
			b, err := os.ReadFile(ta.stdinFile)
			if err != nil {
				return nil, usageErrorf("tool: cannot read --stdin-file: %v", err)
			}
			args["stdin_text"] = string(b)
		}
		return args, nil
	}
	// Unknown tools go to the gateway, which refuses them like the model would see.
	return map[string]any{}, nil
}

func readAllLimited(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, 64<<20+1))
	if err == nil && len(b) > 64<<20 {
		err = fmt.Errorf("more than 64 MiB")
	}
	return b, err
}
