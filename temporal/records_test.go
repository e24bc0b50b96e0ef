package temporal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/temporal"
)

// mapLoopSpec adds a 200-byte key to a map at each of 400 steps, changes
// one and removes another now and then; its list and its string change
// every way a step changes them.
var mapLoopSpec = `lpp: 1
name: maploop
context:
  n: {type: int, default: 0}
  m: {type: map, default: {seed: 1}}
  xs: {type: list, default: []}
  s: {type: string, default: ""}
  f: {type: float, default: 0.5}
initial: grow
limits: {max_transitions: 1000}
states:
  grow:
    do: noop
    set: {n: n + 1, s: 'n % 10 == 0 ? "" : s + "ab"', f: f * 1.5}
    next:
      - when: n >= 400
        to: done
      - when: n % 50 == 0
        set: {m: '{"reset": n}', xs: '[n]'}
        to: grow
      - when: n % 7 == 0
        set: {m: 'omit(m, "k" + string(n - 1))', xs: 'concat(xs, [{"i": n, "half": n / 2}])'}
        to: grow
      - set: {m: 'merge(m, {("k" + string(n)): "` + strings.Repeat("v", 195) + `", seed: n})', xs: 'concat(xs, [n])'}
        to: grow
  done:
    final: true
`

// keepAll keeps a deep copy of every record a local run makes, and counts
// the steps that changed keys of a map and that appended to a list.
type keepAll struct {
	recs           []string
	keyed, appends int
}

func (k *keepAll) OnStep(_ context.Context, rec *machine.Record) error {
	b, err := json.Marshal(rec.Vars)
	k.recs = append(k.recs, string(b))
	k.keyed += len(rec.MapKeys)
	k.appends += len(rec.Appended)
	return err
}

// A run whose map gains a key at every step keeps its records as the keys
// it changed (the run changes the map in place: the workflow borrows the
// values), stores them as step lines, and gives every step's values as a
// local run makes them, across executions (each walked from its
// checkpoint's context).
func TestAGrowingMapCostsWhatChanged(t *testing.T) {
	for _, tc := range []struct {
		name       string
		transition int
		execs      int
	}{
		{"one execution, records bounded at 1 MB", 0, 1},
		{"executions of 37 transitions", 37, 11},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &testHost{root: t.TempDir()}
			rel := writeSpec(t, h.root, "maploop.yaml", mapLoopSpec)
			local := localRecords(t, h, rel)
			require.Greater(t, local.keyed, 350, "steps that changed keys of m")
			require.Greater(t, local.appends, 350, "steps that appended to xs")
			execs, size := runAsLocally(t, h, rel, local, temporal.Segment{Transitions: tc.transition, Records: 1 << 20})
			assert.Equal(t, tc.execs, execs, "executions")
			assert.Less(t, size, 1<<20, "bytes of the records in the result (whole: ~8 MB)")
		})
	}
}

// runAsLocally runs spec rel on Temporal within seg and checks that its
// result gives every step's values as the local run did: the executions it
// took, and the bytes of the records in its result.
func runAsLocally(t *testing.T, h *testHost, rel string, local *keepAll, seg temporal.Segment) (execs, size int) {
	t.Helper()
	s := newScaleEnv(t, h, temporal.Options{Segment: seg})
	p, execs, err := s.run(startOf(t, h.root, rel, "run-"+strings.TrimSuffix(rel, ".yaml"), nil))
	require.NoError(t, err)
	for _, seg := range p.Segments {
		size += len(seg)
	}
	require.NoError(t, p.Flatten())
	require.Len(t, p.Records, len(local.recs))
	for i, rec := range temporal.WholeRecords(p.Records) {
		b, err := json.Marshal(rec.Vars)
		require.NoError(t, err)
		require.JSONEq(t, local.recs[i], string(b), "step %d", i+1)
	}
	return execs, size
}

// localRecords runs the spec locally, keeping every step's values.
func localRecords(t *testing.T, h *testHost, rel string) *keepAll {
	t.Helper()
	sp, diags, err := spec.Load(h.root + "/" + rel)
	require.NoError(t, err)
	require.False(t, diags.HasErrors(), "%v", diags)
	m, err := machine.Compile(sp, h.registry(h.deps("run-local")))
	require.NoError(t, err)
	var k keepAll
	r, err := m.NewRun(nil, machine.WithObserver(&k))
	require.NoError(t, err)
	require.NoError(t, r.Run(context.Background()))
	return &k
}

