package runstore

import (
	"context"
	"fmt"
	"maps"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// mapKeysSpec changes keys of m at every step: adds one, replaces one,
// removes one every third step; m2 takes a copy of m (a whole set) now and
// then, and is changed by keys after.
const mapKeysSpec = `
lpp: 1
name: keys
context:
  n:  {type: int, default: 0}
  m:  {type: map, default: {a: 0}}
  m2: {type: map, default: {}}
initial: a
states:
  a:
    set: {n: n + 1, m: 'merge(m, {("k" + string(n)): {n: n, s: "x" + string(n)}})'}
    next:
      - {to: b, when: 'n % 3 == 0', set: {m: 'omit(m, "k" + string(n - 2))'}}
      - {to: a, when: 'n % 7 == 0', set: {m2: m}}
      - {to: a, set: {m: 'merge(m, {a: n})', m2: 'merge(m2, {last: n})'}}
  b:
    set: {m2: 'omit(m2, "last")'}
    next: [{to: a}]
`

func compileKeysSpec(t testing.TB, src string) *machine.Machine {
	t.Helper()
	spec, diags := mspec.Parse("keys.yaml", []byte(src))
	require.False(t, diags.HasErrors(), "%v", diags)
	m, err := machine.Compile(spec, machine.NewBuiltinRegistry())
	require.NoError(t, err)
	return m
}

// TestAJournaledKeyChangeLooksAtTheKeysChanged counts the keys the journal's
// encoder looks at per step of a run that adds a key to a map of 10 and of
// 10,000 keys: one, whatever the size (it compared every key before).
func TestAJournaledKeyChangeLooksAtTheKeysChanged(t *testing.T) {
	const spec = `
lpp: 1
name: grow
context:
  n: {type: int, default: 0}
  m: {type: map, default: {}}
initial: a
states:
  a:
    set: {n: n + 1, m: 'merge(m, {("k" + string(n)): n})'}
    next: [{to: a}]
`
	m := compileKeysSpec(t, spec)
	for _, size := range []int{10, 10000} {
		start := make(map[string]any, size)
		for i := range size {
			start[fmt.Sprintf("s%d", i)] = i
		}
		_, j := newTestRun(t, FsyncNever)
		r, err := m.NewRun(map[string]any{"m": start}, machine.WithObserver(j), machine.WithMaxTransitions(1<<20))
		require.NoError(t, err)
		_, err = r.Step(context.Background()) // the map written in full
		require.NoError(t, err)
		before := j.codec.visited
		const steps = 50
		for range steps {
			_, err := r.Step(context.Background())
			require.NoError(t, err)
		}
		assert.Equal(t, steps, j.codec.visited-before, "keys looked at in %d steps from a map of %d keys", steps, size)
		require.NoError(t, j.Close())
	}
}

// TestAResumedRunHasTheMapItsJournalPatched runs mapKeysSpec journaled,
// resumes it as lppctl resume does (Recover, then Replay) and compares the
// variables; the journal holds patches of the keys changed.
func TestAResumedRunHasTheMapItsJournalPatched(t *testing.T) {
	m := compileKeysSpec(t, mapKeysSpec)
	store := New(t.TempDir())
	run, err := store.Create(Meta{Spec: "keys.yaml"}, nil)
	require.NoError(t, err)
	j, err := run.OpenJournal(FsyncNever)
	require.NoError(t, err)
	r, err := m.NewRun(nil, machine.WithObserver(j), machine.WithMaxTransitions(1<<20))
	require.NoError(t, err)
	var snapshots []map[string]any // m after each step
	for range 60 {
		_, err := r.Step(context.Background())
		require.NoError(t, err)
		snapshots = append(snapshots, maps.Clone(r.Vars()))
	}
	require.NoError(t, j.Close())
	run.Meta.Steps, run.Meta.Status, run.Meta.PID = 60, machine.StatusInterrupted, 0
	require.NoError(t, run.SaveMeta())
	run.Unlock()

	l, err := run.ReadJournal()
	require.NoError(t, err)
	patches := 0
	var walk Walker
	walked := make([]*machine.Record, 0, len(l.Records))
	for _, rec := range l.Records {
		if len(rec.MapKeys["m"]) > 0 {
			patches++
		}
		rec = walk.Next(rec) // the maps whole, valid until the next step
		c := *rec
		c.Vars = map[string]any{}
		for k, v := range rec.Vars {
			if m, ok := v.(map[string]any); ok {
				v = maps.Clone(m)
			}
			c.Vars[k] = v
		}
		walked = append(walked, &c)
	}
	for i := range walked {
		assert.Equal(t, snapshots[i]["m"], recValue(walked[:i+1], "m"), "step %d", i+1)
		assert.Equal(t, snapshots[i]["m2"], recValue(walked[:i+1], "m2"), "step %d", i+1)
	}
	assert.Greater(t, patches, 30, "steps written as patches of m")

	// Replaying the walked records (as a spec.run child's resume does)
	// rebuilds the run as well.
	r3, err := m.NewRun(nil, machine.WithMaxTransitions(1<<20))
	require.NoError(t, err)
	var walk3 Walker
	for _, rec := range l.Records {
		require.NoError(t, r3.Replay(walk3.Next(rec)))
	}
	assert.Equal(t, r.Vars(), r3.Vars())

	rc, err := store.Recover(run.Meta.ID)
	require.NoError(t, err)
	defer rc.Release()
	r2, err := m.NewRun(nil, machine.WithMaxTransitions(1<<20))
	require.NoError(t, err)
	require.NoError(t, rc.Replay(r2))
	assert.Equal(t, r.Vars(), r2.Vars())

	// The resumed run goes on as a run that was not stopped.
	r0, err := m.NewRun(nil, machine.WithMaxTransitions(1<<20))
	require.NoError(t, err)
	for range 60 {
		_, err := r0.Step(context.Background())
		require.NoError(t, err)
	}
	for range 10 {
		_, err := r0.Step(context.Background())
		require.NoError(t, err)
		_, err = r2.Step(context.Background())
		require.NoError(t, err)
	}
	assert.Equal(t, r0.Vars(), r2.Vars())
}

// recValue returns the last value recs set name to.
func recValue(recs []*machine.Record, name string) any {
	for i := len(recs) - 1; i >= 0; i-- {
		if v, ok := recs[i].Vars[name]; ok {
			return v
		}
	}
	return nil
}
