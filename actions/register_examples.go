package actions

import (
	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// specExamplesAction declares spec.examples (examples.go).
func (d *Deps) specExamplesAction() machine.Action {
	return machine.Action{
		Name: "spec.examples",
		Doc:  "runs a folder's spec on behavioural examples, each in its own spec.sandbox copy: an example's vars start the run (as --var does), its files are written into the copy, and when the run completes its expect variables must hold their values (numbers within a tolerance) and its contains variables their texts; writes whether all passed, how many ran and failed, and a report with expected and got (or how the run failed, with stderr)",
		Params: []machine.ParamSpec{
			{Name: "dir", Type: mspec.TypeExpr, Required: true, Doc: "the folder to copy, relative to the project root: an expression, e.g. work_dir"},
			{Name: "spec", Type: mspec.TypeExpr, Required: true, Doc: "the spec file inside the folder, relative to it: an expression"},
			{Name: "as", Type: mspec.TypeExpr, Doc: "where the folder goes in the sandbox root (default: dir), e.g. '\"skills/\" + skill'"},
			{Name: "examples", Type: mspec.TypeExpr, Required: true, Doc: "a list expression: the examples, each {name, vars: {variable: value}, files: {path: text}, expect: {variable: value}, contains: {variable: text}, tolerance}"},
			{Name: "run", Type: mspec.TypeExpr, Doc: "a bool expression: run the examples (default true; false writes ok true and a report saying they were not run)"},
			{Name: "held_out", Type: mspec.TypeExpr, Doc: "a list expression: the numbers (from 1) of the examples held out from the writer of the code (examples.vet's held_out): the report says only whether each passed, never its inputs or values"},
			{Name: "max_transitions", Type: mspec.TypeInt, Default: sandboxMaxTransitions, Doc: "most transitions of each example's run"},
			{Name: "ok", Type: mspec.TypeString, Doc: "the bool variable that gets whether every example passed"},
			{Name: "failed", Type: mspec.TypeString, Doc: "the int variable that gets how many examples failed"},
			{Name: "ran", Type: mspec.TypeString, Doc: "the int variable that gets how many examples ran"},
			{Name: "report", Type: mspec.TypeString, Doc: "the string variable that gets the report: expected and got for each failure"},
		},
		WritesFor: func(p map[string]any) []machine.VarSpec {
			out := varParam(p, "ok", mspec.TypeBool, "whether every example passed")
			out = append(out, varParam(p, "failed", mspec.TypeInt, "how many examples failed")...)
			out = append(out, varParam(p, "ran", mspec.TypeInt, "how many examples ran")...)
			return append(out, varParam(p, "report", mspec.TypeString, "the examples' report")...)
		},
		Run: d.specExamples,
	}
}

// examplesVetAction declares examples.vet (examples_vet.go).
func (d *Deps) examplesVetAction() machine.Action {
	return machine.Action{
		Name: "examples.vet",
		Doc:  "refuses behavioural examples that are no evidence, before any code: each must have a kind (typical, edge or error), expect something that can be wrong (no empty contains text, a tolerance under 1 % of its values) and write input files under reference/ only; the set must hold an edge and an error example and two that succeed, and expect no variable with one value only; with derived, every expected value an independent derivation gives differently is a problem; writes whether the examples stand, a report, the example held out from the writer of the code and the others",
		Params: []machine.ParamSpec{
			{Name: "examples", Type: mspec.TypeExpr, Required: true, Doc: "a list expression: the examples, as spec.examples takes them, each with a kind"},
			{Name: "derived", Type: mspec.TypeExpr, Doc: "a list expression: an independent derivation, one item per example, {name, fails, expect}"},
			{Name: "plan", Type: mspec.TypeExpr, Doc: "a list expression: the plan's steps ({title, instruction, ...}); the example held out is one whose values their text does not quote, when there is one"},
			{Name: "target", Type: mspec.TypeExpr, Doc: "a string expression: the target; a value it holds is not counted as quoted"},
			{Name: "ok", Type: mspec.TypeString, Doc: "the bool variable that gets whether the examples stand"},
			{Name: "report", Type: mspec.TypeString, Doc: "the string variable that gets the problems, one a line"},
			{Name: "held_out", Type: mspec.TypeString, Doc: "the list variable that gets the number (from 1) of the example held out from the writer of the code: the last typical one (preferring one plan does not quote), else the last that succeeds ([] when the examples do not stand)"},
			{Name: "shown", Type: mspec.TypeString, Doc: "the list variable that gets the examples the writer of the code is shown: all but the held-out one"},
		},
		WritesFor: func(p map[string]any) []machine.VarSpec {
			out := varParam(p, "ok", mspec.TypeBool, "whether the examples stand")
			out = append(out, varParam(p, "held_out", mspec.TypeList, "the example held out from the writer")...)
			out = append(out, varParam(p, "shown", mspec.TypeList, "the examples the writer is shown")...)
			return append(out, varParam(p, "report", mspec.TypeString, "the examples' problems")...)
		},
		Run: d.examplesVet,
	}
}

// specPromisesAction declares spec.promises (promises.go).
func (d *Deps) specPromisesAction() machine.Action {
	return machine.Action{
		Name: "spec.promises",
		Doc:  "checks what a generated skill's spec promises: every script.run script lies under the skill's installed folder (skill_path/scripts/), with scripts: each is written in dir and names the keys of its state's input and output maps, and every variable the examples give or check is declared; writes whether all hold and a positioned report",
		Params: []machine.ParamSpec{
			{Name: "path", Type: mspec.TypeExpr, Required: true, Doc: "the spec's path relative to the project root: an expression"},
			{Name: "skill_path", Type: mspec.TypeExpr, Required: true, Doc: "the skill's installed folder, e.g. '\"skills/\" + skill'"},
			{Name: "dir", Type: mspec.TypeExpr, Doc: "the folder holding the skill's files now (relative to the root): where scripts are looked for"},
			{Name: "scripts", Type: mspec.TypeExpr, Doc: "a bool expression: also check that each script is written and names its maps' keys (default false)"},
			{Name: "examples", Type: mspec.TypeExpr, Doc: "a list expression: the examples whose vars, expect and contains keys must be context variables"},
			{Name: "held_out", Type: mspec.TypeExpr, Doc: "a list expression: the numbers (from 1) of the examples held out from the writer (examples.vet's held_out): reported without their names or values"},
			{Name: "ok", Type: mspec.TypeString, Doc: "the bool variable that gets whether every promise holds"},
			{Name: "report", Type: mspec.TypeString, Doc: "the string variable that gets the problems, one a line"},
			{Name: "spec_report", Type: mspec.TypeString, Doc: "the string variable that gets the problems that name no example, one a line (\"\" when none): what a writer may be told when the examples are written again"},
			{Name: "blame", Type: mspec.TypeString, Doc: "the string variable that gets blueprint (a problem only a new spec fixes), implementation (a script's problem) or \"\" (none)"},
			{Name: "examples_bad", Type: mspec.TypeString, Doc: "the bool variable that gets whether an example's value has the wrong type for its variable (the example may be what is wrong)"},
		},
		WritesFor: func(p map[string]any) []machine.VarSpec {
			out := varParam(p, "ok", mspec.TypeBool, "whether every promise holds")
			out = append(out, varParam(p, "examples_bad", mspec.TypeBool, "whether an example's value has the wrong type")...)
			out = append(out, varParam(p, "blame", mspec.TypeString, "whose fault a problem is")...)
			out = append(out, varParam(p, "spec_report", mspec.TypeString, "the problems that name no example")...)
			return append(out, varParam(p, "report", mspec.TypeString, "the promises' report")...)
		},
		Run: d.specPromises,
	}
}

// envReadAction declares env.read (envread.go).
func (d *Deps) envReadAction() machine.Action {
	return machine.Action{
		Name: "env.read",
		Doc:  "reads settings from environment variables into context variables that still hold their spec default (a --var wins), parsed as the variable's type; an unset variable writes nothing; names of secrets (_KEY, _TOKEN, _SECRET, PASSWORD) are refused",
		Params: []machine.ParamSpec{
			{Name: "vars", Type: mspec.TypeMap, Required: true, Doc: "context variable → environment variable, e.g. {threshold: EVAL_THRESHOLD}"},
		},
		WritesFor: func(p map[string]any) []machine.VarSpec {
			out := mapKeys(p, "vars", "a setting read from the environment")
			for i := range out {
				out[i].NotNull = true // parsed as the variable's type: never null
			}
			return out
		},
		Run: d.envRead,
	}
}