// mapAskSpec grows a map and a list at each of 20 steps and asks for an
// answer after the sixth.
var mapAskSpec = `lpp: 1
name: mapask
context:
  n: {type: int, default: 0}
  m: {type: map, default: {}}
  xs: {type: list, default: []}
  answer: {type: string, default: ""}
initial: count
limits: {max_transitions: 100}
states:
  count:
    do: noop
    set: {n: n + 1, m: 'merge(m, {("k" + string(n)): n})', xs: 'concat(xs, [n])'}
    next:
      - when: n == 6
        to: ask
      - when: n < 20
        to: count
      - to: done
  ask:
    do: test.ask
    next: count
  done:
    final: true
`

// A run whose map and list grow at every step pauses; the answer rebuilds
// it from its light records (a map's changed keys), in its first execution
// and in a later one (from the execution's checkpoint), and it ends with
// every key and item once.
func TestAnAnswerRebuildsARunFromLightRecords(t *testing.T) {
	for _, segment := range []int{0, 5} {
		t.Run(fmt.Sprintf("executions of %d transitions", segment), func(t *testing.T) {
			h := &testHost{root: t.TempDir(), extra: []machine.Action{askAction}}
			rel := writeSpec(t, h.root, "mapask.yaml", mapAskSpec)
			s := newScaleEnv(t, h, temporal.Options{Segment: temporal.Segment{Transitions: segment}})
			p, answered := s.runApproving(startOf(t, h.root, rel, "run-mapask", nil))
			assert.Equal(t, 1, answered, "the run paused once")
			m, xs := map[string]any{}, []any{}
			for n := range 20 { // a set reads the context before the step: n from 0
				m[fmt.Sprintf("k%d", n)], xs = n, append(xs, n)
			}
			want, err := json.Marshal(map[string]any{"n": 20, "m": m, "xs": xs, "answer": "approve"})
			require.NoError(t, err)
			got, err := json.Marshal(p.Vars)
			require.NoError(t, err)
			assert.JSONEq(t, string(want), string(got))
			require.NoError(t, p.Flatten())
			whole := temporal.WholeRecords(p.Records)
			require.Len(t, whole, p.Steps)
			counted := 0
			for _, rec := range whole { // each counting step adds a key: its map has them all
				if v, ok := rec.Vars["m"].(map[string]any); ok {
					counted++
					assert.Len(t, v, counted, "step %d's map", rec.Seq)
				}
			}
			assert.Equal(t, 20, counted, "counting steps")
		})
	}
}

// textLoopSpec adds a line of about 2 KB to a string at each of 400 steps:
// 800 KB at the end, 160 MB if every step's value counted whole.
var textLoopSpec = `lpp: 1
name: textloop
context:
  n: {type: int, default: 0}
  log: {type: string, default: ""}
initial: grow
limits: {max_transitions: 1000}
states:
  grow:
    do: noop
    set: {n: n + 1, log: 'log + "step " + string(n) + ": é ` + strings.Repeat("w", 1990) + `\n"'}
    next:
      - when: n >= 400
        to: done
      - to: grow
  done:
    final: true
`

// A run whose string gains a line at every step builds it in place
// (machine/concat.go): its records count the lines added (and the string
// whole when the run moves it to larger bytes: about twice its length in
// all), not the string at every step, so it stays in one execution under a
// records bound of 4 MB, its result holds each line once, and every step's
// value is a local run's.
func TestAGrowingStringCostsWhatItGained(t *testing.T) {
	h := &testHost{root: t.TempDir()}
	rel := writeSpec(t, h.root, "textloop.yaml", textLoopSpec)
	execs, size := runAsLocally(t, h, rel, localRecords(t, h, rel), temporal.Segment{Records: 4 << 20})
	assert.Equal(t, 1, execs, "executions")
	assert.Less(t, size, 1<<20, "bytes of the records in the result (whole: ~160 MB)")
}
