package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/lppctl/lppctl/actions"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/check/report"
	"github.com/lppctl/lppctl/machine/export"
	"github.com/lppctl/lppctl/machine/lpp"
	"github.com/lppctl/lppctl/machine/runstore"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

func checkCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "model-check spec files: deadlocks, unreachable states, traps, invariants, bounds",
		ArgsUsage: "SPEC|DIR...",
		Description: "Explores every reachable (state, context) of each spec breadth first, evaluating\n" +
			"guards and sets for real; each variable an action writes takes every value of a\n" +
			"bounded domain (see docs/check.md). Prints PASS, FAIL or UNKNOWN for each property\n" +
			"and, for a FAIL, the shortest counterexample with the position of each step.\n" +
			"An L++ blueprint (.json) is checked as the spec it translates into, its terminal\n" +
			"contracts as final_requires, every position in the JSON (docs/lpp.md).\n" +
			"Exits 0 when nothing fails (UNKNOWN is a warning unless --strict), 1 when a property\n" +
			"fails, 3 when a spec is invalid, 130 when interrupted (after printing what was\n" +
			"explored so far).\n" +
			"Each run starts from the defaults, but for the variables --var gives a value and\n" +
			"the inputs (--inputs, or `input: true` in the context), which start from every\n" +
			"value of their domain; a counterexample names the inputs it starts from.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the reports as JSON"},
			maxBytesFlag(),
			&cli.BoolFlag{Name: "strict", Usage: "fail (exit 1) on warnings too: UNKNOWN verdicts, transitions no path takes, validation warnings"},
			&cli.IntFlag{Name: "max-states", Value: check.DefaultMaxStates, Usage: "distinct (state, context) pairs to explore before stopping with UNKNOWN (bounds memory)"},
			&cli.StringSliceFlag{Name: "var", KeepSpace: true, Usage: "start a context variable from this value instead of its default: `NAME=VALUE` (repeatable; as run --var)"},
			&cli.StringSliceFlag{Name: "inputs", Usage: "start these context variables from every value of their domain, as `input: true` does: `NAME,NAME...`"},
			&cli.StringFlag{Name: "counterexample-format", Value: "text", Usage: "text, or mermaid: also draw each counterexample highlighted on the spec's diagram"},
			&cli.BoolFlag{Name: "interpreted", Usage: "evaluate every guard and set with expr, as the run does, instead of the compiled closures of those that have one (slower, the same verdicts: to rule the compiled evaluation out)"},
		},
		Action: runCheck,
	}
}

// jsonCheckReport is one spec's result in `check --json` output.
type jsonCheckReport struct {
	File        string             `json:"file"`
	OK          bool               `json:"ok"`              // valid, and no property failed
	Error       string             `json:"error,omitempty"` // the file could not be read or is invalid
	Diagnostics []jsonDiagnostic   `json:"diagnostics,omitempty"`
	Report      *check.CheckReport `json:"report,omitempty"`
	Mermaid     map[string]string  `json:"mermaid,omitempty"` // property → diagram of its counterexample
}

