package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/lppctl/lppctl/actions"
	"github.com/lppctl/lppctl/internal/fsx"

	"github.com/urfave/cli/v2"

	"github.com/lppctl/lppctl/machine/lpp"
	"github.com/lppctl/lppctl/machine/lpp/mapfile"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

func importCommand() *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "translate an L++ blueprint into an lppctl spec",
		ArgsUsage: "lpp BLUEPRINT.json",
		Description: "Writes an lppctl spec (YAML with comments) that behaves as the L++ blueprint does:\n" +
			"each blueprint state waits for its events, transitions are tried in the blueprint's order,\n" +
			"gates become guards, set/compute/emit actions become set, script.run and emit steps.\n" +
			"Compute units are placed by BLUEPRINT.lppctl.yaml beside the blueprint (see docs/lpp.md).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the spec to `FILE` instead of standard output"},
			&cli.StringFlag{Name: "mapping", Usage: "the compute-unit mapping `FILE` (default: BLUEPRINT.lppctl.yaml, if it exists)"},
			maxBytesFlag(),
		},
		Action: runImport,
	}
}

func runImport(c *cli.Context) error {
	if c.NArg() != 2 || c.Args().First() != "lpp" {
		return usageErrorf("import needs a format and a file: lppctl import lpp BLUEPRINT.json [-o SPEC.yaml]")
	}
	path := c.Args().Get(1)
	bp, err := loadBlueprint(c, path)
	if err != nil {
		return err
	}
	mpath := c.String("mapping")
	if mpath == "" {
		mpath = mapfile.Path(path)
	} else if _, err := os.Stat(mpath); err != nil {
		return withCode(exitUsage, fmt.Errorf("cannot read compute mapping: %w", err))
	}
	m, err := mapfile.Load(mpath)
	if err != nil {
		return reportInvalid(c, "compute mapping "+mpath, err)
	}
	var mu *mapfile.MissingUnitsError
	if err := lpp.CheckUnits(bp, m); errors.As(err, &mu) {
		// The mapping is needed only to run: the spec gets a no-op for each
		// such unit (import again once the mapping places them).
		fmt.Fprintf(c.App.ErrWriter, "%s: warning: %s; each is a no-op in the spec until the mapping places it\n", path, mu.Error())
		m.Unmapped = true
	}
	out, err := lpp.ToSpecYAML(bp, m)
	if err != nil {
		return withCode(exitInvalidSpec, fmt.Errorf("cannot import %s: %w", path, err))
	}
	if file := c.String("output"); file != "" {
		if err := fsx.WriteOutput(file, out, 0o644); err != nil {
			return fmt.Errorf("cannot write spec: %w", err)
		}
	} else if _, err := c.App.Writer.Write(out); err != nil {
		return err
	}
	return importedValid(c, path, bp.Source)
}

// importedValid checks the blueprint as check does, once its spec is
// written (the diagnostics' hints name the spec's lines): a translation
// that validate, check and run would refuse is an invalid-input error
// (exit 3) with the diagnostics on stderr, not a silent success.
func importedValid(c *cli.Context, path string, src []byte) error {
	reg, err := buildRegistry(agentConfig{}, nil)
	if err != nil {
		return err
	}
	// Its content, as check reads it: the files and the policy a run needs
	// are validate's, where the project is (import may run anywhere).
	_, diags, err := validateSpecFile(path, src, reg, actions.CheckOptions{Root: ".", NoFiles: true})
	if err != nil {
		return withCode(exitInvalidSpec, err)
	}
	if !diags.HasErrors() {
		return nil
	}
	fmt.Fprintf(c.App.ErrWriter, "%s\n\n", diags.Errors().PrettyAll(src))
	return withCode(exitInvalidSpec, fmt.Errorf("%s: the spec is written, but validate, check and run refuse the blueprint (%s)", path, countDiags(diags)))
}

// loadBlueprint reads a blueprint, printing its problems (with carets) and
// warnings on stderr.
func loadBlueprint(c *cli.Context, path string) (*lpp.Blueprint, error) {
	limit, err := readLimit(c)
	if err != nil {
		return nil, err
	}
	src, err := readCapped(path, "blueprint", limit)
	if errors.Is(err, fs.ErrNotExist) { // as a spec that does not exist, in every command
		return nil, withCode(exitUsage, err)
	}
	if err != nil {
		return nil, err
	}
	bp, diags := lpp.Parse(path, src)
	if diags.HasErrors() {
		return nil, reportInvalid(c, path, &mspec.DiagnosticsError{Diags: diags, Source: src})
	}
	if len(bp.Warnings) > 0 {
		fmt.Fprintf(c.App.ErrWriter, "%s\n\n", bp.Warnings.PrettyAll(bp.Source))
	}
	return bp, nil
}

// reportInvalid prints positioned diagnostics and returns the exit-3 error.
func reportInvalid(c *cli.Context, what string, err error) error {
	var de *mspec.DiagnosticsError
	if !errors.As(err, &de) {
		return withCode(exitInvalidSpec, err)
	}
	fmt.Fprintf(c.App.ErrWriter, "%s\n\n", de.Diags.Errors().PrettyAll(de.Source))
	return withCode(exitInvalidSpec, fmt.Errorf("%s is invalid (%s)", what, countDiags(de.Diags)))
}

// exportBlueprint handles what export does with L++: a blueprint given as
// SPEC is drawn (Mermaid only). It reports whether it handled the call.
func exportBlueprint(c *cli.Context, format string) (bool, error) {
	path := c.Args().First()
	if c.NArg() != 1 || c.String("run") != "" {
		return false, nil
	}
	limit, err := readLimit(c)
	if err != nil {
		return true, err
	}
	src, err := fsx.ReadFile(path, limit)
	if errors.Is(err, fsx.ErrTooLarge) {
		_, err = readCapped(path, "spec", limit)
		return true, err
	}
	if err != nil || !lpp.IsLPP(src) && !lpp.ReadAsBlueprint(path, src) {
		return false, nil
	}
	if format != "mermaid" {
		return true, usageErrorf("an L++ blueprint is drawn as mermaid only (got --format %s)", format)
	}
	bp, err := loadBlueprint(c, path)
	if err != nil {
		return true, err
	}
	out := []byte(lpp.Mermaid(bp))
	if file := c.String("output"); file != "" {
		if err := fsx.WriteOutput(file, out, 0o644); err != nil {
			return true, fmt.Errorf("cannot write diagram: %w", err)
		}
		return true, nil
	}
	_, err = c.App.Writer.Write(out)
	return true, err
}
