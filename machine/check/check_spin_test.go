package check_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/check/report"
	"github.com/lppctl/lppctl/machine/internal/spectest"
)

// update makes spectest.Golden rewrite the files it compares (the corpus
// goldens and the specs of bench/spin).
var _ = flag.Bool("update", false, "rewrite golden files and bench/spin's specs")

// spinModels are the specs of bench/spin (the same transition systems as
// bench/spin/gen.pml): S non-final states and K counters in [0, 3], so
// S × 4^K + 1 pairs.
var spinModels = []struct {
	file     string
	states   int // S + 1 (done)
	counters int
	seeded   bool
}{
	{"gen-1e5.yaml", 25, 6, false},
	{"gen-1e5-deadlock.yaml", 25, 6, true},
	{"gen-1e6.yaml", 62, 7, false},
	{"gen-1e6-deadlock.yaml", 62, 7, true},
}

// The action that writes dir: pick in the tests' registry; in bench/spin's
// specs, llm.generate mapping its answer's dir, which lppctl check knows
// (the check only needs what an action writes and its domain: dir's enum).
const (
	pickAction = "    do: pick\n"
	cliAction  = "    do: llm.generate\n    with: {prompt: pick.md, map: {dir: /dir}}\n"
)

// TestBenchSpinSpecsAreGenerated: the specs of bench/spin are what genSpec
// writes (go test ./machine/check -run TestBenchSpinSpecsAreGenerated -update
// rewrites them).
func TestBenchSpinSpecsAreGenerated(t *testing.T) {
	for _, tt := range spinModels {
		t.Run(tt.file, func(t *testing.T) {
			src := strings.ReplaceAll(genSpec(tt.states, tt.counters, 3, tt.seeded), pickAction, cliAction)
			spectest.Golden(t, spinSpecPath(tt.file), []byte(src))
		})
	}
}

func spinSpecPath(file string) string { return filepath.Join("..", "..", "bench", "spin", file) }

// compileSpinSpec compiles a spec of bench/spin with the tests' registry.
func compileSpinSpec(t testing.TB, file string) *machine.Machine {
	t.Helper()
	src, err := os.ReadFile(spinSpecPath(file))
	require.NoError(t, err)
	return spectest.Compile(t, strings.ReplaceAll(string(src), cliAction, pickAction), spectest.Registry())
}

// TestSpinModelsHaveTheirStateCountAndDeadlock checks the 1e5 models: every
// (state, counters) pair is reached, S × 4^K + 1 of them (bench/spin/README.md
// says SPIN's count), and the seeded one deadlocks in s{S/2} with c0 = 3 and
// c1 = 0 at the end of a shortest path of the length SPIN's BFS finds.
func TestSpinModelsHaveTheirStateCountAndDeadlock(t *testing.T) {
	for _, tt := range spinModels[:2] {
		t.Run(tt.file, func(t *testing.T) {
			m := compileSpinSpec(t, tt.file)
			r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
			require.True(t, r.Complete, r.Stopped)
			d := r.Property(check.PropDeadlock)
			if !tt.seeded {
				assert.Equal(t, (tt.states-1)*pow(4, tt.counters)+1, r.Stats.States)
				assert.True(t, r.Passed(), report.Text(r, report.Options{NoTimes: true}))
				return
			}
			require.Equal(t, check.Fail, d.Verdict)
			steps := d.Trace.Steps
			last := steps[len(steps)-1]
			assert.Equal(t, fmt.Sprintf("s%d", (tt.states-1)/2), last.From)
			assert.Equal(t, "", last.To, "the last step is stuck")
			assert.Contains(t, d.Message, `c0=3, c1=0`)
			assert.Equal(t, spinDeadlockDepth[tt.file], len(steps)-1, "transitions before the deadlock")
		})
	}
}

// spinDeadlockDepth is the depth of the deadlock SPIN's breadth-first search
// (bench/spin/run.sh, pan -DBFS) reports: the transitions of a shortest path.
var spinDeadlockDepth = map[string]int{"gen-1e5-deadlock.yaml": 22}

func pow(b, e int) int {
	n := 1
	for range e {
		n *= b
	}
	return n
}