func runCheck(c *cli.Context) error {
	if c.NArg() == 0 {
		return usageErrorf("check needs at least one spec file: lppctl check SPEC...")
	}
	cexFormat := c.String("counterexample-format")
	if cexFormat != "text" && cexFormat != "mermaid" {
		return usageErrorf("unknown counterexample format %q (formats: text, mermaid)", cexFormat)
	}
	if c.Int("max-states") <= 0 {
		return usageErrorf("--max-states must be positive, not %d", c.Int("max-states"))
	}
	reg, err := newRegistry(c)
	if err != nil {
		return err
	}
	limit, err := readLimit(c)
	if err != nil {
		return err
	}
	paths, err := expandSpecDirs(c.Args().Slice(), limit)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if os.Getenv("GOGC") == "" {
		// A check reads and compiles in bursts of garbage, and its search
		// keeps its store off the heap (machine/check's arena): collecting
		// when the heap has tripled rather than doubled saves collections
		// for no more peak memory (docs/performance.md). A GOGC of the
		// user's stays.
		defer debug.SetGCPercent(debug.SetGCPercent(200))
	}
	out := c.App.Writer
	var invalid, failed, warned []string
	firstInvalid := "" // the error of the first invalid spec
	missing := false   // a spec file that does not exist: a usage error, as in validate and run
	interrupted := false
	var reports []jsonCheckReport
	for _, path := range paths {
		rep := jsonCheckReport{File: path}
		src, err := readCapped(path, "spec", limit)
		if err != nil {
			err = specRootHint(err, path, "")
			missing = missing || errors.Is(err, fs.ErrNotExist)
			rep.Error = err.Error()
			invalid = append(invalid, path)
			if firstInvalid != "" && !c.Bool("json") { // the first one ends the output
				fmt.Fprintf(c.App.ErrWriter, "lppctl: %s\n", rep.Error)
			}
			firstInvalid = cmp.Or(firstInvalid, rep.Error)
			reports = append(reports, rep)
			continue
		}
		spec, diags, remap, err := checkInput(path, src, reg)
		if err != nil {
			rep.Error = err.Error()
			invalid = append(invalid, path)
			if firstInvalid != "" && !c.Bool("json") {
				fmt.Fprintf(c.App.ErrWriter, "lppctl: %s\n", rep.Error)
			}
			firstInvalid = cmp.Or(firstInvalid, rep.Error)
			reports = append(reports, rep)
			continue
		}
		for _, d := range diags {
			rep.Diagnostics = append(rep.Diagnostics, jsonDiagnostic{Severity: d.Severity.String(), File: d.File, Line: d.Pos.Line, Col: d.Pos.Col, Span: d.Span, Message: d.Msg, Hint: d.Hint})
		}
		var m *machine.Machine
		if !diags.HasErrors() {
			m, err = machine.Compile(spec, reg)
		}
		if diags.HasErrors() || err != nil {
			rep.Error = fmt.Sprintf("%s is invalid: %s", path, countDiags(diags))
			if err != nil && !diags.HasErrors() {
				rep.Error = fmt.Sprintf("cannot compile %s: %v", path, err)
			}
			invalid = append(invalid, path)
			firstInvalid = cmp.Or(firstInvalid, rep.Error)
			reports = append(reports, rep)
			if !c.Bool("json") {
				fmt.Fprintf(out, "%s\n\n", diags.PrettyAll(src))
			}
			continue
		}
		if len(diags) > 0 {
			warned = append(warned, path)
			if !c.Bool("json") {
				fmt.Fprintf(out, "%s\n\n", diags.PrettyAll(src))
			}
		}
		opts, err := checkStart(path, spec, c.StringSlice("var"), c.StringSlice("inputs"))
		if err != nil {
			return err
		}
		opts.MaxStates = c.Int("max-states")
		opts.Interpreted = c.Bool("interpreted")
		progress := !c.Bool("json") && isTerminal(c.App.ErrWriter)
		opts.Progress = func(s check.CheckStats) {
			// A check under way for a second, its Ctrl-C handler in place:
			// the Ctrl-C test's moment (LPPCTL_CRASHPOINT=check-progress:1:INT).
			runstore.CrashPoint("check-progress")
			if progress {
				fmt.Fprintf(c.App.ErrWriter, "\rchecking %s: %d (state, context) pairs, depth %d, %s ", path, s.States, s.Depth, s.Duration.Round(time.Second))
			}
		}
		// The check is the long phase and its store lives outside the heap
		// (machine/check's arena): give back what reading and compiling
		// left behind before it starts, so it does not add to the peak.
		debug.FreeOSMemory()
		raw := check.ModelCheck(ctx, m, opts)
		r := remap(raw)
		if progress && r.Stats.Duration >= time.Second {
			fmt.Fprint(c.App.ErrWriter, "\r\033[K") // clear the progress line
		}
		rep.Report, rep.OK = r, r.Passed()
		if !r.Passed() {
			failed = append(failed, path)
		}
		if r.Unknowns() > 0 || len(r.Dead) > 0 {
			warned = append(warned, path)
		}
		if cexFormat == "mermaid" {
			rep.Mermaid = counterexampleDiagrams(spec, raw) // the spec's names (r has the blueprint's)
		}
		reports = append(reports, rep)
		if !c.Bool("json") {
			fmt.Fprint(out, report.Text(r, report.Options{}))
			for _, p := range r.Properties {
				if d, ok := rep.Mermaid[p.Property]; ok {
					fmt.Fprintf(out, "\n%%%% counterexample of %s\n%s", p.Property, d)
				}
			}
		}
		if r.Stopped == "interrupted" {
			interrupted = true
			break
		}
	}
	if c.Bool("json") {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(reports); err != nil {
			return fmt.Errorf("cannot write report: %w", err)
		}
	}
	switch {
	case interrupted:
		return withCode(exitInterrupted, errors.New("check interrupted: the statistics above are partial"))
	case len(invalid) > 0:
		if len(invalid) > 1 {
			firstInvalid += fmt.Sprintf(" (and %d more invalid specs)", len(invalid)-1)
		}
		if missing {
			return withCode(exitUsage, errors.New(firstInvalid))
		}
		return withCode(exitInvalidSpec, errors.New(firstInvalid))
	case len(failed) > 0:
		return withCode(exitFailed, fmt.Errorf("%s: a property fails (see the counterexample above)", describeMore("spec", failed)))
	case c.Bool("strict") && len(warned) > 0:
		return withCode(exitFailed, fmt.Errorf("%s: warnings fail with --strict (UNKNOWN verdicts, transitions no path takes, validation warnings)", describeMore("spec", warned)))
	}
	return nil
}

