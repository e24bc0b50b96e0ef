package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscript run lppctl in-process as the `lppctl` command,
// and removes the lppctl binary the tests that run it as a child built
// (once: buildLppctl) when they are done.
func TestMain(m *testing.M) {
	testscript.Main(cleanupM{m}, map[string]func(){
		"lppctl": func() { os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// cleanupM runs the tests, then removes what they built once for all.
type cleanupM struct{ m *testing.M }

func (c cleanupM) Run() int {
	defer removeBuiltLppctl()
	return c.m.Run()
}

// TestScripts runs the CLI scenarios under testdata/script (*.txtar).
// Regenerate expected output in place with: go test ./cmd/lppctl -run TestScripts -update
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       *updateScripts,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			root, err := os.Getwd()
			if err != nil {
				return err
			}
			env.Setenv("REPO", root+"/../..") // specs, skills, config of this checkout
			env.Setenv("NO_COLOR", "1")
			return nil
		},
	})
}
