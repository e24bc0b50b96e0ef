package machine_test

import (
	"context"
	"maps"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// mergeSpec adds a key to m at every step, replaces one on the way back
// and removes one every fourth step; m2 takes a copy of m now and then.
const mergeSpec = `
lpp: 1
name: merges
context:
  n:  {type: int, default: 0}
  m:  {type: map, default: {a: 0}}
  m2: {type: map, default: {}}
initial: a
states:
  a:
    set: {n: n + 1, m: 'merge(m, {("k" + string(n)): n})'}
    next:
      - {to: b, when: 'n % 4 == 0', set: {m: 'omit(m, "k" + string(n - 2))'}}
      - {to: a, when: 'n % 3 == 0', set: {m2: m}}
      - {to: a, set: {m: 'merge(m, {a: n})'}}
  b:
    next: [{to: a}]
`

// borrower is an observer that keeps nothing but a copy of each record's m.
type borrower struct{ copies []map[string]any }

func (b *borrower) OnStep(_ context.Context, rec *machine.Record) error {
	if m, ok := rec.Vars["m"].(map[string]any); ok {
		b.copies = append(b.copies, maps.Clone(m))
	} else {
		b.copies = append(b.copies, nil)
	}
	return nil
}

func (*borrower) BorrowsValues() {}

// nopBorrower observes nothing (a borrower that copies nothing).
type nopBorrower struct{}

func (nopBorrower) OnStep(context.Context, *machine.Record) error { return nil }
func (nopBorrower) BorrowsValues()                                {}

// asWritten is mergeSpec with every merge and omit written so that no set
// takes the key-level path (the whole map is evaluated).
func mergeAsWritten() string {
	return replaceAll(mergeSpec, map[string]string{
		`merge(m, {("k" + string(n)): n})`: `merge(m2 == m2 ? m : m, {("k" + string(n)): n})`,
		`omit(m, "k" + string(n - 2))`:     `omit(m2 == m2 ? m : m, "k" + string(n - 2))`,
		`merge(m, {a: n})`:                 `merge(m2 == m2 ? m : m, {a: n})`,
	})
}

func replaceAll(s string, r map[string]string) string {
	for old, new := range r {
		s = replaceShapeOf(s, old, new)
	}
	return s
}

func replaceShapeOf(s, old, new string) string {
	out := ""
	for {
		i := indexOf(s, old)
		if i < 0 {
			return out + s
		}
		out += s[:i] + new
		s = s[i+len(old):]
	}
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func TestAKeyChangeGivesTheValuesTheSetAsWrittenGives(t *testing.T) {
	for _, observer := range []string{"borrower", "keeper"} {
		t.Run(observer, func(t *testing.T) {
			run := func(src string) (*machine.Run, []*machine.Record, []map[string]any) {
				m := compileSpec(t, src, nil)
				var recs []*machine.Record
				var copies []map[string]any
				b := &borrower{}
				opt := machine.WithObserver(b)
				if observer == "keeper" {
					opt = machine.WithObserver(machine.ObserverFunc(func(_ context.Context, rec *machine.Record) error {
						recs = append(recs, rec)
						c, _ := rec.Vars["m"].(map[string]any)
						copies = append(copies, maps.Clone(c))
						return nil
					}))
				}
				r, err := m.NewRun(nil, opt, machine.WithMaxTransitions(1<<20))
				require.NoError(t, err)
				for range 40 {
					_, err := r.Step(context.Background())
					require.NoError(t, err)
				}
				if observer == "borrower" {
					copies = b.copies
				}
				return r, recs, copies
			}
			fast, recs, fastCopies := run(mergeSpec)
			slow, _, slowCopies := run(mergeAsWritten())
			assert.Equal(t, slowCopies, fastCopies, "the values of m step by step")
			assert.Equal(t, slow.Var("m"), fast.Var("m"))
			assert.Equal(t, slow.Var("m2"), fast.Var("m2"))
			assert.Len(t, fast.Var("m"), 25)
			for i, rec := range recs { // kept by the observer: never changed since
				if m, ok := rec.Vars["m"].(map[string]any); ok {
					assert.Equal(t, fastCopies[i], m, "record %d's m changed after it was handed out", i+1)
				}
			}
		})
	}
}

func TestKeyChangesAreRecordedAsSuch(t *testing.T) {
	m := compileSpec(t, mergeSpec, nil)
	_, recs := stepRecords(t, m, nil, 5)
	want := [][]string{
		{"k0", "a"}, // merge, then merge {a: n} on the way back
		{"k1", "a"},
		{"k2"}, // then m2: m
		{"k3", "k2"},
		nil, // b: no set
	}
	for i, rec := range recs {
		assert.ElementsMatch(t, want[i], rec.MapKeys["m"], "step %d", i+1)
	}
	assert.NotContains(t, recs[3].Vars["m"], "k2", "omit removed the key")
}

// TestAKeyChangeCostsTheSameAtAnySize counts the allocations of a step that
// adds a key to a map of 10 and of 10,000 keys, journaled by a borrower:
// a change that copied or checked the whole map would allocate in
// proportion.
func TestAKeyChangeCostsTheSameAtAnySize(t *testing.T) {
	const spec = `
lpp: 1
name: grow
context:
  n: {type: int, default: 0}
  m: {type: map, default: {}}
initial: a
states:
  a:
    set: {n: n + 1, m: 'merge(m, {("k" + string(n)): {n: n, at: "x"}})'}
    next: [{to: a}]
`
	m := compileSpec(t, spec, nil)
	allocs := map[int]float64{}
	for _, size := range []int{10, 10000} {
		start := make(map[string]any, size)
		for i := range size {
			start["s"+string(rune('a'+i%26))+string(rune(i))] = map[string]any{"n": i, "at": "x"}
		}
		r, err := m.NewRun(map[string]any{"m": start}, machine.WithMaxTransitions(1<<20), machine.WithObserver(nopBorrower{}))
		require.NoError(t, err)
		_, err = r.Step(context.Background()) // the first change copies the map once
		require.NoError(t, err)
		allocs[size] = testing.AllocsPerRun(200, func() {
			if _, err := r.Step(context.Background()); err != nil {
				t.Fatal(err)
			}
		})
	}
	assert.InDelta(t, allocs[10], allocs[10000], 2, "allocations per step: %v", allocs)
}

func TestMergeAndOmitGiveNewMaps(t *testing.T) {
	tests := []struct {
		name, expr string
		want       map[string]any
	}{
		{name: "merge adds a key", expr: `merge(m, {b: 2})`, want: map[string]any{"a": 1, "b": 2}},
		{name: "merge replaces a key", expr: `merge(m, {a: "x"})`, want: map[string]any{"a": "x"}},
		{name: "merge with a computed key", expr: `merge(m, {("k" + string(1 + 1)): [1]})`, want: map[string]any{"a": 1, "k2": []any{1}}},
		{name: "omit removes keys, absent ones too", expr: `omit(m, "a", "z")`, want: map[string]any{}},
		{name: "merge of another map into this one", expr: `merge({z: 0}, m)`, want: map[string]any{"a": 1, "z": 0}},
		{name: "a copy: the variable read is unchanged", expr: `merge(m2, {c: 3})`, want: map[string]any{"a": 1, "c": 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := compileSpec(t, `
lpp: 1
name: t
context:
  m:  {type: map, default: {a: 1}}
  m2: {type: map, default: {a: 1}}
initial: a
states:
  a:
    set: {m: '`+tt.expr+`'}
    next: [done]
  done: {final: true}
`, nil)
			r, err := m.NewRun(nil)
			require.NoError(t, err)
			require.NoError(t, r.Run(context.Background()))
			assert.Equal(t, tt.want, r.Var("m"))
			assert.Equal(t, map[string]any{"a": 1}, r.Var("m2"))
		})
	}
}

func TestAVariableNamedMergeIsReadAsTheVariable(t *testing.T) {
	m := compileSpec(t, `
lpp: 1
name: t
context:
  merge: {type: int, default: 2}
  omit:  {type: map, default: {}}
  n:     {type: int, default: 0}
initial: a
states:
  a:
    set: {n: merge + len(omit)}
    next: [done]
  done: {final: true}
`, nil)
	r, err := m.NewRun(nil)
	require.NoError(t, err)
	require.NoError(t, r.Run(context.Background()))
	assert.Equal(t, 2, r.Var("n"))
}

// TestAMapHandedToAnActionNeverChanges: an action that keeps the map it
// reads (Call.Var, Call.Vars) or is given (an expression parameter) sees it
// as it was, while the run goes on changing keys of the variable.
func TestAMapHandedToAnActionNeverChanges(t *testing.T) {
	type kept struct{ got, copy map[string]any }
	var keeps []kept
	keep := func(v any) {
		if m, ok := v.(map[string]any); ok {
			keeps = append(keeps, kept{m, maps.Clone(m)})
		}
	}
	reg := machine.NewBuiltinRegistry()
	reg.MustRegister(machine.Action{Name: "keep", Doc: "keeps what it reads",
		Params: []machine.ParamSpec{{Name: "value", Type: mspec.TypeExpr, Doc: "a value to keep"}},
		Run: func(_ context.Context, c *machine.Call) error {
			switch c.Seq % 3 {
			case 0:
				keep(c.Var("m"))
			case 1:
				keep(c.Vars()["m"])
			}
			keep(c.Params["value"])
			return nil
		}})
	m := compileSpec(t, `
lpp: 1
name: keep
context:
  n: {type: int, default: 0}
  m: {type: map, default: {}}
initial: a
states:
  a:
    set: {n: n + 1, m: 'merge(m, {("k" + string(n)): n})'}
    next: [{to: b, when: 'n % 2 == 0'}, a]
  b:
    do: keep
    with: {value: 'n % 4 == 0 ? m : {}'}
    set: {m: 'merge(m, {b: n})'}
    next: [a]
`, reg)
	r, err := m.NewRun(nil, machine.WithObserver(nopBorrower{}), machine.WithMaxTransitions(1<<20))
	require.NoError(t, err)
	for range 60 {
		_, err := r.Step(context.Background())
		require.NoError(t, err)
	}
	require.Greater(t, len(keeps), 15)
	for i, k := range keeps {
		assert.Equal(t, k.copy, k.got, "map %d changed after the action kept it", i)
	}
}
