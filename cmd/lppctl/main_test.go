package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/lppctl/lppctl/internal/testenv"
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
	testenv.Scrub() // here, not in TestMain: lppctl run as a child process keeps the environment its test gave it
	waitingParallel()
	return c.m.Run()
}

// minParallel is how many parallel tests run at once when -parallel is not
// given (at least GOMAXPROCS, as go test's default): the parallel tests of
// this package mostly wait for child processes and Temporal dev servers, so
// more of them than there are cores keep the cores busy.
const minParallel = 4

// waitingParallel raises -test.parallel to minParallel unless it was given.
func waitingParallel() {
	if !flag.Parsed() {
		flag.Parse()
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if f := flag.Lookup("test.parallel"); f != nil && !given && runtime.GOMAXPROCS(0) < minParallel {
		_ = f.Value.Set(strconv.Itoa(minParallel))
	}
}

// TestScripts runs the CLI scenarios under testdata/script (*.txtar).
// Regenerate expected output in place with: go test ./cmd/lppctl -run TestScripts -update
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       *updateScripts,
		RequireExplicitExec: true,
		Condition:           scriptCondition,
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

// scriptCondition is the scripts' own conditions: [python] holds where
// python3 is on PATH; without it, with LPPCTL_REQUIRE_PYTHON set (CI), the
// script fails instead of skipping what needs it.
func scriptCondition(cond string) (bool, error) {
	switch cond {
	case "python":
		if _, err := exec.LookPath("python3"); err == nil {
			return true, nil
		}
		if os.Getenv(testenv.RequirePythonEnv) != "" {
			return false, fmt.Errorf("python3 is not on PATH (%s is set): install Python 3", testenv.RequirePythonEnv)
		}
		return false, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}
