package actions

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/lppctl/lppctl/actions/llm"
	"github.com/lppctl/lppctl/machine"
)

// replySpec waits for a person's REPLY (or goes straight to answer when
// direct is true); answer's prompt reads the event that entered it.
const replySpec = `
lpp: 1
name: reply
context:
  direct: {type: bool, default: false}
  answer: {type: string, default: ""}
initial: start
states:
  start:
    next:
      - {to: answer, when: direct}
      - {to: waiting}
  waiting:
    on:
      REPLY: {to: answer}
  answer:
    do: llm.generate
    with: {prompt: p.md, output: answer}
    next: [{to: done}]
  done: {final: true}
events:
  REPLY:
    payload:
      text: {type: string}
      mood: {type: string, default: calm}
`

// prompts records the prompts a model is sent.
type prompts struct {
	llm.Client
	mu   sync.Mutex
	sent []string
}

func (p *prompts) Generate(ctx context.Context, req llm.Request) (llm.Reply, error) {
	p.mu.Lock()
	p.sent = append(p.sent, req.Messages[len(req.Messages)-1].Text)
	p.mu.Unlock()
	return p.Client.Generate(ctx, req)
}

func TestGenerateTemplatesReadTheEventThatEnteredTheState(t *testing.T) {
	for _, c := range []struct {
		name    string
		vars    map[string]any
		event   string
		payload map[string]any
		want    string
	}{
		{"entered by the event", nil, "REPLY", map[string]any{"text": "please refund me"},
			"event REPLY says \"please refund me\" (calm)\n"},
		{"an optional field given", nil, "REPLY", map[string]any{"text": "now!", "mood": "angry"},
			"event REPLY says \"now!\" (angry)\n"},
		{"entered by next: no event, the fields read as their defaults", map[string]any{"direct": true}, "", nil,
			"event  says \"\" (calm)\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newProject(t, map[string]string{
				"a/spec.yaml": replySpec,
				"a/p.md":      `event {{.event.name}} says "{{.event.payload.text}}" ({{.event.payload.mood}})`,
				"a/demo.yaml": "replies:\n  - state: answer\n    text: noted\n",
			})
			d := p.deps("a", "demo.yaml")
			model := &prompts{Client: d.Model}
			d.Model = model
			spec, reg, diags := p.check("a/spec.yaml", d)
			if diags.HasErrors() {
				t.Fatalf("invalid:\n%s", diags.PrettyAll(spec.Source))
			}
			m, err := machine.Compile(spec, reg)
			if err != nil {
				t.Fatal(err)
			}
			r, err := m.NewRun(c.vars, machine.WithRunID("run1"))
			if err != nil {
				t.Fatal(err)
			}
			if c.event != "" {
				if err := r.SendEvent(c.event, c.payload); err != nil {
					t.Fatal(err)
				}
			}
			err = r.Run(context.Background())
			d.Close()
			if err != nil {
				t.Fatal(err)
			}
			if r.State() != "done" || r.Var("answer") != "noted" {
				t.Fatalf("state %s, answer %q", r.State(), r.Var("answer"))
			}
			if len(model.sent) != 1 || model.sent[0] != c.want {
				t.Fatalf("prompts sent %q\nwant [%q]", model.sent, c.want)
			}
		})
	}
}

func TestGenerateTemplatesSeeAContextVariableNamedEvent(t *testing.T) {
	spec := strings.Replace(replySpec, "  answer: {type: string", "  event: {type: string, default: mine}\n  answer: {type: string", 1)
	p := newProject(t, map[string]string{
		"a/spec.yaml": spec,
		"a/p.md":      `variable {{.event}}`,
		"a/demo.yaml": "replies:\n  - state: answer\n    text: noted\n",
	})
	d := p.deps("a", "demo.yaml")
	model := &prompts{Client: d.Model}
	d.Model = model
	if _, err := p.run("a/spec.yaml", d, map[string]any{"direct": true}); err != nil {
		t.Fatal(err)
	}
	if len(model.sent) != 1 || model.sent[0] != "variable mine\n" {
		t.Fatalf("prompts sent %q", model.sent)
	}
}

func TestCheckSpecReportsTemplatesReadingWhatNoEventCarries(t *testing.T) {
	for _, c := range []struct {
		name, template, want string
	}{
		{"a payload field no entering event declares", "{{.event.payload.txt}}",
			`a/spec.yaml:18:20: error: parameter "prompt" of action "llm.generate": template p.md reads .event.payload.txt, but no event that enters state "answer" declares payload field "txt"; did you mean "text"? events entering state "answer": REPLY {text: string, mood: string}` + "\n"},
		{"a key an event does not have", "{{.event.payload.text}} {{.event.sender}}",
			`a/spec.yaml:18:20: error: parameter "prompt" of action "llm.generate": template p.md reads .event.sender, which an event does not have; an event has .event.name and .event.payload.FIELD` + "\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newProject(t, map[string]string{"a/spec.yaml": replySpec, "a/p.md": c.template})
			got := diagText(t, p, "a/spec.yaml")
			if !strings.Contains(got, c.want) {
				t.Fatalf("errors:\n%s\nwant one with:\n%s", got, c.want)
			}
		})
	}
	t.Run("a state no event enters", func(t *testing.T) {
		spec := strings.Replace(replySpec, "REPLY: {to: answer}", "REPLY: {to: done}", 1)
		p := newProject(t, map[string]string{"a/spec.yaml": spec, "a/p.md": "{{.event.payload.text}}"})
		want := `template p.md reads .event.payload.text, but no event that enters state "answer" declares payload field "text"`
		got := diagText(t, p, "a/spec.yaml")
		if !strings.Contains(got, want) || !strings.Contains(got, `no event enters state "answer", so its templates see .event.name "" and an empty .event.payload`) {
			t.Fatalf("errors:\n%s\nwant one with %q and its hint", got, want)
		}
	})
}
