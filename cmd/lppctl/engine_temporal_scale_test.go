package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/temporal"
)

// noopLoopSpec makes N transitions of noop.
const noopLoopSpec = `lpp: 1
name: noop_loop
context:
  n: {type: int, default: 0}
limits: {max_transitions: 100000}
initial: count
states:
  count:
    do: noop
    set: {n: n + 1}
    next:
      - when: n < N
        to: count
      - to: done
  done:
    final: true
`

// toolLoopSpec reads a file with tools.call (an activity) N times.
const toolLoopSpec = `lpp: 1
name: tool_loop
context:
  n: {type: int, default: 0}
  result: {type: string, default: ""}
  status: {type: string, default: ""}
limits: {max_transitions: 100000}
initial: read
states:
  read:
    do: tools.call
    with: {tool: safe_cli_executor, command: read_file, args: {path: '"a.txt"'}, result: result, status: status}
    set: {n: n + 1}
    next:
      - when: n < N
        to: read
      - to: done
  done:
    final: true
`

// bigLoopSpec carries a large context (big, given; text, grown by chunk
// each step) through N steps, each an activity (tools.call) and a set.
const bigLoopSpec = `lpp: 1
name: big_loop
context:
  n: {type: int, default: 0}
  big: {type: string, default: ""}
  chunk: {type: string, default: ""}
  text: {type: string, default: ""}
  result: {type: string, default: ""}
  status: {type: string, default: ""}
limits: {max_transitions: 100000}
initial: read
states:
  read:
    do: tools.call
    with: {tool: safe_cli_executor, command: read_file, args: {path: '"a.txt"'}, result: result, status: status}
    set: {n: n + 1, text: text + chunk}
    next:
      - when: n < N
        to: read
      - to: done
  done:
    final: true
`

// loopSpec is spec with its bound N.
func loopSpec(spec string, n int) string {
	return strings.Replace(spec, "n < N", fmt.Sprintf("n < %d", n), 1)
}

// localFinal runs the spec at root/rel with the local engine in this
// process (the lppctl actions, no journal) and returns its final context.
func localFinal(t *testing.T, root, rel string, vars map[string]any) map[string]any {
	t.Helper()
	spec, diags, err := mspec.Load(filepath.Join(root, rel))
	require.NoError(t, err)
	require.False(t, diags.HasErrors(), "%v", diags)
	reg, err := buildRegistry(agentConfig{Root: root}, nil)
	require.NoError(t, err)
	m, err := machine.Compile(spec, reg)
	require.NoError(t, err)
	r, err := m.NewRun(vars)
	require.NoError(t, err)
	require.NoError(t, r.Run(context.Background()))
	return r.Vars()
}

// historyOf sums a run's history over its executions (continued as new
// included): events and bytes.
func historyOf(t *testing.T, tc client.Client, id string) (events, bytes, execs int) {
	t.Helper()
	ctx := context.Background()
	resp, err := tc.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: fmt.Sprintf("WorkflowId = '%s'", id)})
	require.NoError(t, err)
	for _, e := range resp.GetExecutions() {
		d, err := tc.DescribeWorkflowExecution(ctx, id, e.GetExecution().GetRunId())
		require.NoError(t, err)
		events += int(d.GetWorkflowExecutionInfo().GetHistoryLength())
		bytes += int(d.GetWorkflowExecutionInfo().GetHistorySizeBytes())
		execs++
	}
	return events, bytes, execs
}

