package llm

import (
	"context"
	"testing"
)

func TestScriptChoosesRepliesByPromptCondition(t *testing.T) {
	s, err := ParseScript("when.yaml", []byte(`
replies:
  - role: optimizer
    when_prompt_contains: Write the header first
    text: with the skill
    repeat: true
  - role: optimizer
    when_prompt_lacks: Write the header first
    text: forgot the header
  - role: optimizer
    when_prompt_lacks: Write the header first
    text: wrote the header after the feedback
    repeat: true
  - role: evaluator
    text: any prompt
`))
	if err != nil {
		t.Fatal(err)
	}
	skill := []Message{{Role: RoleSystem, Text: "## Relevant Skills\n- Write the header first."}, {Role: RoleUser, Text: "step 1"}}
	plain := []Message{{Role: RoleSystem, Text: "no skills"}, {Role: RoleUser, Text: "step 1"}}
	cases := []struct {
		name string
		req  Request
		want string
	}{
		{"skill in the system prompt, first call", Request{Agent: "optimizer", Step: 1, Messages: skill}, "with the skill"},
		{"skill in the prompt, later call repeats", Request{Agent: "optimizer", Step: 1, Messages: skill, Turn: 3}, "with the skill"},
		{"skill absent, first call", Request{Agent: "optimizer", Step: 1, Messages: plain}, "forgot the header"},
		{"skill absent, second call", Request{Agent: "optimizer", Step: 1, Messages: plain, Turn: 1}, "wrote the header after the feedback"},
		{"skill in a later message", Request{Agent: "optimizer", Step: 1, Messages: append(plain, Message{Role: RoleUser, Text: "Write the header first"})}, "with the skill"},
		{"no condition answers any prompt", Request{Agent: "evaluator", Step: 1, Messages: skill}, "any prompt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := s.Generate(context.Background(), c.req)
			if err != nil {
				t.Fatal(err)
			}
			if got.Text != c.want {
				t.Errorf("got %q, want %q", got.Text, c.want)
			}
		})
	}
}

func TestScriptPromptConditionLeavesNoReply(t *testing.T) {
	s, err := ParseScript("when.yaml", []byte("replies:\n  - role: planner\n    when_prompt_contains: magic\n    text: x\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Generate(context.Background(), Request{Agent: "planner", Messages: []Message{{Role: RoleUser, Text: "plain"}}})
	want := "cannot reply from script when.yaml: no reply for the planner has a when_prompt_contains/when_prompt_lacks that this prompt meets"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %q", err, want)
	}
}
