package actions

import (
	"context"
	"fmt"

	"github.com/lppctl/lppctl/gateway"
	"github.com/lppctl/lppctl/internal/textx"
	"github.com/lppctl/lppctl/machine"
)

// Statuses tools.call writes.
const (
	StatusOK      = "ok"
	StatusError   = "error"
	StatusBlocked = "blocked"
)

// toolsCall is tools.call: one gateway call the spec chooses, its arguments
// evaluated against the context. The gateway applies its policy and audit log
// as for the model's calls.
func (d *Deps) toolsCall(ctx context.Context, c *machine.Call) error {
	args, err := evalMap(c, "args")
	if err != nil {
		return err
	}
	tool, command := c.String("tool"), c.String("command")
	call := args
	switch tool {
	case gateway.ToolCLI:
		if command == "" {
			return fmt.Errorf("tools.call in state %q: %s needs command: (a sub-command such as read_file)", c.State, tool)
		}
		call = map[string]any{"tool_name": command, "params": args}
	default:
		if command != "" {
			return fmt.Errorf("tools.call in state %q: %s takes no command:; give the script as args: {script_name: ...}", c.State, tool)
		}
	}
	gw, err := d.OpenGateway()
	if err != nil {
		return err
	}
	res := gw.Call(ctx, tool, call)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	status := StatusOK
	switch res.Decision {
	case gateway.DecisionBlock:
		status = StatusBlocked
	case gateway.DecisionError:
		status = StatusError
	}
	what := tool
	if command != "" {
		what += " " + command
	}
	c.Notef("%s → %s: %s", what, res.Decision, Clip(textx.OneLine(res.Text), 100))
	if name := c.String("status"); name != "" {
		if err := c.SetVar(name, status); err != nil {
			return err
		}
	} else if status != StatusOK {
		return fmt.Errorf("%s: %s (give tools.call a status: variable to route on it instead)", what, Clip(textx.OneLine(res.Text), 300))
	}
	if name := c.String("result"); name != "" {
		return c.SetVar(name, res.Text)
	}
	return nil
}
