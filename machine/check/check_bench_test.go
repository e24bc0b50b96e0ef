package check_test

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/check/report"
	"github.com/lppctl/lppctl/machine/internal/spectest"
)

// genCheckSpec generates a spec of states states and counters counters, each
// counter in [0, top]: in state s_i, the pick action chooses a direction; up
// increments counter i%counters and moves on, down decrements counter
// (i+1)%counters and jumps ahead, hold moves on; once every counter is at top
// the run ends. Every (state, counters) combination is reachable.
func genCheckSpec(states, counters, top int) string {
	return genSpec(states, counters, top, false)
}

// genSpec is genCheckSpec; with seeded, nothing fires in state s_{(states-1)/2}
// while c0 is at top and c1 at 0: a deadlock (bench/spin/gen.pml's SEED).
func genSpec(states, counters, top int, seeded bool) string {
	var b strings.Builder
	name := fmt.Sprintf("gen_%d_%d", states, counters)
	if seeded {
		name += "_deadlock"
	}
	fmt.Fprintf(&b, "lpp: 1\nname: %s\nlimits: {max_transitions: 1000000}\ncontext:\n", name)
	fmt.Fprintf(&b, "  dir: {type: string, enum: [up, down, hold], default: hold}\n")
	var sum []string
	for c := range counters {
		fmt.Fprintf(&b, "  c%d: {type: int, default: 0, range: [0, %d]}\n", c, top)
		sum = append(sum, fmt.Sprintf("c%d", c))
	}
	fmt.Fprintf(&b, "initial: s0\nstates:\n")
	for i := range states - 1 {
		up, down := i%counters, (i+1)%counters
		and, fallback := "", fmt.Sprintf("s%d", (i+1)%(states-1))
		if seeded && i == (states-1)/2 {
			block := fmt.Sprintf("!(c0 == %d && c1 == 0)", top)
			and, fallback = " && "+block, fmt.Sprintf("{to: s%d, when: '%s'}", (i+1)%(states-1), block)
		}
		fmt.Fprintf(&b, "  s%d:\n    do: pick\n    next:\n", i)
		fmt.Fprintf(&b, "      - {to: done, when: '%s == %d%s'}\n", strings.Join(sum, " + "), top*counters, and)
		fmt.Fprintf(&b, "      - {to: s%d, when: 'dir == \"up\" && c%d < %d%s', set: {c%d: c%d + 1}}\n", (i+1)%(states-1), up, top, and, up, up)
		fmt.Fprintf(&b, "      - {to: s%d, when: 'dir == \"down\" && c%d > 0%s', set: {c%d: c%d - 1}}\n", (i+3)%(states-1), down, and, down, down)
		fmt.Fprintf(&b, "      - %s\n", fallback)
	}
	fmt.Fprintf(&b, "  done: {final: true}\n")
	return b.String()
}

// BenchmarkCheckGenerated explores a generated spec of 50 states and 6
// counters in [0, 3] (49 × 4⁶ = 200,704 pairs, plus the final one) and reports the
// rate in distinct states per second of wall time (states/s, which other
// processes on a shared machine lower) and of the process's CPU time
// (states/cpu-s):
//
//	go test ./machine/check -run '^$' -bench BenchmarkCheckGenerated -benchtime 3x
func BenchmarkCheckGenerated(b *testing.B) {
	m := spectest.Compile(b, genCheckSpec(50, 6, 3), spectest.Registry())
	b.ReportAllocs()
	b.ResetTimer()
	var states int
	var secs float64
	cpu0 := cpuTime(b)
	for range b.N {
		r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
		if !r.Passed() || r.Unknowns() > 0 {
			b.Fatalf("the generated spec does not check clean:\n%s", report.Text(r, report.Options{}))
		}
		states += r.Stats.States
		secs += r.Stats.Duration.Seconds()
	}
	b.ReportMetric(float64(states)/secs, "states/s")
	b.ReportMetric(float64(states)/(cpuTime(b)-cpu0).Seconds(), "states/cpu-s")
	b.ReportMetric(float64(states)/float64(b.N), "states/op")
}

// cpuTime is the CPU time (user and system) the process has used so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("cannot read the CPU time: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCheckSpin checks bench/spin's models (the same transition systems
// as bench/spin/gen.pml), once per op; states/op is what SPIN stores less 2.
// gen-25k (genSpec(25, 5, 3): 24 × 4⁵ + 1 = 24,577 pairs, not in bench/spin)
// is the CI guard's row (.ci/perf check-gen-25k), small enough for callgrind.
//
//	go test ./machine/check -run '^$' -bench BenchmarkCheckSpin -benchtime 1x
func BenchmarkCheckSpin(b *testing.B) {
	for _, file := range []string{"gen-25k", "gen-1e5.yaml", "gen-1e6.yaml"} {
		b.Run(strings.TrimSuffix(file, ".yaml"), func(b *testing.B) {
			var m *machine.Machine
			if strings.HasSuffix(file, ".yaml") {
				m = compileSpinSpec(b, file)
			} else {
				m = spectest.Compile(b, genSpec(25, 5, 3, false), spectest.Registry())
			}
			b.ReportAllocs()
			b.ResetTimer()
			states := 0
			cpu0 := cpuTime(b)
			for range b.N {
				r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
				if !r.Passed() || r.Unknowns() > 0 {
					b.Fatalf("%s does not check clean:\n%s", file, report.Text(r, report.Options{}))
				}
				states += r.Stats.States
			}
			b.ReportMetric(float64(states)/float64(b.N), "states/op")
			b.ReportMetric((cpuTime(b)-cpu0).Seconds()/float64(states)*1e6, "cpu-us/state")
		})
	}
}
