package main

import (
	"errors"
	"fmt"

	"github.com/lppctl/lppctl/internal/fsx"
	"github.com/urfave/cli/v2"
)

// maxBytesFlag is the --max-bytes flag of the commands that read specs and
// blueprints whole (import lpp, validate).
func maxBytesFlag() cli.Flag {
	return &cli.StringFlag{Name: "max-bytes", Usage: "read spec and blueprint files of at most `SIZE` (bytes, or with a KiB, MiB or GiB suffix; default 16MiB, or $" + fsx.MaxBytesEnv + ")"}
}

// readLimit returns the cap on the files a command reads whole: its
// --max-bytes, else $LPPCTL_MAX_BYTES, else fsx.DefaultMaxBytes.
func readLimit(c *cli.Context) (int64, error) {
	n, err := fsx.MaxBytes(c.String("max-bytes"))
	if err != nil {
		return 0, withCode(exitUsage, err)
	}
	return n, nil
}

// readCapped reads the file at path (what names it in errors: "spec",
// "blueprint") with fsx.ReadFile under limit. A file over the limit says
// its size, the limit and how to raise it.
func readCapped(path, what string, limit int64) ([]byte, error) {
	b, err := fsx.ReadFile(path, limit)
	if errors.Is(err, fsx.ErrTooLarge) {
		return nil, withCode(exitInvalidSpec, fmt.Errorf("cannot read %s: %w; raise the limit with --max-bytes SIZE or %s=SIZE", what, err, fsx.MaxBytesEnv))
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", what, err)
	}
	return b, nil
}
