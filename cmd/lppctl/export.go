package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/lppctl/lppctl/machine"
)

func exportCommand() *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "draw a spec as a Mermaid or Graphviz diagram",
		ArgsUsage: "SPEC",
		Description: "Writes the spec's state machine as a Mermaid stateDiagram-v2 (guards on the edge\n" +
			"labels), a Mermaid flowchart, or Graphviz DOT. The spec must be valid.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: machine.ExportFormats[0],
				Usage: "diagram format: " + strings.Join(machine.ExportFormats, ", ") + "; or lpp: write the spec as an L++ blueprint (JSON)"},
			&cli.BoolFlag{Name: "set", Usage: "show each transition's set: on its edge label"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the diagram to `FILE` instead of standard output"},
			&cli.StringFlag{Name: "run", Usage: "highlight the path run `RUN_ID` took (SPEC defaults to the run's copy of its spec)"},
			&cli.StringFlag{Name: "run-dir", EnvVars: []string{"LPPCTL_RUN_DIR"}, Usage: "where runs live (see lppctl run)"},
			temporalFlags()[0], temporalFlags()[1],
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
	if !slices.Contains(machine.ExportFormats, format) {
		return usageErrorf("unknown format %q (formats: %s)", format, strings.Join(machine.ExportFormats, ", "))
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
	if err != nil {
		return withCode(exitInvalidSpec, fmt.Errorf("cannot read spec: %w", err))
	}
	reg, err := newRegistry(c)
	if err != nil {
		return err
	}
	spec, diags := machine.Check(path, src, reg, machine.WithoutFiles()) // drawing reads no prompt template; a run's spec copy is away from them
	if diags.HasErrors() {
		fmt.Fprintf(c.App.ErrWriter, "%s\n\n", diags.Errors().PrettyAll(src))
		return withCode(exitInvalidSpec, fmt.Errorf("cannot export %s: the spec is invalid (%s)", path, countDiags(diags)))
	}
	opts := machine.ExportOptions{ShowSet: c.Bool("set"), Path: runPath}
	out, err := machine.Export(spec, format, opts)
	if err != nil {
		return err
	}
	if file := c.String("output"); file != "" {
		if err := os.WriteFile(file, out, 0o644); err != nil {
			return fmt.Errorf("cannot write diagram: %w", err)
		}
		return nil
	}
	_, err = c.App.Writer.Write(out)
	return err
}
