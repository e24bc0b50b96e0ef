package actions

import (
	"slices"
	"sort"
	"strings"

	"github.com/lppctl/lppctl/actions/replyschema"
	"github.com/lppctl/lppctl/gateway"
	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// Defaults of the general actions' parameters.
const (
	defaultRepairs   = 2 // llm.generate: re-prompts after a reply that fails its schema
	defaultMaxRounds = 4 // llm.generate: tool-call rounds before the model must answer
	defaultMaxDepth  = 4 // spec.run: how deep child machines may nest
)

// GeneralActions returns the actions any agent is built from, bound to d:
// llm.generate, tools.call, script.run, spec.validate, spec.run,
// spec.sandbox, spec.check and human.input. Unlike
// the Skills Agent's actions they need no skill: their prompts, schemas,
// scripts and child specs are files the spec names.
func GeneralActions(d *Deps) []machine.Action {
	return []machine.Action{
		{
			Name: "llm.generate",
			Doc:  "one model call from prompt templates (or a bounded tool loop): the reply's text goes to output; with schema it must be JSON valid against it (re-prompted with the errors up to repairs times, then the action fails) and map copies its fields into typed variables",
			Params: []machine.ParamSpec{
				{Name: "prompt", Type: mspec.TypeFile, Required: true, Doc: "template file of the request (Go text/template over the context variables, e.g. {{.text}}; {{memory \"key\"}} reads run memory)"},
				{Name: "system", Type: mspec.TypeFile, Doc: "template file of the system prompt"},
				{Name: "output", Type: mspec.TypeString, Doc: "the string variable that gets the reply's text (with schema: the JSON found in it)"},
				{Name: "schema", Type: mspec.TypeAny, Doc: "a JSON Schema the reply must satisfy: inline as a YAML map, or the path of a .json or .yaml file"},
				{Name: "map", Type: mspec.TypeMap, Doc: "context variable → JSON pointer into the reply, e.g. {words: /count}; the values are type-checked against the variables"},
				{Name: "repairs", Type: mspec.TypeInt, Default: defaultRepairs, Doc: "re-prompts with the validation errors after an invalid reply, before the action fails"},
				{Name: "tools", Type: mspec.TypeList, Doc: "gateway tools the model may call, e.g. [safe_cli_executor]"},
				{Name: "max_rounds", Type: mspec.TypeInt, Default: defaultMaxRounds, Doc: "tool-call rounds before the action fails (with tools)"},
				{Name: "max_reply_chars", Type: mspec.TypeInt, Default: 0, Doc: "a reply longer than this is refused unread and asked again (counted in repairs), never stored (0: no limit)"},
			},
			WritesFor: func(p map[string]any) []machine.VarSpec {
				out := varParam(p, "output", mspec.TypeString, "the model's reply")
				replyschema.DeclareOutputValues(p, out)
				mapped := mapKeys(p, "map", "a field of the model's JSON reply")
				replyschema.DeclareNotNull(p, mapped)
				replyschema.DeclareValues(p, mapped)
				return append(out, mapped...)
			},
			Run: d.llmGenerate,
		},
		{
			Name: "tools.call",
			Doc:  "runs one gateway command the spec chooses (same policy, audit log and [SECURITY BLOCKED] rules as the model's calls); without status:, a refused or failed call fails the action",
			Params: []machine.ParamSpec{
				{Name: "tool", Type: mspec.TypeString, Required: true, Enum: []string{gateway.ToolCLI, gateway.ToolRunner}, Doc: "the gateway tool"},
				{Name: "command", Type: mspec.TypeString, Doc: "safe_cli_executor's sub-command, e.g. read_file"},
				{Name: "args", Type: mspec.TypeMap, Doc: "the command's parameters: name → expression over the context, e.g. {path: 'out_dir + \"/a.txt\"'}"},
				{Name: "result", Type: mspec.TypeString, Doc: "the string variable that gets the result text"},
				{Name: "status", Type: mspec.TypeString, Doc: "the string variable that gets ok, error or blocked"},
			},
			WritesFor: func(p map[string]any) []machine.VarSpec {
				out := varParam(p, "result", mspec.TypeString, "the tool's result text")
				status := varParam(p, "status", mspec.TypeString, "ok, error or blocked")
				for i := range status {
					status[i].Values = []any{StatusOK, StatusError, StatusBlocked}
				}
				return append(out, status...)
			},
			Run: d.toolsCall,
		},
		{
			Name: "script.run",
			Doc:  "runs a Python compute script through the gateway's runner: input goes as one JSON object on stdin, the script prints one JSON object, output copies its keys into typed variables",
			Params: []machine.ParamSpec{
				{Name: "script", Type: mspec.TypeString, Required: true, Doc: "the .py file, relative to the project root, under one of the policy's script directories (scripts/, skills/NAME/)"},
				{Name: "input", Type: mspec.TypeMap, Doc: "name → expression over the context; sent as one JSON object on stdin"},
				{Name: "output", Type: mspec.TypeMap, Doc: "context variable → key of the script's JSON object"},
				{Name: "lpp", Type: mspec.TypeBool, Default: false, Doc: "L++ compute semantics (imported blueprints): a key the output lacks leaves its variable as it is, and a failing script's {\"error\": message, \"status\": \"failed\"} goes through output instead of stopping the run"},
				{Name: "defines", Type: mspec.TypeMap, Doc: "bool context variable → key of the script's JSON object: set true when the object has the key (null included), left as it is otherwise (imported blueprints: a property lpp's context holds once written)"},
			},
			WritesFor: func(p map[string]any) []machine.VarSpec {
				out := mapKeys(p, "output", "a key of the script's JSON output")
				if lpp, _ := p["lpp"].(bool); lpp { // o.k (L++'s output_map path) writes into the map o
					var roots []machine.VarSpec
					for _, v := range out {
						v.Name, _, _ = strings.Cut(v.Name, ".")
						if !slices.ContainsFunc(roots, func(r machine.VarSpec) bool { return r.Name == v.Name }) {
							roots = append(roots, v)
						}
					}
					out = roots
				}
				for _, v := range mapKeys(p, "defines", "whether the script's JSON output has the key") {
					out = append(out, machine.VarSpec{Name: v.Name, Type: mspec.TypeBool, Doc: v.Doc, NotNull: true})
				}
				return out
			},
			Run: d.scriptRun,
		},
		{
			Name: "spec.validate",
			Doc:  "validates a spec file inside the project root (its path through the gateway's path rules) and writes whether it is valid, its error count and the diagnostics",
			Params: []machine.ParamSpec{
				{Name: "path", Type: mspec.TypeExpr, Required: true, Doc: "the spec's path relative to the project root: an expression, e.g. '\"output/agent.yaml\"' or a context variable"},
				{Name: "ok", Type: mspec.TypeString, Doc: "the bool variable that gets whether the spec is valid"},
				{Name: "errors", Type: mspec.TypeString, Doc: "the int variable that gets the number of errors"},
				{Name: "report", Type: mspec.TypeString, Doc: "the string variable that gets the diagnostics, with positions and carets"},
				{Name: "check", Type: mspec.TypeBool, Default: false, Doc: "also model-check a valid spec as lppctl check does (at most max_states pairs): a failing property makes it invalid, and its counterexample goes into report"},
				{Name: "max_states", Type: mspec.TypeInt, Default: specCheckMaxStates, Doc: "with check: the pairs explored before the check stops with UNKNOWN (which does not fail the spec)"},
			},
			WritesFor: func(p map[string]any) []machine.VarSpec {
				out := varParam(p, "ok", mspec.TypeBool, "whether the spec is valid")
				out = append(out, varParam(p, "errors", mspec.TypeInt, "the spec's error count")...)
				return append(out, varParam(p, "report", mspec.TypeString, "the spec's diagnostics")...)
			},
			Run: d.specValidate,
		},
		{
			Name: "spec.run",
			Doc:  "runs another spec as a child machine, journaled inside this run's directory (a crash resumes both); fails when the child fails or ends in a final state whose action fails (e.g. do: fail)",
			Params: []machine.ParamSpec{
				{Name: "spec", Type: mspec.TypeFile, Required: true, Doc: "the child spec file"},
				{Name: "input", Type: mspec.TypeMap, Doc: "child variable → expression over this run's context"},
				{Name: "output", Type: mspec.TypeMap, Doc: "context variable → child variable, copied when the child completes"},
				{Name: "max_depth", Type: mspec.TypeInt, Default: defaultMaxDepth, Doc: "how deep child machines may nest below the top run"},
			},
			WritesFor: func(p map[string]any) []machine.VarSpec {
				return mapKeys(p, "output", "a variable of the child's final context")
			},
			Run: d.specRun,
		},
		{
			Name: "spec.sandbox",
			Doc:  "copies a folder of the project (e.g. a generated skill) into a throw-away root, validates its spec there and, when run holds, runs it offline with the folder's demo.yaml as the model; writes whether it passed and a short report (the project is never written)",
			Params: []machine.ParamSpec{
				{Name: "dir", Type: mspec.TypeExpr, Required: true, Doc: "the folder to copy, relative to the project root: an expression, e.g. skill_dir"},
				{Name: "spec", Type: mspec.TypeExpr, Required: true, Doc: "the spec file inside the folder, relative to it: an expression, e.g. 'skill + \".yaml\"'"},
				{Name: "as", Type: mspec.TypeExpr, Doc: "where the folder goes in the sandbox root (default: dir), e.g. '\"skills/\" + skill' for a skill whose scripts name their installed place"},
				{Name: "run", Type: mspec.TypeExpr, Doc: "a bool expression: run the spec after validating it (default false: compile-only, said in the report)"},
				{Name: "placeholders", Type: mspec.TypeExpr, Doc: "a bool expression: create the scripts of script.run states that the folder does not hold yet, empty, so a machine validates before its compute units exist (default false)"},
				{Name: "max_transitions", Type: mspec.TypeInt, Default: sandboxMaxTransitions, Doc: "most transitions of the dry run"},
				{Name: "ok", Type: mspec.TypeString, Doc: "the bool variable that gets whether the spec is valid (and, with run, completed)"},
				{Name: "report", Type: mspec.TypeString, Doc: "the string variable that gets the diagnostics or how the run ended"},
			},
			WritesFor: func(p map[string]any) []machine.VarSpec {
				out := varParam(p, "ok", mspec.TypeBool, "whether the spec passed in the sandbox")
				return append(out, varParam(p, "report", mspec.TypeString, "the sandbox's report")...)
			},
			Run: d.specSandbox,
		},
		{
			Name: "spec.check",
			Doc:  "model-checks a spec file inside the project root as lppctl check does (no deadlock, reachable states, termination, invariants, final_requires, bounds) and writes whether every property held and a short report with the shortest counterexamples, for a model to act on",
			Params: []machine.ParamSpec{
				{Name: "path", Type: mspec.TypeExpr, Required: true, Doc: "the spec's path relative to the project root: an expression, e.g. skill_dir + \"/\" + skill + \".yaml\""},
				{Name: "max_states", Type: mspec.TypeInt, Default: specCheckMaxStates, Doc: "distinct (state, context) pairs explored before the undecided properties are UNKNOWN (which is not a failure)"},
				{Name: "ok", Type: mspec.TypeString, Doc: "the bool variable that gets whether no property failed"},
				{Name: "report", Type: mspec.TypeString, Doc: "the string variable that gets the report (or the spec's diagnostics when it does not decode)"},
			},
			WritesFor: func(p map[string]any) []machine.VarSpec {
				out := varParam(p, "ok", mspec.TypeBool, "whether no property failed")
				return append(out, varParam(p, "report", mspec.TypeString, "the model checker's report")...)
			},
			Run: d.specCheck,
		},
		d.humanInputAction(),
		d.specExamplesAction(),
		d.examplesVetAction(),
		d.examplesAgreeAction(),
		d.specPromisesAction(),
		d.envReadAction(),
	}
}

// writesDocs says, for lppctl actions, which variables each general action
// writes: those its parameters name.
var writesDocs = map[string]string{
	"llm.generate":   "the variable named by output (string) and map's keys (typed by the schema)",
	"tools.call":     "the variables named by result (string) and status (string: ok, error or blocked)",
	"script.run":     "output's keys (each checked against its variable's type), and defines' keys (bool: true when the output has the key named)",
	"spec.validate":  "the variables named by ok (bool), errors (int) and report (string)",
	"spec.run":       "output's keys (copied from the child's variables when it completes)",
	"spec.examples":  "the variables named by ok (bool), failed (int), ran (int) and report (string)",
	"spec.promises":  "the variables named by ok (bool), report (string), blame (string) and examples_bad (bool)",
	"examples.vet":   "the variables named by ok (bool), report (string), held_out (list) and shown (list)",
	"examples.agree": "the variables named by agreed (list), held_out (list) and report (string)",
	"env.read":       "vars' keys (each parsed as its variable's type)",
}

// WritesDoc describes the variables an action whose writes depend on its
// parameters writes ("" for the other actions).
func WritesDoc(name string) string { return writesDocs[name] }

// IsGeneral reports whether name is one of the general actions, which need
// no skill folder.
func IsGeneral(name string) bool {
	switch name {
	case "llm.generate", "tools.call", "script.run", "spec.validate", "spec.run", "spec.sandbox", "spec.check", "human.input",
		"spec.examples", "examples.vet", "examples.agree", "spec.promises", "env.read":
		return true
	}
	return false
}

// varParam declares the variable a parameter names (none when absent or not
// a name).
func varParam(p map[string]any, param string, t mspec.Type, doc string) []machine.VarSpec {
	name, _ := p[param].(string)
	if name == "" {
		return nil
	}
	return []machine.VarSpec{{Name: name, Type: t, Doc: doc}}
}

// mapKeys declares the keys of a map parameter as variables of any type (the
// type checks that need files are CheckSpec's), in sorted order.
func mapKeys(p map[string]any, param, doc string) []machine.VarSpec {
	m, _ := p[param].(map[string]any)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]machine.VarSpec, 0, len(keys))
	for _, k := range keys {
		out = append(out, machine.VarSpec{Name: k, Type: mspec.TypeAny, Doc: doc})
	}
	return out
}

// ActionSet is a set of actions bound to the dependencies they share:
// GeneralActions, or the Skills Agent's (agent.Actions).
type ActionSet func(d *Deps) []machine.Action

// Register adds the actions of sets, bound to d, to reg (GeneralActions
// alone when no set is given). The general actions that validate and run
// other specs (spec.validate, spec.run, spec.sandbox, spec.check,
// spec.examples) use reg for them, and give a child run a registry of the
// same sets: a spec's children may use what the spec may use.
func Register(reg *machine.Registry, d *Deps, sets ...ActionSet) error {
	if d == nil {
		d = &Deps{}
	}
	if len(sets) == 0 {
		sets = []ActionSet{GeneralActions}
	}
	d.mu.Lock()
	d.registry = reg
	d.sets = sets
	d.mu.Unlock()
	for _, set := range sets {
		for _, a := range set(d) {
			if err := reg.Register(a); err != nil {
				return err
			}
		}
	}
	return nil
}

// actionSets are the sets d was registered with (Register), for a child
// run's registry.
func (d *Deps) actionSets() []ActionSet {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.sets
}
