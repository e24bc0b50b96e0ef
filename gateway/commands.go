package gateway

import "slices"

// Command describes what a safe_cli_executor sub-command accepts, for a
// checker outside the gateway (a spec's tools.call is checked before it
// runs). The gateway stays the authority: these are the names Call accepts.
type Command struct {
	Name   string
	Params []CommandParam // in display order; python_run: the runner's arguments
}

// CommandParam is one argument a command accepts: its name, the other names
// it is also accepted under, whether it must be given, and whether it takes
// one scalar (a string; numbers and booleans are turned into strings) rather
// than a list or an object.
type CommandParam struct {
	Name     string
	Aliases  []string
	Required bool
	Scalar   bool
}

// Names returns the param's name followed by its aliases.
func (p CommandParam) Names() []string { return append([]string{p.Name}, p.Aliases...) }

// BuiltinCommands returns every sub-command the gateway implements, sorted,
// each with all the parameters it understands (a policy enables a subset:
// see Policy.Commands).
func BuiltinCommands() []Command {
	var out []Command
	for _, name := range implementedSubCommands() {
		if name == "python_run" {
			out = append(out, Command{Name: name, Params: RunnerParams()})
			continue
		}
		c := Command{Name: name}
		for _, pn := range paramOrder {
			if req, ok := nativeParams[name][pn]; ok {
				c.Params = append(c.Params, CommandParam{Name: pn, Required: req, Scalar: true})
			}
		}
		out = append(out, c)
	}
	return out
}

// Commands returns the sub-commands the policy enables, sorted, each with
// the parameters (and aliases) the policy declares for it.
func (p *Policy) Commands() []Command {
	var out []Command
	for _, name := range sortedKeys(p.CLI.SubCommands) {
		sc := p.CLI.SubCommands[name]
		if name == "python_run" {
			out = append(out, Command{Name: name, Params: RunnerParams()})
			continue
		}
		c := Command{Name: name}
		for _, pn := range orderedParams(sc) {
			c.Params = append(c.Params, CommandParam{Name: pn, Aliases: slices.Clone(sc.Params[pn].Aliases), Required: nativeParams[name][pn], Scalar: true})
		}
		out = append(out, c)
	}
	return out
}

// RunnerParams returns the arguments safe_py_runner (and python_run)
// accepts, with the other names each is accepted under.
func RunnerParams() []CommandParam {
	out := []CommandParam{
		{Name: "script_name", Required: true, Scalar: true},
		{Name: "args"},
		{Name: "env_vars"},
		{Name: "stdin_text", Scalar: true},
	}
	for i := range out {
		for _, k := range sortedKeys(runnerKeys) {
			if runnerKeys[k] == out[i].Name && k != out[i].Name {
				out[i].Aliases = append(out[i].Aliases, k)
			}
		}
	}
	return out
}
