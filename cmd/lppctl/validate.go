package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/lppctl/lppctl/machine"
)

func validateCommand() *cli.Command {
	return &cli.Command{
		Name:      "validate",
		Usage:     "check spec files and report every problem with its position",
		ArgsUsage: "SPEC...",
		Description: "Decodes and validates each spec against the registered actions and prints every\n" +
			"error and warning with the offending line and a caret. Exits 3 when any spec has\n" +
			"errors, 0 when there are only warnings.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the diagnostics as JSON"},
		},
		Action: runValidate,
	}
}

// jsonDiagnostic is one diagnostic in `validate --json` output.
type jsonDiagnostic struct {
	Severity string `json:"severity"`
	File     string `json:"file"`
	Line     int    `json:"line,omitempty"`
	Col      int    `json:"col,omitempty"`
	Span     int    `json:"span,omitempty"`
	Message  string `json:"message"`
	Hint     string `json:"hint,omitempty"`
}

// jsonSpecReport is one spec's result in `validate --json` output.
type jsonSpecReport struct {
	File        string           `json:"file"`
	OK          bool             `json:"ok"`
	Error       string           `json:"error,omitempty"` // the file could not be read
	Diagnostics []jsonDiagnostic `json:"diagnostics"`
}

func runValidate(c *cli.Context) error {
	if c.NArg() == 0 {
		return usageErrorf("validate needs at least one spec file: lppctl validate SPEC...")
	}
	reg, err := newRegistry(c)
	if err != nil {
		return err
	}
	out := c.App.Writer
	var errs []error
	var reports []jsonSpecReport
	for _, path := range c.Args().Slice() {
		rep := jsonSpecReport{File: path, Diagnostics: []jsonDiagnostic{}}
		src, err := os.ReadFile(path)
		if err != nil {
			err = fmt.Errorf("cannot read spec: %w", err)
			errs = append(errs, err)
			rep.Error = err.Error()
			reports = append(reports, rep)
			continue
		}
		_, diags := machine.Check(path, src, reg)
		rep.OK = !diags.HasErrors()
		for _, d := range diags {
			rep.Diagnostics = append(rep.Diagnostics, jsonDiagnostic{
				Severity: d.Severity.String(), File: d.File, Line: d.Pos.Line, Col: d.Pos.Col,
				Span: d.Span, Message: d.Msg, Hint: d.Hint,
			})
		}
		reports = append(reports, rep)
		if !rep.OK {
			errs = append(errs, fmt.Errorf("%s is invalid: %s", path, countDiags(diags)))
		}
		if c.Bool("json") {
			continue
		}
		if len(diags) > 0 {
			fmt.Fprintf(out, "%s\n\n", diags.PrettyAll(src))
		}
		if rep.OK {
			fmt.Fprintf(out, "%s: ok\n", path)
		}
	}
	if c.Bool("json") {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(reports); err != nil {
			return fmt.Errorf("cannot write report: %w", err)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	for _, err := range errs[:len(errs)-1] {
		fmt.Fprintf(c.App.ErrWriter, "lppctl: %v\n", err)
	}
	return withCode(exitInvalidSpec, errs[len(errs)-1])
}

func countDiags(ds machine.Diagnostics) string {
	n := len(ds.Errors())
	if n == 1 {
		return "1 error"
	}
	return fmt.Sprintf("%d errors", n)
}
