package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/lppctl/lppctl/internal/fsx"
	"github.com/lppctl/lppctl/machine/lpp"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

func validateCommand() *cli.Command {
	return &cli.Command{
		Name:      "validate",
		Usage:     "check spec files and report every problem with its position",
		ArgsUsage: "SPEC|DIR...",
		Description: "Decodes and validates each spec against the registered actions and prints every\n" +
			"error and warning with the offending line and a caret. A directory stands for the\n" +
			".yaml and .yml specs and the .json L++ blueprints below it. Exits 3 when any spec\n" +
			"has errors, 2 when a spec file does not exist, 0 when there are only warnings.\n" +
			"Prompt templates, scripts and the gateway policy are looked for as run looks for them:\n" +
			"prompt templates in the spec's folder, then in the project root (--root, else the\n" +
			"current directory or the nearest folder above it holding config/tools_config.yaml).",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the diagnostics as JSON"},
			&cli.StringFlag{Name: "root", Usage: "look for prompt templates in the project root `DIR` after the spec's folder, as run --root does (default: the current directory or the nearest folder above it holding config/tools_config.yaml, as run finds it)"},
			maxBytesFlag(),
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
	limit, err := readLimit(c)
	if err != nil {
		return err
	}
	paths, err := expandSpecDirs(c.Args().Slice(), limit)
	if err != nil {
		return err
	}
	var opts []validate.ValidateOption
	root := projectRootFlag(c)
	if root != "" {
		opts = append(opts, validate.WithRoot(root))
	}
	out := c.App.Writer
	var werr error // the report (stdout) could not be written: a full disk, a closed pipe
	write := func(format string, a ...any) {
		if _, err := fmt.Fprintf(out, format, a...); err != nil && werr == nil {
			werr = err
		}
	}
	missing := false
	var errs []error
	var reports []jsonSpecReport
	for _, path := range paths {
		rep := jsonSpecReport{File: path, Diagnostics: []jsonDiagnostic{}}
		src, err := readCapped(path, "spec", limit)
		if err != nil {
			err = specRootHint(err, path, root)
			missing = missing || errors.Is(err, fs.ErrNotExist)
			errs = append(errs, err)
			rep.Error = err.Error()
			reports = append(reports, rep)
			continue
		}
		diags, err := checkSpecFile(path, src, reg, root, opts...)
		if err != nil {
			errs = append(errs, err)
			rep.Error = err.Error()
			reports = append(reports, rep)
			continue
		}
		rep.OK = !diags.HasErrors()
		for _, d := range diags {
			rep.Diagnostics = append(rep.Diagnostics, jsonDiagnostic{
				Severity: d.Severity.String(), File: d.File, Line: d.Pos.Line, Col: d.Pos.Col,
				Span: d.Span, Message: d.Msg, Hint: d.Hint,
			})
		}
		reports = append(reports, rep)
		if !rep.OK {
			err := fmt.Errorf("%s is invalid: %s", path, countDiags(diags))
			if hint := specProjectHint(path, root); hint != "" {
				err = fmt.Errorf("%w; %s", err, hint)
			}
			errs = append(errs, err)
		}
		if c.Bool("json") {
			continue
		}
		if len(diags) > 0 {
			write("%s\n\n", diags.PrettyAll(src))
		}
		if rep.OK {
			write("%s: ok\n", path)
		}
	}
	if c.Bool("json") {
		if err := printJSONLines(out, reports); err != nil {
			return err
		}
	}
	if len(errs) == 0 {
		if werr != nil {
			return fmt.Errorf("cannot write the report: %w", werr)
		}
		return nil
	}
	for _, err := range errs[:len(errs)-1] {
		fmt.Fprintf(c.App.ErrWriter, "lppctl: %v\n", err)
	}
	if missing { // a spec file that does not exist is a usage error, like in run
		return withCode(exitUsage, errs[len(errs)-1])
	}
	return withCode(exitInvalidSpec, errs[len(errs)-1])
}

func countDiags(ds mspec.Diagnostics) string {
	n := ds.Count(mspec.SevError)
	if n == 1 {
		return "1 error"
	}
	return fmt.Sprintf("%d errors", n)
}

// expandSpecDirs replaces each directory among paths with the .yaml and .yml
// specs and the .json L++ blueprints below it (hidden directories,
// node_modules and testdata skipped), in lexical order; a directory without
// any is a usage error. A file over limit is kept, for the read to report.
func expandSpecDirs(paths []string, limit int64) ([]string, error) {
	var out []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil || !fi.IsDir() {
			out = append(out, p) // the read reports it
			continue
		}
		n := len(out)
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if d.IsDir() {
				if path != p && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata") {
					return filepath.SkipDir
				}
				return nil
			}
			switch ext := filepath.Ext(name); {
			case (ext == ".yaml" || ext == ".yml") && looksLikeSpec(path, limit):
				out = append(out, path)
			case ext == ".json" && isBlueprintFile(path, limit): // an L++ blueprint (lpp_spec.go)
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("cannot list specs in %s: %w", p, err)
		}
		if len(out) == n {
			return nil, usageErrorf("%s holds no spec files (.yaml or .yml files with states:, or .json L++ blueprints)", p)
		}
	}
	return out, nil
}

// looksLikeSpec tells a spec from the other YAML files a directory of specs
// holds (a demo.yaml of scripted replies, a policy): a spec is a mapping
// with states: or lpp:. A file that does not parse as YAML is taken as a
// spec, so that validating the directory reports it, and so is one that
// cannot be read (over limit: validating it says so).
func looksLikeSpec(path string, limit int64) bool {
	data, err := fsx.ReadFile(path, limit)
	if err != nil {
		return true
	}
	return mspec.ListedAsSpec(data)
}

// isBlueprintFile tells an L++ blueprint from the other JSON files a
// directory of specs holds (by its $schema: lpp.IsBlueprint); one over
// limit is kept, for validating it to say so.
func isBlueprintFile(path string, limit int64) bool {
	data, err := fsx.ReadFile(path, limit)
	if errors.Is(err, fsx.ErrTooLarge) {
		return true
	}
	return err == nil && lpp.IsBlueprint(data)
}
