package llm

import (
	"context"
	"strings"
	"testing"
)

func TestScriptServesStateRepliesInOrder(t *testing.T) {
	s, err := ParseScript("demo.yaml", []byte(`
replies:
  - state: summarise
    text: first
  - role: planner
    text: plan
  - state: summarise
    text: second
    repeat: true
  - state: check
    text: checked
`))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		req  Request
		want string
	}{
		{Request{Agent: "generate", State: "summarise", Turn: 0}, "first"},
		{Request{Agent: "generate", State: "summarise", Turn: 1}, "second"},
		{Request{Agent: "generate", State: "summarise", Turn: 5}, "second"},
		{Request{Agent: "generate", State: "check", Turn: 0}, "checked"},
		{Request{Agent: "planner", Turn: 0}, "plan"},
	}
	for _, c := range cases {
		got, err := s.Generate(context.Background(), c.req)
		if err != nil {
			t.Fatalf("%+v: %v", c.req, err)
		}
		if got.Text != c.want {
			t.Errorf("%+v: got %q, want %q", c.req, got.Text, c.want)
		}
	}
}

func TestScriptStateReplyErrors(t *testing.T) {
	s, err := ParseScript("demo.yaml", []byte("replies:\n  - state: a\n    text: x\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		req  Request
		want string
	}{
		{Request{Agent: "generate", State: "b"}, `cannot reply from script demo.yaml: it has no reply for the state "b"`},
		{Request{Agent: "generate", State: "a", Turn: 1}, `cannot reply from script demo.yaml: the state "a" asked for reply #2 but the script has only 1 (mark the last one repeat: true to reuse it)`},
		{Request{Agent: "planner"}, `cannot reply from script demo.yaml: it has no reply for the planner`},
	} {
		_, err := s.Generate(context.Background(), c.req)
		if err == nil || err.Error() != c.want {
			t.Errorf("%+v: got %v, want %s", c.req, err, c.want)
		}
	}
	for src, want := range map[string]string{
		"replies:\n  - state: a\n    role: planner\n    text: x\n": "reply 1 (line 2): give either role:",
		"replies:\n  - state: a\n    step: 2\n    text: x\n":       "reply 1 (line 2): step: goes with role:",
	} {
		_, err := ParseScript("demo.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", src, err, want)
		}
	}
}
