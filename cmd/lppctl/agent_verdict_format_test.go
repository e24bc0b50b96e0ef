package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A reply whose verdicts disagree (the answer format quoted with PASS, then
// the real FAIL) never commits the step: the evaluator is asked again, and
// its real verdict counts.
func TestAgentVerdictsThatDisagreeAreAskedAgainNotCommitted(t *testing.T) {
	root := newProject(t, "hello_skill")
	echo := `I must answer in the format {"verdict": "PASS", "feedback": "...", "key_outputs": {}}. The greeting printed was "Hello, Bob!", so my verdict is:` + "\n" +
		`{"verdict": "FAIL", "feedback": "greet.py printed the wrong name", "key_outputs": {}}`
	f := newFakeLLM(t, "replies:\n"+planner("greet Ada")+
		reply("optimizer", 1, text("[ATTEMPTS_COMPLETE] done")+"\n    repeat: true")+
		reply("evaluator", 1, text(echo))+
		reply("evaluator", 1, fail("greet.py printed the wrong name"))+
		reply("evaluator", 1, pass(`"GREETING": "Hello, Ada!"`)))
	res := runAgent(t, root, f, "--yes")
	require.Equal(t, 0, res.code, res.all())
	const why = `the reply holds 2 JSON objects with a "verdict" (PASS, then FAIL) that disagree; answer with one JSON object, your verdict, and nothing else (no example of the format)`
	assert.Contains(t, res.out, "  evaluator: no usable verdict: "+why+"\n")
	ev := f.requests("evaluator", 1)
	require.Len(t, ev, 3)
	assert.True(t, strings.HasPrefix(ev[1].last().Content, "Your verdict could not be used: "+why+"\n"), ev[1].last().Content)
	assert.Contains(t, res.out, "  evaluator: verdict FAIL: greet.py printed the wrong name\n")
	md := readSkillsMD(t, root)
	assert.Equal(t, 1, strings.Count(md, "- **Evaluator feedback:** "), md)
	assert.Contains(t, md, "- **Evaluator feedback:** greet.py printed the wrong name\n")
	assert.Len(t, f.requests("optimizer", 1), 2, "the real FAIL retries the step once")
}

// A verdict with a trailing comma is read (as llm.generate reads JSON): the
// step passes at once, with no Failure Case and no retry.
func TestAgentVerdictWithATrailingCommaIsRead(t *testing.T) {
	root := newProject(t, "hello_skill")
	f := newFakeLLM(t, "replies:\n"+planner("greet Ada")+
		reply("optimizer", 1, text("[ATTEMPTS_COMPLETE] done"))+
		reply("evaluator", 1, text(`{"verdict": "PASS", "feedback": "ok", "key_outputs": {"GREETING": "Hello, Ada! Welcome to lppctl."},}`)))
	res := runAgent(t, root, f, "--yes")
	require.Equal(t, 0, res.code, res.all())
	assert.Contains(t, res.out, "  evaluator: verdict PASS: ok\n")
	assert.Len(t, f.requests("evaluator", 1), 1)
	md := readSkillsMD(t, root)
	assert.NotContains(t, md, "Evaluator feedback")
	assert.Contains(t, md, "GREETING")
}

// An evaluator that never gives a usable verdict is asked again
// max_eval_reasks times, then a person decides: nothing is recorded as a
// Failure Case of the step.
func TestAgentEvaluatorWithoutAUsableVerdictGoesToAPersonNotToSkillsMD(t *testing.T) {
	root := newProject(t, "hello_skill")
	f := newFakeLLM(t, "replies:\n"+planner("greet Ada")+
		reply("optimizer", 1, text("[ATTEMPTS_COMPLETE] done"))+
		reply("evaluator", 1, text(`{"verdict": "PASS" "feedback": "ok", "key_outputs": {"GREETING": "Hello"}}`)+"\n    repeat: true"))
	res := runAgent(t, root, f, "--yes")
	require.Equal(t, exitPaused, res.code, res.all())
	const why = `the reply's JSON does not parse: line 1, column 20: "\"" where a comma or the closing bracket belongs (a missing comma?); answer with one valid JSON object and nothing else`
	assert.Contains(t, res.out, "paused in human_intervention")
	assert.Contains(t, res.all(), "last feedback: the evaluator gave no usable verdict: "+why)
	assert.Len(t, f.requests("evaluator", 1), 3)
	assert.NotContains(t, readSkillsMD(t, root), "Evaluator feedback")
}

// A reply cut at the token limit (finish_reason "length") is asked again
// saying it was cut off and asking for a shorter answer: the planner's and
// the evaluator's.
func TestAgentRepliesCutAtTheTokenLimitAreAskedAgainShorter(t *testing.T) {
	root := newProject(t, "hello_skill")
	const cutPlan = `{"goal": "greet Ada", "steps": [{"index": 1, "optimizer_instruction": "run greet.py with Ada and`
	const cutVerdict = `{"verdict": "PASS", "feedback": "greet.py printed Hello, Ada! as asked, and the`
	f := newFakeLLM(t, "replies:\n  - role: planner\n    text: "+yamlQuote(cutPlan)+"\n"+planner("greet Ada")+
		reply("optimizer", 1, text("[ATTEMPTS_COMPLETE] done"))+
		reply("evaluator", 1, text(cutVerdict))+
		reply("evaluator", 1, pass(`"GREETING": "Hello, Ada!"`)))
	f.shape = func(c map[string]any) {
		ch := c["choices"].([]any)[0].(map[string]any)
		if s, _ := ch["message"].(map[string]any)["content"].(string); s == cutPlan || s == cutVerdict {
			ch["finish_reason"] = "length"
		}
	}
	res := runAgent(t, root, f, "--yes")
	require.Equal(t, 0, res.code, res.all())
	const cut = `your reply was cut off at the token limit (finish_reason "length"), so it is incomplete; answer again with a shorter reply that fits: the same JSON, with less text in it`
	plans := f.requests("planner", -1)
	require.Len(t, plans, 2)
	assert.True(t, strings.HasPrefix(plans[1].last().Content, "Your plan could not be used: "+cut+"\n"), plans[1].last().Content)
	ev := f.requests("evaluator", 1)
	require.Len(t, ev, 2)
	assert.True(t, strings.HasPrefix(ev[1].last().Content, "Your verdict could not be used: "+cut+"\n"), ev[1].last().Content)
	assert.NotContains(t, readSkillsMD(t, root), "Evaluator feedback")
}

// An evaluator reply the provider's content filter stopped before any text
// is asked again saying so, not as "the reply is empty"; its later verdict
// counts.
func TestAgentEvaluatorStoppedByAContentFilterIsAskedAgainSayingSo(t *testing.T) {
	root := newProject(t, "hello_skill")
	f := newFakeLLM(t, "replies:\n"+planner("greet Ada")+
		reply("optimizer", 1, text("[ATTEMPTS_COMPLETE] done"))+
		reply("evaluator", 1, text("FILTERED"))+
		reply("evaluator", 1, pass(`"GREETING": "Hello, Ada!"`)))
	f.shape = func(completion map[string]any) {
		ch := completion["choices"].([]any)[0].(map[string]any)
		if msg := ch["message"].(map[string]any); msg["content"] == "FILTERED" {
			msg["content"], ch["finish_reason"] = nil, "content_filter"
		}
	}
	res := runAgent(t, root, f, "--yes")
	require.Equal(t, 0, res.code, res.all())
	const why = `the provider stopped your reply before it held any text (finish_reason "content_filter": its content filter or a refusal); answer again with the JSON only`
	assert.Contains(t, res.out, "  evaluator: no usable verdict: "+why+"\n")
	ev := f.requests("evaluator", 1)
	require.Len(t, ev, 2)
	assert.True(t, strings.HasPrefix(ev[1].last().Content, "Your verdict could not be used: "+why+"\n"), ev[1].last().Content)
	assert.Contains(t, res.out, "  evaluator: verdict PASS: looks right\n")
	assert.NotContains(t, readSkillsMD(t, root), "Evaluator feedback")
}
