package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/lppctl/lppctl/temporal"
)

// skillsAgentSteps is the length of a scripted Skills Agent run (--yes).
const skillsAgentSteps = 28

// BenchmarkSkillsAgentEngines measures scripted Skills Agent runs, 10 at a
// time, on the local engine (lppctl run processes) and on Temporal with 1
// and 2 lppctl workers (a dev server on loopback): runs a minute, and the
// wall time per transition. See docs/scale.md.
//
//	go test ./cmd/lppctl -run '^$' -bench SkillsAgentEngines -benchtime 40x
func BenchmarkSkillsAgentEngines(b *testing.B) {
	bin := buildLppctl(b)
	env := childEnv("")
	const parallel = 10
	report := func(b *testing.B, start time.Time) {
		el := time.Since(start)
		b.ReportMetric(float64(b.N)/el.Minutes(), "runs/min")
		b.ReportMetric(float64(el.Milliseconds())*parallel/float64(b.N*skillsAgentSteps), "ms/transition")
	}
	b.Run("local", func(b *testing.B) {
		root := benchProject(b)
		b.ResetTimer()
		start := time.Now()
		each(b.N, parallel, func(int) {
			cmd := exec.Command(bin, "run", "specs/skills_agent.yaml", "--yes", "-q", "--fsync", "never")
			cmd.Dir, cmd.Env = root, env
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Errorf("local run: %v\n%s", err, out)
			}
		})
		report(b, start)
	})
	for _, n := range []int{1, 2} {
		b.Run(fmt.Sprintf("temporal-%dworkers", n), func(b *testing.B) {
			root := benchProject(b)
			addr, tc := devServer(b, root)
			for range n {
				w := exec.Command(bin, "worker", "--temporal", addr, "--root", root)
				w.Env = env
				startProcess(b, w)
			}
			src, err := os.ReadFile(filepath.Join(root, "specs", "skills_agent.yaml"))
			if err != nil {
				b.Fatal(err)
			}
			agent, _ := json.Marshal(agentConfig{Skill: "skills/hello_skill", Yes: true, SpecDir: "specs"})
			ctx := context.Background()
			b.ResetTimer()
			start := time.Now()
			each(b.N, parallel, func(i int) {
				st := temporal.Start{RunID: fmt.Sprintf("bench-%d-%d", n, i), SpecPath: "specs/skills_agent.yaml", Spec: src, SpecHash: temporal.SpecHash(src), Agent: agent}
				if err := temporal.StartRun(ctx, tc, "", st); err != nil {
					b.Error(err)
					return
				}
				var p temporal.Progress
				if err := tc.GetWorkflow(ctx, st.RunID, "").Get(ctx, &p); err != nil || p.Steps != skillsAgentSteps {
					b.Errorf("run %s: %v, %d steps", st.RunID, err, p.Steps)
				}
			})
			report(b, start)
		})
	}
}

// each calls f(0..n-1), at most parallel at a time.
func each(n, parallel int, f func(int)) {
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			f(i)
		}()
	}
	wg.Wait()
}

// benchProject is newProject for a benchmark.
func benchProject(b *testing.B) string {
	b.Helper()
	return newProject(b, "hello_skill")
}
