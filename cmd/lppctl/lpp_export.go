package main

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/urfave/cli/v2"

	"github.com/lppctl/lppctl/internal/fsx"
	"github.com/lppctl/lppctl/machine/lpp"
	"github.com/lppctl/lppctl/machine/validate"
)

// formatLPP is export's format that writes a spec as an L++ blueprint.
const formatLPP = "lpp"

// exportLPP writes the spec (or a blueprint, through its translation) as
// an L++ blueprint (lpp.FromSpec). The spec must be valid.
func exportLPP(c *cli.Context) error {
	path := c.Args().First()
	if c.String("run") != "" {
		return usageErrorf("--format lpp writes a spec, not a run's path: leave out --run")
	}
	f, err := readSpecFileTo(path, "", false) // a blueprint's unit needs no mapping: the metadata keeps the action
	if errors.Is(err, fs.ErrNotExist) {
		return withCode(exitUsage, err)
	}
	if err != nil {
		return withCode(exitInvalidSpec, err)
	}
	reg, err := newRegistry(c)
	if err != nil {
		return err
	}
	diags := f.Diags
	if f.Spec != nil && !diags.HasErrors() {
		diags = append(diags, f.remap(validate.Validate(f.Spec, reg, validate.WithoutFiles()))...)
	}
	if diags.HasErrors() {
		fmt.Fprintf(c.App.ErrWriter, "%s\n\n", diags.Errors().PrettyAll(f.Src))
		return withCode(exitInvalidSpec, fmt.Errorf("cannot export %s: the spec is invalid (%s)", path, countDiags(diags)))
	}
	out, err := lpp.FromSpec(f.Spec)
	if err != nil {
		// The spec is valid: what L++ cannot say fails the command (exit 1).
		return fmt.Errorf("cannot export %s as a blueprint: %w", path, err)
	}
	if file := c.String("output"); file != "" {
		if err := fsx.WriteOutput(file, out, 0o644); err != nil {
			return fmt.Errorf("cannot write blueprint: %w", err)
		}
		return nil
	}
	_, err = c.App.Writer.Write(out)
	return err
}
