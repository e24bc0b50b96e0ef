package actions

import (
	"context"
	"strings"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// humanInput is human.input: when the string variable into is empty and a
// person is at a terminal, it asks them for its value (an empty answer
// leaves it empty); then it sends the event emit, if one is named. With no
// terminal it only sends the event, so a state that waits for another event
// (a SUBMIT with the value as payload) pauses as it would without it.
func (d *Deps) humanInput(ctx context.Context, c *machine.Call) error {
	into := c.String("into")
	if cur, _ := c.Var(into).(string); cur == "" {
		line, ok, err := d.Ask(ctx, strings.TrimRight(c.String("prompt"), " ")+" ")
		if err != nil {
			return err
		}
		if answer := strings.TrimSpace(line); ok && answer != "" {
			if err := c.SetVar(into, answer); err != nil {
				return err
			}
		}
	}
	if ev := c.String("emit"); ev != "" {
		c.EmitEvent(ev, nil)
	}
	return nil
}

// humanInputAction declares human.input.
func (d *Deps) humanInputAction() machine.Action {
	return machine.Action{
		Name: "human.input",
		Doc:  "on a terminal, asks a person for the value of an empty string variable; then sends an event (e.g. START); with no terminal it only sends the event",
		Params: []machine.ParamSpec{
			{Name: "prompt", Type: mspec.TypeString, Required: true, Doc: "the question, e.g. What should the skill do?"},
			{Name: "into", Type: mspec.TypeString, Required: true, Doc: "the string variable that gets the answer (asked only while it is empty)"},
			{Name: "emit", Type: mspec.TypeString, Event: true, Doc: "the event sent afterwards, answered or not"},
		},
		WritesFor: func(p map[string]any) []machine.VarSpec {
			return varParam(p, "into", mspec.TypeString, "the person's answer")
		},
		Run: d.humanInput,
	}
}
