package temporal_test

import (
	"context"
	"encoding/json"
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
			s := newScaleEnv(t, h, temporal.Options{Segment: temporal.Segment{Transitions: tc.transition, Records: 1 << 20}})
			p, execs, err := s.run(startOf(t, h.root, rel, "run-map", nil))
			require.NoError(t, err)
			assert.Equal(t, tc.execs, execs, "executions")
			size := 0
			for _, seg := range p.Segments {
				size += len(seg)
			}
			assert.Less(t, size, 1<<20, "bytes of the records in the result (whole: ~8 MB)")
			require.NoError(t, p.Flatten())
			require.Len(t, p.Records, len(local.recs))
			for i, rec := range temporal.WholeRecords(p.Records) {
				b, err := json.Marshal(rec.Vars)
				require.NoError(t, err)
				require.JSONEq(t, local.recs[i], string(b), "step %d", i+1)
			}
		})
	}
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
