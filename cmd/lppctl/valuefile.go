package main

import (
	"github.com/urfave/cli/v2"

	"github.com/lppctl/lppctl/internal/fsx"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// Values read from files: run --var-file NAME=FILE, resume --answer-file
// FILE and --payload-file FILE take a value as a file's content, for a
// value too long for a command line (Linux caps one argument at 128 KiB;
// lppctl ui passes long values so).

// readValueFile returns the content of the file a flag names (flag is how
// errors name it: "--answer-file FILE"), at most fsx.MaxBytes; a file that
// cannot be read is a usage error.
func readValueFile(flag, path string) (string, error) {
	limit, err := fsx.MaxBytes("")
	if err != nil {
		return "", withCode(exitUsage, err)
	}
	b, err := fsx.ReadFile(path, limit)
	if err != nil {
		return "", usageErrorf("%s: cannot read the value: %v", flag, err)
	}
	return string(b), nil
}

// varFiles adds the values of run's --var-file NAME=FILE flags to vars:
// each file's content, read as --var reads a value (a string is the content
// exactly, a final newline included).
func varFiles(c *cli.Context, spec *mspec.Spec, vars map[string]any) error {
	for _, pair := range c.StringSlice("var-file") {
		name, path, ok := cutEq(pair)
		if !ok || path == "" {
			return usageErrorf("--var-file %q: write NAME=FILE", pair)
		}
		flag := "--var-file " + pair
		val, err := readValueFile(flag, path)
		if err != nil {
			return err
		}
		if err := parseVar(spec, vars, flag, name, val); err != nil {
			return err
		}
	}
	return nil
}
