package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// helpWidth is the widest a line of lppctl's help may be; flagUsageWidth is
// where a flag's description is wrapped so that, after the flag names'
// column, its lines stay within helpWidth.
const (
	helpWidth      = 100
	flagUsageWidth = 56
)

func init() {
	plain := cli.FlagStringer
	cli.FlagStringer = func(f cli.Flag) string { return wrapFlagHelp(plain(f)) }
}

// wrapFlagHelp reshapes urfave/cli's "NAMES\tUSAGE (default: X) [$ENV]" line
// of a flag: a repeatable flag is named once (its usage says it repeats), a
// boolean's "(default: false)" goes, and the usage is wrapped at
// flagUsageWidth, each further line starting with a tab so that the help's
// tabwriter aligns it under the first.
func wrapFlagHelp(s string) string {
	names, usage, ok := strings.Cut(s, "\t")
	if !ok {
		return s
	}
	if i := strings.Index(names, " [ "); i > 0 && strings.HasSuffix(names, " ]") {
		names = names[:i]
	}
	usage = strings.Replace(usage, " (default: false)", "", 1)
	var lines []string
	line := ""
	for _, w := range strings.Fields(usage) {
		if line != "" && len(line)+1+len(w) > flagUsageWidth {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	lines = append(lines, line)
	return names + "\t" + strings.Join(lines, "\n\t")
}

// flagNameRE finds the flag in the standard library's parse errors ("flag
// provided but not defined: -frob", "invalid value ... for flag -n: ...").
var flagNameRE = regexp.MustCompile(`(flag provided but not defined: |flag needs an argument: |for flag )-([^\s:]+)`)

// usageError rewords a flag-parsing error of the command whose usage line
// is usage ("lppctl run [command options] [SPEC]") and returns it with exit
// code 2: "unknown flag --frob", then the usage line (not the whole help).
func usageError(err error, usage, help string) error {
	msg := err.Error()
	dashed := func(name string) string {
		if len(name) == 1 {
			return "-" + name
		}
		return "--" + name
	}
	if m := flagNameRE.FindStringSubmatch(msg); m != nil {
		switch m[1] {
		case "flag provided but not defined: ":
			msg = "unknown flag " + dashed(m[2])
		case "flag needs an argument: ":
			msg = "flag " + dashed(m[2]) + " needs a value"
		default:
			msg = strings.Replace(msg, m[0], m[1]+dashed(m[2]), 1)
		}
	}
	return withCode(exitUsage, fmt.Errorf("%s\nusage: %s (%s --help for more)", msg, usage, help))
}

// usageLine is the USAGE line of cmd's help.
func usageLine(cmd *cli.Command) string {
	if cmd.UsageText != "" {
		first, _, _ := strings.Cut(strings.TrimSpace(cmd.UsageText), "\n")
		return first
	}
	s := cmd.HelpName
	if slices.ContainsFunc(cmd.Subcommands, func(sub *cli.Command) bool { return sub.Name != "help" }) {
		s += " command"
	}
	if len(cmd.Flags) > 0 || !cmd.HideHelp {
		s += " [command options]"
	}
	if args := strings.TrimSpace(cmd.ArgsUsage); args != "" {
		s += " " + args
	}
	return s
}

// eachCommand calls fn on every command and subcommand, outer first.
func eachCommand(cmds []*cli.Command, fn func(*cli.Command)) {
	for _, cmd := range cmds {
		fn(cmd)
		eachCommand(cmd.Subcommands, fn)
	}
}

// setUsageError makes cmd report flag errors with usageError.
func setUsageError(cmd *cli.Command) {
	if cmd.OnUsageError == nil {
		cmd.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
			return usageError(err, usageLine(cmd), cmd.HelpName)
		}
	}
}