// checkInput decodes and validates one file for check, as validate does
// (validateSpecFile: a spec validate refuses is not checked), an L++
// blueprint translated in memory, its diagnostics moved into the JSON.
// remap does the same to the check's report: a blueprint's positions
// become the JSON's where a spec line comes from one
// (lpp.Translation.RemapReport); a spec's stay as they are. err is a
// blueprint that cannot be translated (its compute mapping is invalid).
func checkInput(path string, src []byte, reg *machine.Registry) (*mspec.Spec, mspec.Diagnostics, func(*check.CheckReport) *check.CheckReport, error) {
	f, diags, err := validateSpecFile(path, src, reg, actions.CheckOptions{Root: ".", NoFiles: true})
	if err != nil {
		return nil, nil, nil, err
	}
	if f.tr == nil {
		return f.Spec, diags, func(r *check.CheckReport) *check.CheckReport { return r }, nil
	}
	return f.Spec, diags, f.tr.RemapReport, nil
}

// checkStart reads --var and --inputs for one spec: the values it starts
// from, typed as run --var types them, and its free inputs. A name the spec
// does not declare, a value it cannot take or an input also given a value
// is a usage error that names the spec.
func checkStart(path string, spec *mspec.Spec, vars, inputs []string) (check.CheckOptions, error) {
	var opts check.CheckOptions
	given, err := parseVars(spec, vars)
	if err != nil {
		return opts, withCode(exitUsage, fmt.Errorf("%s: %w", path, err))
	}
	opts.Initial = given
	for _, list := range inputs { // --inputs a,b and --inputs a --inputs b
		for name := range strings.SplitSeq(list, ",") {
			if name = strings.TrimSpace(name); name != "" {
				opts.Inputs = append(opts.Inputs, name)
			}
		}
	}
	flags := lpp.DefinedFlags(spec)
	for _, name := range slices.Clone(opts.Inputs) { // an undeclared L++ property the caller may set or not: both
		if f := flags[blueprintName(spec, name)]; f != "" && !slices.Contains(opts.Inputs, f) {
			opts.Inputs = append(opts.Inputs, f)
		}
	}
	if err := opts.Validate(spec); err != nil {
		return opts, usageErrorf("%s: %v", path, err)
	}
	return opts, nil
}

// isTerminal reports whether w is a terminal, where progress lines go.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// describeMore names the first of paths and counts the others: "a.yaml (and 2 more specs)".
func describeMore(what string, paths []string) string {
	if len(paths) == 1 {
		return paths[0]
	}
	return fmt.Sprintf("%s (and %d more %ss)", paths[0], len(paths)-1, what)
}

// counterexampleDiagrams draws each counterexample on the spec's Mermaid
// diagram, its states and transitions highlighted (as export --run does).
func counterexampleDiagrams(spec *mspec.Spec, r *check.CheckReport) map[string]string {
	out := map[string]string{}
	for _, p := range r.Properties {
		if p.Trace == nil {
			continue
		}
		d, err := export.Export(spec, "mermaid", export.ExportOptions{Path: p.Trace.States()})
		if err == nil {
			out[p.Property] = string(d)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
