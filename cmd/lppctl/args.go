package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// interspersed moves a command's flags before its positional arguments, so
// that `lppctl run spec.yaml --var n=1` works like `lppctl run --var n=1
// spec.yaml` (urfave/cli stops reading flags at the first argument). The
// command is found by following subcommand names from the start; everything
// after a "--" stays as it is. Global flags may come before the command
// (lppctl --log-level debug run SPEC --var n=1). With --help (or -h), the
// arguments are dropped: the command's help is shown.
func interspersed(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	cmds := app.Commands
	i := 1
	var cmd *cli.Command
	for i < len(args) {
		if cmd == nil && strings.HasPrefix(args[i], "-") && args[i] != "-" && args[i] != "--" {
			// a global flag before the command (lppctl --log-level debug run ...)
			if f := findFlag(app.Flags, strings.TrimLeft(args[i], "-")); f != nil && takesValue(f) && !strings.Contains(args[i], "=") {
				i++
			}
			i++
			continue
		}
		next := findCommand(cmds, args[i])
		if next == nil {
			break
		}
		cmd, cmds = next, next.Subcommands
		i++
	}
	if cmd == nil || len(cmd.Subcommands) > 0 || cmd.SkipFlagParsing {
		return args
	}
	var flags, positional []string
	for j := i; j < len(args); j++ {
		a := args[j]
		if a == "--" {
			positional = append(positional, args[j:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		if strings.Contains(a, "=") {
			continue
		}
		if f := findFlag(cmd.Flags, strings.TrimLeft(a, "-")); f != nil && takesValue(f) && j+1 < len(args) {
			j++
			flags = append(flags, args[j])
		}
	}
	out := make([]string, 0, len(args))
	out = append(out, args[:i]...)
	out = append(out, flags...)
	for _, f := range flags {
		if f == "--help" || f == "-h" || f == "-help" {
			// The command's help: urfave/cli would take an argument
			// after it for a help topic (No help topic for 'lpp').
			return out
		}
	}
	return append(out, positional...)
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.Name == name {
			return c
		}
		for _, a := range c.Aliases {
			if a == name {
				return c
			}
		}
	}
	return nil
}

func findFlag(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

func takesValue(f cli.Flag) bool {
	if dg, ok := f.(cli.DocGenerationFlag); ok {
		return dg.TakesValue()
	}
	return true
}
