package main

import (
	"errors"
	"io/fs"
	"os"

	"github.com/urfave/cli/v2"
)

// checkRootFlag makes a command with a --root flag refuse a root that is
// not an existing folder (a usage error), before it does anything: a
// mistyped root must not become a new, empty project (a run would create
// DIR/.lppctl/runs there, validate would find nothing amiss in it).
func checkRootFlag(cmd *cli.Command) {
	if !hasFlag(cmd.Flags, "root") || cmd.Action == nil {
		return
	}
	action := cmd.Action
	cmd.Action = func(c *cli.Context) error {
		if err := checkRoot(c.String("root")); err != nil {
			return err
		}
		return action(c)
	}
}

// checkRoot checks a --root value ("" is the current folder).
func checkRoot(root string) error {
	if root == "" {
		return nil
	}
	fi, err := os.Stat(root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return usageErrorf("--root %s: no such folder; give the project's folder (the one holding specs/ and config/), or leave --root out for the current one", root)
	case err != nil:
		return usageErrorf("--root %s: %v", root, err)
	case !fi.IsDir():
		return usageErrorf("--root %s: not a folder; give the project's folder (the one holding specs/ and config/)", root)
	}
	return nil
}

func hasFlag(flags []cli.Flag, name string) bool {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}
