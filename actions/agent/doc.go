// Package agent holds the Skills Agent's actions: the planner, the
// optimizer and the evaluator (llm.planner, llm.optimizer, llm.evaluator,
// agent.go), their tool calls (tools.execute), the step's memory
// (memory.prepare_step, memory.inject_directive, memory.commit_step; the
// run memory slots of state.go, the step's scope of scope.go, its outcome
// of outcome.go), the plan model (SkillPlan, plan.go), the person's part
// (human.approve, human.intervene, human.feedback, human.go), the skill's
// learning (skill.record_failure, skill.teacher, agent.abort, learn.go,
// teacher_stats.go) and the skill library the prompts draw on (library.go,
// retrieval.go), with their prompt data (prompts.go). Actions returns them
// as an actions.ActionSet, registered with actions.Register next to
// actions.GeneralActions.
//
// Deps is actions.Deps, which every action takes, with what only these
// actions keep for a run (the skill library's embedder).
//
// It may import actions and actions/llm; actions must not import it.
// Nothing under machine/ imports either (internal/layout's test keeps both
// so).
package agent
