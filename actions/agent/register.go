package agent

import (
	"github.com/lppctl/lppctl/actions"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/spec"
)

// templateFile declares a required prompt template parameter: a file path
// relative to the spec's folder, then the project root (FindTemplate), that
// validate checks and runs hash for resume.
func templateFile(name, doc string) machine.ParamSpec {
	return machine.ParamSpec{Name: name, Type: spec.TypeFile, Required: true, Doc: doc}
}

// Actions returns the agent's actions bound to ad (an actions.ActionSet).
// Registration needs no provider and no gateway: both are built when a run
// first needs them.
func Actions(ad *actions.Deps) []machine.Action {
	d := &Deps{Deps: ad}
	return []machine.Action{
		{
			Name: "llm.planner",
			Doc:  "asks the model for a SkillPlan from skills.md, the tool docs and the scripts; stores it as memory plan, or sets plan_error and queues a re-prompt",
			Params: []machine.ParamSpec{
				templateFile("system_prompt", "template file of the planner's system prompt"),
				templateFile("user_prompt", "template file of the planner's request"),
				templateFile("retry_prompt", "template file of the re-prompt after an invalid plan (gets .Error)"),
				{Name: "max_steps", Type: spec.TypeExpr, Doc: "most steps a plan may have: an int expression, e.g. 12 or a context variable (absent or 0: 12)"},
				{Name: "max_cases", Type: spec.TypeExpr, Doc: "how many of the most recent entries of each of skills.md's Success Cases, Failure Cases and Human Feedback the planner reads, so its prompt stops growing with every run: an int expression (absent or 0: all)"},
				relevantParam("the skill's text"),
			},
			Writes: []machine.VarSpec{
				{Name: "step_count", Type: spec.TypeInt, Doc: "number of steps of the plan"},
				{Name: "plan_error", Type: spec.TypeString, Doc: `why the plan was refused ("" when valid)`},
			},
			Provides: []string{MemPlan},
			Run:      d.planner,
		},
		{
			Name: "human.approve",
			Doc:  "shows the plan as a table; a person approves, rejects, edits ($EDITOR) or asks for a new plan; --yes approves; with no terminal the run pauses",
			Writes: []machine.VarSpec{
				{Name: "approval", Type: spec.TypeString, Doc: "approved, rejected or replan"},
				{Name: "step_count", Type: spec.TypeInt, Doc: "number of steps of the (edited) plan"},
			},
			Needs: []string{MemPlan},
			Run:   d.approve,
		},
		{
			Name: "memory.prepare_step",
			Doc:  "starts the step at step_index: clears L3, the evaluator's chat and the step's tool log, then puts the system prompt (L1 <global_context>, tool docs) and the user prompt (L2 <skill_memory>, the instruction) into L3",
			Params: []machine.ParamSpec{
				templateFile("system_prompt", "template file of the optimizer's system prompt"),
				templateFile("user_prompt", "template file of the optimizer's step prompt"),
				relevantParam("the plan's goal and the step's instruction"),
			},
			Needs:    []string{MemPlan},
			Provides: []string{MemL3},
			Run:      d.prepareStep,
		},
		{
			Name: "llm.optimizer",
			Doc:  "sends L3 to the model with the gateway's tools; appends its reply to L3",
			Writes: []machine.VarSpec{
				{Name: "reply", Type: spec.TypeString, Doc: "the reply's text, trimmed"},
				{Name: "pending_tools", Type: spec.TypeInt, Doc: "tool calls in the reply"},
			},
			Needs: []string{MemPlan, MemL3},
			Run:   d.optimizer,
		},
		{
			Name: "tools.execute",
			Doc:  "runs the tool calls of the last model reply through the security gateway and appends their results to the chat",
			Params: []machine.ParamSpec{
				{Name: "memory", Type: spec.TypeString, Default: MemL3, Enum: []string{MemL3, MemL3Eval}, Doc: "the chat whose last reply is executed"},
				{Name: "record", Type: spec.TypeBool, Default: true, Doc: "log the calls for the step's Success Case"},
				{Name: "read_only", Type: spec.TypeBool, Default: false, Doc: "refuse every call that changes files (copy, move, make_directory, the write scripts): for a checker such as the evaluator"},
			},
			Run: d.executeTools,
		},
		{
			Name: "memory.inject_directive",
			Doc:  "appends a <primary_directive> reminder of the step's instruction to L3",
			Params: []machine.ParamSpec{
				templateFile("template", "template file of the reminder"),
			},
			Needs: []string{MemPlan},
			Run:   d.injectDirective,
		},
		{
			Name: "llm.evaluator",
			Doc:  "judges the step: its own tool loop (reads eval_rounds, max_eval_rounds), then an EvaluationOutput {verdict, feedback, key_outputs}; on FAIL the feedback goes into L3 for the retry; a reply without a usable verdict sets eval_error and the next call asks again",
			Params: []machine.ParamSpec{
				templateFile("system_prompt", "template file of the evaluator's system prompt"),
				templateFile("user_prompt", "template file of the evaluator's request (gets .Transcript)"),
				templateFile("final_prompt", "template file asking for the verdict once the tool rounds are spent"),
				templateFile("retry_prompt", "template file of the feedback message put into L3 on FAIL"),
				{Name: "reask_prompt", Type: spec.TypeFile, Doc: "template file asking the evaluator again when its reply gave no usable verdict (gets .Error); it then writes eval_error. Without it (specs written before), such a reply fails the step"},
			},
			Writes: []machine.VarSpec{
				{Name: "verdict", Type: spec.TypeString, Doc: `PASS, FAIL, or "" while the evaluator still calls tools or gave no usable verdict`},
				{Name: "feedback", Type: spec.TypeString, Doc: "the evaluator's feedback"},
				{Name: "pending_tools", Type: spec.TypeInt, Doc: "tool calls the evaluator asked for"},
			},
			WritesFor: func(params map[string]any) []machine.VarSpec {
				if _, ok := params["reask_prompt"]; !ok {
					return nil
				}
				return []machine.VarSpec{{Name: "eval_error", Type: spec.TypeString, Doc: `with reask_prompt: why the evaluator's reply gave no usable verdict ("" when it gave one): the evaluator is asked again, the step is not failed`}}
			},
			Needs: []string{MemPlan},
			Run:   d.evaluator,
		},
		{
			Name:  "memory.commit_step",
			Doc:   "on PASS: the evaluator's key_outputs go to L2 as KEY=VALUE and a Success Case to skills.md (idempotent by run id and step)",
			Needs: []string{MemPlan},
			Run:   d.commitStep,
		},
		{
			Name:  "skill.record_failure",
			Doc:   "on FAIL: appends a Failure Case (step, instruction, evaluator feedback) to skills.md (idempotent)",
			Needs: []string{MemPlan},
			Run:   d.recordFailure,
		},
		{
			Name: "human.intervene",
			Doc:  "a step is stuck: a person gives guidance (added to the step's prompt), skips the step or aborts; with no terminal the run pauses",
			Writes: []machine.VarSpec{
				{Name: "decision", Type: spec.TypeString, Doc: "guidance, skip or abort"},
			},
			Needs: []string{MemPlan},
			Run:   d.intervene,
		},
		{
			Name: "human.feedback",
			Doc:  "asks the person for feedback on the run (or takes --feedback) and appends it to skills.md under Human Feedback",
			Run:  d.feedback,
		},
		{
			Name: "skill.teacher",
			Doc:  "asks the model to turn skills.md's success and failure cases into skill-library proposals (add, update, remove), applies the valid ones and notes what was applied and rejected",
			Params: []machine.ParamSpec{
				{Name: "enabled", Type: spec.TypeExpr, Doc: "run the teacher: an expression giving true or false, e.g. true or a bool context variable (absent: off)"},
				{Name: "library", Type: spec.TypeString, Default: "", Doc: "library file (default --skills-library, else ROOT/.lppctl/skills.json)"},
				{Name: "cases", Type: spec.TypeString, Default: "run", Enum: []string{"run", "all"}, Doc: "the skills.md cases the teacher learns from: this run's, or all"},
				{Name: "prompt", Type: spec.TypeFile, Doc: "template file of the teacher's prompt (.SuccessCases, .FailureCases, .ExistingSkills); absent: the built-in skills.TeacherPrompt"},
			},
			Run: d.teacher,
		},
		{
			Name: "agent.abort",
			Doc:  "stops the run as failed with a message, optionally with the value of an expression (as fail does)",
			Params: []machine.ParamSpec{
				{Name: "message", Type: spec.TypeString, Required: true, ExprIn: "value", Doc: "the reason (text, not an expression)"},
				{Name: "value", Type: spec.TypeExpr, Doc: "an expression whose value is appended, e.g. plan_error"},
			},
			Run: d.abort,
		},
	}
}

// relevantParam is the relevant_skills parameter of the actions that build
// the planner's and the optimizer's prompts.
func relevantParam(query string) machine.ParamSpec {
	return machine.ParamSpec{Name: "relevant_skills", Type: spec.TypeExpr,
		Doc: "how many skill-library skills relevant to " + query + " go into the prompt's .RelevantSkills (an int expression, e.g. 3 or a context variable; 0 or absent: none; only skills sharing terms with the query)"}
}
