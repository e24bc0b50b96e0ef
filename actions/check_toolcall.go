package actions

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/lppctl/lppctl/gateway"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// toolCommands is what tools.call is checked against: the sub-commands of
// the policy the run would load, or the gateway's built-in ones when none
// can be loaded.
type toolCommands struct {
	list   []gateway.Command
	where  string // "the policy config/tools_config.yaml" or "the gateway"
	policy bool   // the list is a policy's (else the gateway's built-in one)
}

func (t *toolCommands) find(name string) *gateway.Command {
	if i := slices.IndexFunc(t.list, func(c gateway.Command) bool { return c.Name == name }); i >= 0 {
		return &t.list[i]
	}
	return nil
}

func (t *toolCommands) names() []string {
	out := make([]string, len(t.list))
	for i, c := range t.list {
		out[i] = c.Name
	}
	return out
}

// commands loads the policy tools.call is checked against, once.
func (k *checker) commands() *toolCommands {
	if k.cmds != nil {
		return k.cmds
	}
	if k.opts.NoFiles {
		// lppctl check: which sub-commands a policy enables is what a run
		// needs, left to validate (a spec checks the same wherever it is);
		// a policy enables only the gateway's own sub-commands.
		k.cmds = &toolCommands{list: gateway.BuiltinCommands(), where: "the gateway"}
	} else if pol := k.runPolicy(); pol.policy != nil {
		k.cmds = &toolCommands{list: pol.policy.Commands(), where: "the policy " + pol.shown, policy: true}
	} else {
		k.cmds = &toolCommands{list: gateway.BuiltinCommands(), where: "the gateway"}
	}
	return k.cmds
}

// toolsCall checks tools.call: the command against the policy's
// sub-commands, the args' names against the command's parameters (or
// safe_py_runner's arguments), the required ones present, and each
// expression compiling to what its parameter takes.
func (k *checker) toolsCall(st *mspec.State) {
	tool, _ := valueOf(st, "tool").(string)
	command := findParam(st, "command")
	switch {
	case tool == gateway.ToolCLI && command == nil:
		k.errorf(st.DoPos, len(st.Do), "add command: read_file (or another sub-command of the policy)", "action %q with tool %s needs command:", st.Do, tool)
	case tool == gateway.ToolRunner && command != nil:
		k.paramError(st, command, "give the script as args: {script_name: '\"scripts/x.py\"'}", "%s takes no command", tool)
	}
	k.exprEntries(st, "args", nil)
	var what string
	var params []gateway.CommandParam
	switch tool {
	case gateway.ToolRunner:
		what, params = tool, gateway.RunnerParams()
	case gateway.ToolCLI:
		name, ok := valueOf(st, "command").(string)
		if !ok {
			return
		}
		cmds := k.commands()
		c := cmds.find(name)
		if c == nil && cmds.policy && slices.ContainsFunc(gateway.BuiltinCommands(), func(c gateway.Command) bool { return c.Name == name }) {
			k.paramError(st, command, "enable it under safe_cli_executor.sub_commands there, or use one of: "+strings.Join(cmds.names(), ", "),
				"sub-command %q is not enabled in %s", name, cmds.where)
			return
		}
		if c == nil {
			hint := cmds.where + " has: " + strings.Join(cmds.names(), ", ")
			if dym := didYouMean(name, cmds.names()); dym != "" {
				hint = dym + " " + hint
			}
			k.paramError(st, command, hint, "%q is not a sub-command of %s", name, cmds.where)
			return
		}
		what, params = name, c.Params
	default:
		return
	}
	k.toolArgs(st, what, params, !k.opts.NoFiles || tool == gateway.ToolRunner) // the runner's arguments are the gateway's own
}

// toolArgs checks tools.call's args against the parameters of what (a
// sub-command or safe_py_runner). Without named (lppctl check, which reads
// no policy), a key that names no parameter may be an alias the policy
// gives it (read_file's path: also file, file_path): it is neither refused
// nor the required parameters asked for; validate checks them against the
// policy.
func (k *checker) toolArgs(st *mspec.State, what string, params []gateway.CommandParam, named bool) {
	var names []string
	for _, p := range params {
		names = append(names, p.Names()...)
	}
	given := map[string]string{} // parameter → the key that gave it
	unknown := false             // a key named no parameter: a missing one is likely misspelt there
	for _, e := range k.nodes.entries(st, "args") {
		i := slices.IndexFunc(params, func(p gateway.CommandParam) bool { return slices.Contains(p.Names(), e.Key) })
		if i < 0 && !named {
			unknown = true
			continue
		}
		if i < 0 {
			hint := what + " takes: " + signature(params)
			if dym := didYouMean(e.Key, names); dym != "" {
				hint = dym + " " + hint
			}
			k.errorf(e.KPos, len(e.Key), hint, "args.%s of action %q: %s has no parameter %q", e.Key, st.Do, what, e.Key)
			unknown = true
			continue
		}
		p := params[i]
		if prev, dup := given[p.Name]; dup {
			k.errorf(e.KPos, len(e.Key), "keep one of them", "args.%s of action %q: %s gives parameter %q of %s again (args.%s gives it already)", e.Key, st.Do, e.Key, p.Name, what, prev)
			continue
		}
		given[p.Name] = e.Key
		if !p.Scalar {
			continue
		}
		src, ok := exprText(e.Value)
		if !ok {
			continue // exprEntries reports it
		}
		prog, err := mspec.CompileValue(src, mspec.TypeAny, k.env)
		if err != nil {
			continue // exprEntries reports it
		}
		if kind := kindName(prog.Node().Type()); kind != "" {
			pos := e.VPos
			if e.Quoted {
				pos.Col++
			}
			k.errorf(pos, len(src), `give one value, e.g. join(list, ",") or list[0]`,
				"args.%s of action %q: %s's parameter %q takes a string, but the expression gives %s", e.Key, st.Do, what, p.Name, kind)
		}
	}
	for _, p := range params {
		if _, ok := given[p.Name]; ok || !p.Required || unknown {
			continue
		}
		hint := fmt.Sprintf("add args: {%s: EXPRESSION}; %s takes: %s", p.Name, what, signature(params))
		if a := findParam(st, "args"); a != nil {
			k.paramError(st, a, hint, "%s needs parameter %q", what, p.Name)
		} else {
			k.errorf(st.DoPos, len(st.Do), hint, "action %q: %s needs args.%s", st.Do, what, p.Name)
		}
	}
}

// kindName names a list or object type ("a list", "an object"), or "" for
// anything else (scalars, and types known only at run time).
func kindName(t reflect.Type) string {
	if t == nil {
		return ""
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return ""
}

// signature renders parameters for a hint: path (also file, filename), depth?.
func signature(params []gateway.CommandParam) string {
	var parts []string
	for _, p := range params {
		s := p.Name
		if !p.Required {
			s += "?"
		}
		if len(p.Aliases) > 0 {
			s += " (also " + strings.Join(p.Aliases, ", ") + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}
