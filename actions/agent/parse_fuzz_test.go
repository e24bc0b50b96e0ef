package agent

import "testing"

// FuzzParseReplies: no model reply makes the plan or verdict parsers panic,
// and an accepted verdict is PASS or FAIL.
func FuzzParseReplies(f *testing.F) {
	for _, s := range []string{"", "{", "```json\n{\"verdict\": \"PASS\"}\n```", `x {"verdict": "passed", "key_outputs": {"a": [1]}} y`,
		`{"goal": "g", "steps": [{"optimizer_instruction": "a", "evaluator_instruction": "b", "depends_on": [0, 1, 2]}]}`, "```\n```", "{}{}{"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		_, _ = ParsePlan(reply, 12)
		if ev, err := ParseEvaluation(reply); err == nil && ev.Verdict != "PASS" && ev.Verdict != "FAIL" {
			t.Fatalf("verdict %q", ev.Verdict)
		}
	})
}
