package main

import (
	"fmt"
	"runtime"

	"github.com/urfave/cli/v2"
)

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print lppctl's version",
		Action: func(c *cli.Context) error {
			fmt.Fprintf(c.App.Writer, "lppctl %s (%s, %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}
