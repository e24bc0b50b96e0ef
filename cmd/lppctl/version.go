package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print lppctl's version",
		Action: func(c *cli.Context) error {
			fmt.Fprintf(c.App.Writer, "lppctl %s (%s%s, %s/%s)\n", versionString(), vcsRevision(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}

// versionString is the version set at link time (-ldflags "-X main.version=v1.2.3"),
// else the module version of a `go install`ed binary, else "dev".
func versionString() string {
	if version != "dev" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return version
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
