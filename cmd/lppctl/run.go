package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/lppctl/lppctl/machine"
)

func runCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run a spec from its initial state",
		ArgsUsage: "[SPEC]",
		Description: `Loads and validates the spec, then interprets it until it reaches a final
state, pauses for a person, fails, or is interrupted (Ctrl-C stops at a clean
point between transitions). Progress is printed as state changes.`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "spec", Aliases: []string{"f"}, Usage: "the spec `FILE` (or give it as the argument)"},
			&cli.StringSliceFlag{Name: "var", Usage: "override a context variable's default: `NAME=VALUE` (repeatable; lists and maps as JSON)"},
			&cli.IntFlag{Name: "max-transitions", Usage: "stop the run after `N` transitions (default: the spec's limits.max_transitions, else 10000)"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print nothing but errors and the final summary"},
			&cli.BoolFlag{Name: "json", Usage: "print progress as JSON lines (one per step) for machines"},
		}, agentFlags()...),
		Action: runAction,
	}
}

func runAction(c *cli.Context) error {
	path, err := specArg(c)
	if err != nil {
		return err
	}
	reg, err := newRegistry(c)
	if err != nil {
		return err
	}
	spec, err := loadSpec(path, reg, c.App.ErrWriter)
	if err != nil {
		return err
	}
	vars, err := parseVars(spec, c.StringSlice("var"))
	if err != nil {
		return err
	}
	m, err := machine.Compile(spec, reg)
	if err != nil {
		return withCode(exitInvalidSpec, err)
	}
	prog := newProgress(c.App.Writer, progressMode(c))
	r, err := m.NewRun(vars, machine.WithObserver(prog), machine.WithMaxTransitions(c.Int("max-transitions")))
	if err != nil {
		return withCode(exitUsage, err)
	}
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return finishRun(ctx, r, prog)
}

// finishRun runs r to its end and maps the outcome to an exit code.
func finishRun(ctx context.Context, r *machine.Run, prog *progress) error {
	err := r.Run(ctx)
	prog.summary(r, err)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, machine.ErrInterrupted):
		return withCode(exitInterrupted, err)
	}
	if _, ok := machine.AsPause(err); ok {
		return withCode(exitPaused, errors.New(""))
	}
	return withCode(exitFailed, err)
}

// specArg returns the spec path from --spec or the single argument.
func specArg(c *cli.Context) (string, error) {
	path := c.String("spec")
	switch {
	case path != "" && c.NArg() > 0:
		return "", usageErrorf("give the spec either with --spec or as the argument, not both")
	case path == "" && c.NArg() == 1:
		path = c.Args().First()
	case path == "" && c.NArg() == 0:
		return "", usageErrorf("which spec? give it with --spec FILE (e.g. lppctl %s --spec specs/skills_agent.yaml)", c.Command.Name)
	case c.NArg() > 1:
		return "", usageErrorf("too many arguments: %v", c.Args().Slice())
	}
	return path, nil
}

// parseVars turns NAME=VALUE overrides into typed values.
func parseVars(spec *machine.Spec, pairs []string) (map[string]any, error) {
	vars := make(map[string]any, len(pairs))
	for _, pair := range pairs {
		name, val, ok := cutEq(pair)
		if !ok {
			return nil, usageErrorf("--var %q: write NAME=VALUE", pair)
		}
		v := spec.Var(name)
		if v == nil {
			names := make([]string, len(spec.Context))
			for i, cv := range spec.Context {
				names[i] = cv.Name
			}
			hint := machine.DidYouMean(name, names)
			if hint != "" {
				hint = "; " + hint
			}
			return nil, usageErrorf("--var %s: the spec has no context variable %q%s", pair, name, hint)
		}
		typed, err := v.Type.ParseValue(val)
		if err != nil {
			return nil, usageErrorf("--var %s: %v", pair, err)
		}
		vars[name] = typed
	}
	return vars, nil
}

func cutEq(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '=' {
			return s[:i], s[i+1:], i > 0
		}
	}
	return "", "", false
}

// loadSpec reads, decodes and validates a spec, printing diagnostics (errors
// and warnings) to w. An invalid spec returns an error with exit code 3.
func loadSpec(path string, reg *machine.Registry, w interface{ Write([]byte) (int, error) }) (*machine.Spec, error) {
	spec, diags, err := machine.Load(path)
	if err != nil {
		return nil, withCode(exitInvalidSpec, err)
	}
	if spec != nil && !diags.HasErrors() {
		diags = append(diags, machine.Validate(spec, reg)...)
	}
	diags.Sort()
	var src []byte
	if spec != nil {
		src = spec.Source
	}
	if diags.HasErrors() {
		fmt.Fprintln(w, diags.PrettyAll(src))
		return nil, withCode(exitInvalidSpec, fmt.Errorf("cannot run %s: the spec is invalid", path))
	}
	if len(diags) > 0 {
		fmt.Fprintln(w, diags.PrettyAll(src))
	}
	return spec, nil
}
