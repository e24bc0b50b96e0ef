package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/urfave/cli/v2"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// commands lists every subcommand; each lives in its own file.
func commands() []*cli.Command {
	return []*cli.Command{
		versionCommand(),
		skillsCommand(),
		mcpCommand(),
		validateCommand(),
		checkCommand(),
		exportCommand(),
		importCommand(),
		schemaCommand(),
		actionsCommand(),
		runCommand(),
		resumeCommand(),
		runsCommand(),
		evalCommand(),
		workerCommand(),
		toolCommand(),
		completionCommand(),
		manCommand(),
		uiCommand(),
	}
}

// newApp builds the CLI application writing to the given streams.
func newApp(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	cmds := commands()
	eachCommand(cmds, func(cmd *cli.Command) {
		setUsageError(cmd)
		setSubcommandAction(cmd)
		checkRootFlag(cmd)
		checkRequiredFlags(cmd)
	})
	return &cli.App{
		Name:                 "lppctl",
		Usage:                "run LLM agents described as declarative YAML state machines",
		Version:              version,
		Reader:               stdin,
		Writer:               stdout,
		ErrWriter:            stderr,
		Commands:             cmds,
		EnableBashCompletion: true,
		// --var errors='["a","b"]' is one value: repeat the flag for several.
		DisableSliceFlagSeparator: true,
		HideVersion:               true, // our --version prints what `lppctl version` does
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "version", Usage: "print lppctl's version (as lppctl version does)"},
		}, logFlags()...),
		Before:         checkLogFlags,
		Action:         appAction,
		ExitErrHandler: func(*cli.Context, error) {}, // run() reports errors and picks the exit code
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return usageError(err, "lppctl [global options] command [command options]", "lppctl")
		},
	}
}

// appAction runs for `lppctl` without a command: --version prints the
// version; nothing at all prints the help on stderr and exits 2.
func appAction(c *cli.Context) error {
	if c.Bool("version") {
		return printVersion(c.App.Writer)
	}
	cli.HelpPrinter(c.App.ErrWriter, cli.AppHelpTemplate, c.App)
	return withCode(exitUsage, errors.New(""))
}

// run executes the CLI and returns the process exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := newApp(stdin, stdout, stderr)
	if len(args) > 2 && (args[1] == "help" || args[1] == "h") && !strings.HasPrefix(args[2], "-") {
		// lppctl help runs trace is lppctl runs trace --help (urfave/cli
		// showed the help of runs, and "No help topic" with exit 1 for an
		// unknown command).
		args = append(append([]string{args[0]}, args[2:]...), "--help")
	}
	if len(args) > 1 && !strings.HasPrefix(args[1], "-") && findCommand(app.Commands, args[1]) == nil && args[1] != "help" && args[1] != "h" {
		names := make([]string, 0, len(app.Commands))
		for _, c := range app.Commands {
			names = append(names, c.Name)
		}
		hint := ""
		if best, ok := mspec.DidYouMean(args[1], names); ok {
			hint = fmt.Sprintf("; did you mean %q?", best)
		}
		fmt.Fprintf(stderr, "lppctl: unknown command %q%s (lppctl --help lists them)\n", args[1], hint)
		return exitUsage
	}
	if err := app.Run(interspersed(app, args)); err != nil {
		code := exitCode(err)
		if code == exitFailed && isUsageMessage(err) {
			code = exitUsage
		}
		msg := strings.TrimRight(err.Error(), "\n")
		if msg != "" {
			fmt.Fprintf(stderr, "lppctl: %s\n", msg)
		}
		return code
	}
	return exitOK
}

// isUsageMessage recognises the flag-parsing errors urfave/cli returns without a usage hook.
func isUsageMessage(err error) bool {
	s := err.Error()
	return strings.HasPrefix(s, "flag provided but not defined") ||
		strings.HasPrefix(s, "Required flag") ||
		strings.HasPrefix(s, "invalid value")
}
