// Command checkonly model-checks one of bench/spin's specs in a process
// that links only the checker (machine, its spec model, validation, the
// checker, expr and YAML): 8 MB, against lppctl's 47 MB, whose other
// packages (Temporal, gRPC, MinIO, the MCP SDK, OpenTelemetry, ...) make
// most of the memory a process of it has before it checks anything.
// bench/spin/run.sh runs it beside lppctl check, to tell the check's costs
// from the binary's.
//
//	go build -o checkonly ./bench/spin/checkonly
//	checkonly bench/spin/gen-1e5.yaml   # the report lppctl check prints
//	checkonly                           # checks nothing: the floor
//
// The specs' action (llm.generate mapping its answer's dir) is read as
// pick, an action that writes dir and takes no parameter, as the tests of
// machine/check read these specs: the check needs only what the action
// writes and its domain (dir's enum).
package main

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/check/report"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

func main() {
	if len(os.Args) == 1 {
		return
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "checkonly:", err)
		os.Exit(2)
	}
}

func run(path string) error {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(200) // as lppctl check does
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("cannot read the spec: %w", err)
	}
	src = []byte(strings.ReplaceAll(string(src), "    do: llm.generate\n    with: {prompt: pick.md, map: {dir: /dir}}\n", "    do: pick\n"))
	reg := machine.NewBuiltinRegistry()
	noop := func(context.Context, *machine.Call) error { return nil }
	if err := reg.Register(machine.Action{Name: "pick", Run: noop, Writes: []machine.VarSpec{{Name: "dir", Type: mspec.TypeString}}}); err != nil {
		return fmt.Errorf("cannot register the action: %w", err)
	}
	spec, diags := validate.Check(path, src, reg, validate.WithoutFiles())
	if diags.HasErrors() {
		return fmt.Errorf("%s is invalid:\n%s", path, diags.PrettyAll(src))
	}
	m, err := machine.Compile(spec, reg)
	if err != nil {
		return fmt.Errorf("cannot compile %s: %w", path, err)
	}
	debug.FreeOSMemory() // as lppctl check does before the search
	r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
	fmt.Print(report.Text(r, report.Options{}))
	if !r.Passed() {
		os.Exit(1)
	}
	return nil
}
