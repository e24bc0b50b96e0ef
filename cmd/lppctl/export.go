package main

import (
	"errors"
	"fmt"
	"github.com/lppctl/lppctl/actions"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/lppctl/lppctl/internal/fsx"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/export"
	"github.com/lppctl/lppctl/machine/lpp"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

// formatTLA is the export format that writes a TLA+ module (see
// machine.ExportTLA) rather than a diagram.
const formatTLA = "tla"

// exportFormats are the formats export writes: the diagrams, then TLA+ and
// L++ (a blueprint, see lpp_export.go).
var exportFormats = slices.Concat(export.ExportFormats, []string{formatTLA, formatLPP})

func exportCommand() *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "draw a spec as a Mermaid or Graphviz diagram, or write it as a TLA+ module",
		ArgsUsage: "SPEC",
		Description: "Writes the spec's state machine as a Mermaid stateDiagram-v2 (guards on the edge\n" +
			"labels), a Mermaid flowchart, or Graphviz DOT. The spec must be valid.\n\n" +
			"--format tla writes a TLA+ module for TLC with the abstraction of lppctl check, and\n" +
			"its TLC configuration: to the file --tla-cfg names, else printed after the module's\n" +
			"closing ==== line (which TLA+ tools ignore). See docs/check.md, \"TLA+ export\".",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: exportFormats[0],
				Usage: "output format: " + strings.Join(exportFormats, ", ") + " (lpp: the spec as an L++ blueprint)"},
			&cli.StringFlag{Name: "tla-cfg", Usage: "with --format tla: write the TLC configuration to `FILE` (NAME.cfg next to NAME.tla)"},
			&cli.BoolFlag{Name: "set", Usage: "show each transition's set: on its edge label"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the diagram to `FILE` instead of standard output"},
			&cli.StringFlag{Name: "run", Usage: "highlight the path run `RUN_ID` took (SPEC defaults to the run's copy of its spec)"},
			&cli.StringFlag{Name: "run-dir", EnvVars: []string{"LPPCTL_RUN_DIR"}, Usage: "where runs live (see lppctl run)", Action: checkRunDir},
			temporalFlags()[0], temporalFlags()[1], temporalFlags()[3],
		},
		Action: runExport,
	}
}

func runExport(c *cli.Context) error {
	runID := c.String("run")
	if c.NArg() != 1 && (runID == "" || c.NArg() != 0) {
		return usageErrorf("export needs exactly one spec file: lppctl export [--format FORMAT] SPEC")
	}
	format := c.String("format")
	if format == formatLPP { // write the spec as an L++ blueprint: see lpp_export.go
		return exportLPP(c)
	}
	if done, err := exportBlueprint(c, format); done { // an L++ blueprint: see import.go
		return err
	}
	if !slices.Contains(exportFormats, format) {
		return usageErrorf("unknown format %q (formats: %s)", format, strings.Join(exportFormats, ", "))
	}
	if format == formatTLA && runID != "" {
		return usageErrorf("--run highlights a diagram; it does not apply to --format tla")
	}
	if format != formatTLA && c.String("tla-cfg") != "" {
		return usageErrorf("--tla-cfg applies to --format tla only")
	}
	path := c.Args().First()
	var runPath []string
	if runID != "" {
		var err error
		specAndPath := runSpecAndPath
		if c.String("temporal") != "" {
			specAndPath = temporalSpecAndPath
		}
		if path, runPath, err = specAndPath(c, runID, path); err != nil {
			return err
		}
	}
	src, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) { // a usage error, as in validate and run
		return withCode(exitUsage, specRootHint(fmt.Errorf("cannot read spec: %w", err), path, ""))
	}
	if err != nil {
		return withCode(exitInvalidSpec, fmt.Errorf("cannot read spec: %w", err))
	}
	reg, err := newRegistry(c)
	if err != nil {
		return err
	}
	var spec *mspec.Spec
	var diags mspec.Diagnostics
	if runID != "" && lpp.ReadAsBlueprint(path, src) {
		// A run of a blueprint keeps the blueprint: its path is through the
		// translation's states, drawn as run and resume translate it.
		f, err := parseSpecFileTo(path, src, "", false)
		if err != nil {
			return err
		}
		spec, diags = f.Spec, f.Diags
		if spec != nil && !diags.HasErrors() {
			diags = append(diags, f.remap(validate.Validate(spec, reg, validate.WithoutFiles()))...)
		}
	} else if runID != "" {
		spec, diags = validate.Check(path, src, reg, validate.WithoutFiles()) // drawing reads no prompt template; a run's spec copy is away from them
	} else {
		// As lppctl check validates it: the general actions' parameters
		// too (an unknown name in input:), not the files a run reads.
		f, d, err := validateSpecFile(path, src, reg, actions.CheckOptions{Root: ".", NoFiles: true})
		if err != nil {
			return err
		}
		spec, diags = f.Spec, d
	}
	if diags.HasErrors() {
		fmt.Fprintf(c.App.ErrWriter, "%s\n\n", diags.Errors().PrettyAll(src))
		return withCode(exitInvalidSpec, fmt.Errorf("cannot export %s: the spec is invalid (%s)", path, countDiags(diags)))
	}
	var out []byte
	what := "diagram"
	if format == formatTLA {
		if out, err = exportTLA(c, spec, reg); err != nil {
			return err
		}
		what = "TLA+ module"
	} else if out, err = export.Export(spec, format, export.ExportOptions{ShowSet: c.Bool("set"), Path: runPath}); err != nil {
		return err
	}
	if file := c.String("output"); file != "" {
		if err := fsx.WriteOutput(file, out, 0o644); err != nil {
			return fmt.Errorf("cannot write %s: %w", what, err)
		}
		return nil
	}
	_, err = c.App.Writer.Write(out)
	return err
}

// exportTLA writes the spec as a TLA+ module. The TLC configuration goes to
// the --tla-cfg file, else after the module's closing line, which TLA+ tools
// ignore, so that the output is still a module TLC reads.
func exportTLA(c *cli.Context, spec *mspec.Spec, reg *machine.Registry) ([]byte, error) {
	m, err := machine.Compile(spec, reg)
	if err != nil {
		return nil, withCode(exitInvalidSpec, fmt.Errorf("cannot export %s: %w", spec.File, err))
	}
	mod, err := export.ExportTLA(m)
	if err != nil {
		return nil, withCode(exitInvalidSpec, err)
	}
	if file := c.String("tla-cfg"); file != "" {
		if err := fsx.WriteOutput(file, mod.Config, 0o644); err != nil {
			return nil, fmt.Errorf("cannot write TLC configuration: %w", err)
		}
		return mod.Module, nil
	}
	out := slices.Concat(mod.Module, []byte("\n\\* ---- "+mod.Name+".cfg (or use --tla-cfg FILE) ----\n"), mod.Config)
	return out, nil
}
