package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"

	"github.com/lppctl/lppctl/temporal"
)

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print lppctl's version",
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrorf("version takes no arguments: lppctl version")
			}
			return printVersion(c.App.Writer)
		},
	}
}

// printVersion prints lppctl's version line, with the hash of its actions
// (a Temporal worker's build ID is the version and this hash).
func printVersion(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "lppctl %s (actions %s, %s%s, %s/%s)\n", versionString(), actionsHash(), vcsRevision(), runtime.Version(), runtime.GOOS, runtime.GOARCH); err != nil {
		return fmt.Errorf("cannot write the version: %w", err)
	}
	return nil
}

// actionsHash is the hash of the actions this build offers (as a worker)
// and of its payload format (temporal.CatalogHash).
func actionsHash() string {
	return temporal.CatalogHash((&temporalHost{root: "."}).Catalog())
}

// versionString is the version set at link time (-ldflags "-X main.version=v1.2.3"),
// else the module version of a `go install`ed binary, else "dev".
func versionString() string {
	bi, _ := debug.ReadBuildInfo()
	return versionFrom(version, bi)
}

// versionFrom is versionString given the linked version and the build
// information (nil when there is none).
func versionFrom(linked string, bi *debug.BuildInfo) string {
	if linked != "dev" {
		return linked
	}
	if bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return linked
}

// vcsRevision returns "commit 1a2b3c4d5e6f[, modified], " for a binary built
// in a git checkout, else "".
func vcsRevision() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	if rev == "" {
		return ""
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	return "commit " + rev + modified + ", "
}