// runTemporal starts a run on the Temporal workers and waits for its end.
func runTemporal(t *testing.T, tc client.Client, root, rel, id string, vars map[string]any, wait time.Duration) *temporal.Progress {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, rel))
	require.NoError(t, err)
	st := temporal.Start{RunID: id, SpecPath: rel, Spec: src, SpecHash: temporal.SpecHash(src)}
	if vars != nil {
		st.Vars, err = json.Marshal(vars)
		require.NoError(t, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	require.NoError(t, temporal.StartRun(ctx, tc, "", st))
	require.NoError(t, tc.GetWorkflow(ctx, id, "").Get(ctx, nil), "run %s", id)
	p, err := temporal.Result(ctx, tc, id)
	require.NoError(t, err)
	return p
}

// Runs of any size on a real dev server and one lppctl worker: a
// 50,000-transition noop loop and a 1,500-step tools.call loop (5,000 with
// LPPCTL_TEMPORAL_FULL=1) complete with the local engine's final context
// (they continue as new, carrying their records by reference); runs whose
// context holds 1 MB and 10 MB strings, or grows 128 KB a step, complete
// too, and the history each transition writes stays flat as the context
// grows (printed). Without LPPCTL_FULL_TESTS=1 the loops are 2,000 noop
// transitions and 250 tools.call steps on a worker whose executions hold
// 200 transitions (lppctl worker --segment), so both runs still continue as
// new (each continuation costs about a second), and the 10 MB string is
// left out.
func TestTemporalRunsOfAnySize(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal dev server and long runs")
	}
	t.Parallel()
	// The tools.call loop takes about 0.1 s a step on a 2-core machine:
	// CI runs 1,500 steps, and LPPCTL_TEMPORAL_FULL=1 the 5,000
	// (docs/scale.md).
	noopSteps := sized(t, "noop transitions", 2_000, 50_000)
	toolSteps := sized(t, "tools.call steps", 250, 1_500)
	if os.Getenv("LPPCTL_TEMPORAL_FULL") == "1" {
		toolSteps = 5_000
	}
	// The segment is the worker's default (2,000) at full size; reduced,
	// a smaller one keeps both loops continuing as new.
	segment := sized(t, "transitions per execution", 200, 2_000)
	root := newProject(t, "hello_skill")
	require.NoError(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello\n"), 0o644))
	for name, src := range map[string]string{
		"noop.yaml": loopSpec(noopLoopSpec, noopSteps),
		"tool.yaml": loopSpec(toolLoopSpec, toolSteps),
		"big.yaml":  loopSpec(bigLoopSpec, 20),
	} {
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(src), 0o644))
	}
	addr, tc := devServer(t, root)
	bin := buildLppctl(t)
	startWorker(t, bin, addr, root, "--segment", fmt.Sprint(segment))

	t.Run(fmt.Sprintf("%d noop transitions", noopSteps), func(t *testing.T) {
		begin := time.Now()
		p := runTemporal(t, tc, root, "noop.yaml", "noop-50k", nil, 10*time.Minute)
		events, bytes, execs := historyOf(t, tc, "noop-50k")
		t.Logf("%d noop transitions: %s, %d executions, %d events, %d history bytes", noopSteps, time.Since(begin).Round(time.Millisecond), execs, events, bytes)
		assert.Equal(t, machine.StatusCompleted, p.Status)
		assert.Equal(t, canon(localFinal(t, root, "noop.yaml", nil)), canon(p.Vars))
		assert.Len(t, p.Records, p.Steps, "the result's records, by reference")
		assert.Greater(t, execs, 1, "the run continued as new")
		// runs lists it once, from when it began; trace gives every step.
		out, _, code := lppctlOut(t, bin, root, "runs", "--temporal", addr)
		assert.Equal(t, 0, code)
		assert.Equal(t, 1, strings.Count(out, "noop-50k "), out)
		assert.Regexp(t, `noop-50k +completed +\S+ +[0-9.]+s`, out)
		out, _, code = lppctlOut(t, bin, root, "runs", "trace", "noop-50k", "--temporal", addr)
		assert.Equal(t, 0, code)
		assert.Equal(t, p.Steps, strings.Count(out, "\n["), "runs trace: one line a step")
	})
	t.Run(fmt.Sprintf("%d tools.call steps", toolSteps), func(t *testing.T) {
		begin := time.Now()
		p := runTemporal(t, tc, root, "tool.yaml", "tool-5k", nil, 15*time.Minute)
		events, bytes, execs := historyOf(t, tc, "tool-5k")
		t.Logf("%d tools.call steps: %s, %d executions, %d events, %d history bytes (%d a transition)", toolSteps, time.Since(begin).Round(time.Millisecond), execs, events, bytes, bytes/p.Steps)
		assert.Equal(t, machine.StatusCompleted, p.Status)
		assert.Equal(t, canon(localFinal(t, root, "tool.yaml", nil)), canon(p.Vars))
		assert.Greater(t, execs, 1, "the run continued as new")
	})
	t.Run("a map and a list that grow at every step, followed", func(t *testing.T) {
		// Each step's values as a local run makes them, whether the client
		// follows the run (its pages: a map's changed keys, walked) or
		// traces it once it has ended (its executions' step lines).
		require.NoError(t, os.WriteFile(filepath.Join(root, "growing.yaml"), []byte(growingMapSpec), 0o644))
		// stepVars folds run --deltas's step lines (a grown list as the items
		// appended, a map as the keys changed) into each step's changed
		// variables whole, as run --json and runs trace --json give them.
		stepVars := func(out string) []string {
			var vars []string
			ctx := map[string]any{}
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var e struct {
					Type   string           `json:"type"`
					Vars   map[string]any   `json:"vars"`
					Append map[string][]any `json:"vars_append"`
					Patch  map[string]struct {
						Set map[string]any `json:"set"`
						Del []string       `json:"del"`
					} `json:"vars_patch"`
				}
				require.NoError(t, json.Unmarshal([]byte(line), &e), line)
				if e.Type != "step" {
					continue
				}
				changed := map[string]any{}
				for k, v := range e.Vars {
					ctx[k], changed[k] = v, v
				}
				for k, items := range e.Append {
					xs, _ := ctx[k].([]any)
					ctx[k] = append(slices.Clip(xs), items...)
					changed[k] = ctx[k]
				}
				for k, p := range e.Patch {
					m := maps.Clone(ctx[k].(map[string]any))
					maps.Copy(m, p.Set)
					for _, key := range p.Del {
						delete(m, key)
					}
					ctx[k], changed[k] = m, m
				}
				b, err := json.Marshal(changed)
				require.NoError(t, err)
				if len(changed) == 0 {
					b = []byte("null") // a step that set nothing
				}
				vars = append(vars, string(b))
			}
			return vars
		}
		steps := fmt.Sprintf("steps=%d", 2*segment+51) // three executions
		local, _, code := lppctlOut(t, bin, root, "run", "--json", "--var", steps, "growing.yaml")
		require.Equal(t, 0, code)
		want := stepVars(local)
		require.Greater(t, len(want), 2*segment+51)
		followed, stderr, code := lppctlOut(t, bin, root, "run", "--engine", "temporal", "--temporal", addr, "--deltas", "--var", steps, "growing.yaml")
		require.Equal(t, 0, code, stderr)
		got := stepVars(followed)
		require.Len(t, got, len(want))
		for i := range want {
			require.JSONEq(t, want[i], got[i], "step %d, followed", i+1)
		}
		id := ""
		for _, line := range strings.Split(followed, "\n") {
			var e struct {
				Type  string `json:"type"`
				RunID string `json:"run_id"`
			}
			if json.Unmarshal([]byte(line), &e) == nil && e.RunID != "" {
				id = e.RunID
				break
			}
		}
		require.NotEmpty(t, id, "the run's ID in the client's output:\n%s", followed)
		// runs show gives each value in short, as a local run's (the map
		// holds tens of keys).
		shown, stderr, code := lppctlOut(t, bin, root, "runs", "show", id, "--temporal", addr)
		require.Equal(t, 0, code, stderr)
		require.Contains(t, shown, "\n  m = {")
		for _, line := range strings.Split(shown, "\n") {
			assert.LessOrEqual(t, utf8.RuneCountInString(line), 110, "a line of runs show: %s", line)
		}
		out, stderr, code := lppctlOut(t, bin, root, "runs", "trace", id, "--temporal", addr, "--json")
		require.Equal(t, 0, code, stderr)
		var tr struct {
			Records []struct {
				Vars json.RawMessage `json:"vars"`
			} `json:"records"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &tr))
		require.Len(t, tr.Records, len(want))
		for i := range want {
			require.JSONEq(t, want[i], cmp.Or(string(tr.Records[i].Vars), "null"), "step %d, traced", i+1)
		}
	})
	t.Run("history per transition as the context grows", func(t *testing.T) {
		var base float64
		cases := []struct {
			name string
			vars map[string]any
		}{
			{"small context", nil},
			{"1 MB string", map[string]any{"big": strings.Repeat("a", 1<<20)}},
			{"growing 128 KB a step", map[string]any{"chunk": strings.Repeat("c", 128<<10)}},
		}
		if fullTests() {
			cases = append(cases, struct {
				name string
				vars map[string]any
			}{"10 MB string", map[string]any{"big": strings.Repeat("b", 10<<20)}})
		}
		for _, tc2 := range cases {
			id := "big-" + strings.ReplaceAll(tc2.name, " ", "-")
			p := runTemporal(t, tc, root, "big.yaml", id, tc2.vars, 5*time.Minute)
			_, bytes, _ := historyOf(t, tc, id)
			per := float64(bytes) / float64(p.Steps)
			if base == 0 {
				base = per
			}
			t.Logf("%-22s %6.0f history bytes a transition (%d transitions)", tc2.name+":", per, p.Steps)
			assert.Equal(t, machine.StatusCompleted, p.Status, tc2.name)
			assert.Equal(t, canon(localFinal(t, root, "big.yaml", tc2.vars)), canon(p.Vars), tc2.name)
			assert.Less(t, per, 1.5*base+512, "%s: the history a transition writes grows with the context", tc2.name)
		}
	})
}

// growingMapSpec adds a key to a map and an item to a list at each of its
// steps, removes a key now and then and starts both again every 40
// steps.
var growingMapSpec = `lpp: 1
name: growing
context:
  n: {type: int, default: 0}
  steps: {type: int, default: 100}
  m: {type: map, default: {seed: 0}}
  xs: {type: list, default: []}
initial: grow
limits: {max_transitions: 5000}
states:
  grow:
    do: noop
    set: {n: n + 1}
    next:
      - when: n >= steps
        to: done
      - when: n % 40 == 0
        set: {m: '{"reset": n}', xs: '[n]'}
        to: grow
      - when: n % 7 == 0
        set: {m: 'omit(m, "k" + string(n - 1))', xs: 'concat(xs, [{"i": n}])'}
        to: grow
      - set: {m: 'merge(m, {("k" + string(n)): "value " + string(n), seed: n})', xs: 'concat(xs, [n])'}
        to: grow
  done:
    final: true
`
