package machine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
)

// appendSpec appends to xs at every step: from the state's set and, on the
// way back, from the transition's.
const appendSpec = `
lpp: 1
name: appends
context:
  n:  {type: int, default: 0}
  xs: {type: list, default: []}
  ys: {type: list, default: []}
initial: a
states:
  a:
    set: {n: n + 1, xs: 'concat(xs, [1])'}
    next:
      - {to: b, when: 'n % 3 == 0', set: {ys: xs}}
      - {to: a, set: {xs: 'concat(xs, [n * 10])'}}
  b:
    set: {ys: 'concat(ys, ["b"])'}
    next: [{to: a}]
`

// stepRecords runs m for steps steps with vars and returns its records.
func stepRecords(t *testing.T, m *machine.Machine, vars map[string]any, steps int) (*machine.Run, []*machine.Record) {
	t.Helper()
	var recs []*machine.Record
	r, err := m.NewRun(vars, machine.WithMaxTransitions(1<<20), machine.WithObserver(machine.ObserverFunc(func(_ context.Context, rec *machine.Record) error {
		recs = append(recs, rec)
		return nil
	})))
	require.NoError(t, err)
	for range steps {
		_, err := r.Step(context.Background())
		require.NoError(t, err)
	}
	return r, recs
}

func TestAnAppendLeavesEveryValueHandedOutUnchanged(t *testing.T) {
	m := compileSpec(t, appendSpec, nil)
	var seen [][]any
	var copies [][]any
	r, err := m.NewRun(nil, machine.WithObserver(machine.ObserverFunc(func(_ context.Context, rec *machine.Record) error {
		if xs, ok := rec.Vars["xs"].([]any); ok {
			seen = append(seen, xs)
			copies = append(copies, append([]any(nil), xs...))
		}
		return nil
	})))
	require.NoError(t, err)
	for range 30 {
		_, err := r.Step(context.Background())
		require.NoError(t, err)
	}
	require.NotEmpty(t, seen)
	for i := range seen {
		assert.Equal(t, copies[i], seen[i], "record %d's xs changed after it was handed out", i)
		assert.Equal(t, len(seen[i]), cap(seen[i]), "record %d's xs has spare capacity another append could write in", i)
	}
	ys := r.Var("ys").([]any)
	assert.Equal(t, "b", ys[len(ys)-1])
	assert.NotContains(t, r.Var("xs"), "b", "an append to ys (a copy of xs) reached xs")
}

func TestAppendsAreRecordedAsSuch(t *testing.T) {
	m := compileSpec(t, appendSpec, nil)
	_, recs := stepRecords(t, m, nil, 6)
	tests := []struct {
		name string
		rec  *machine.Record
		want map[string]int
	}{
		{name: "appended by the state's set and the transition's: from the length before the step", rec: recs[0], want: map[string]int{"xs": 0}},
		{name: "appended again", rec: recs[1], want: map[string]int{"xs": 2}},
		{name: "ys set as a copy of xs: not an append", rec: recs[2], want: map[string]int{"xs": 4}},
		{name: "ys appended to in b", rec: recs[3], want: map[string]int{"ys": 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.rec.Appended)
		})
	}
	assert.Equal(t, []any{1, 10, 1, 20, 1}, recs[2].Vars["xs"])
}

func TestAnAppendedValueIsCheckedAsTheWholeListWas(t *testing.T) {
	// %s: the set's expression, as the message quotes it.
	tests := []struct {
		name, item, want string
	}{
		{name: "a time, named by its index in the whole list", item: "now()",
			want: `cannot apply set of state "a": test.yaml:11:12: set xs: the value holds a time at [3], which the run's journal would store as text, so a resumed run would read a string; store it converted, e.g. now().Format("2006-01-02T15:04:05Z07:00") or now().Unix() (in %s)`},
		{name: "a time nested in a map", item: "{at: now()}",
			want: `cannot apply set of state "a": test.yaml:11:12: set xs: the value holds a time at [3].at, which the run's journal would store as text, so a resumed run would read a string; store it converted, e.g. now().Format("2006-01-02T15:04:05Z07:00") or now().Unix() (in %s)`},
		{name: "an infinity", item: "1.0 / 0.0",
			want: "cannot apply set of state \"a\": test.yaml:11:12: set xs: the value holds +Inf, not a finite number; a division by zero or an overflow gives one: guard the operation, e.g. `d == 0 ? 0.0 : x / d` (in %s)"},
	}
	for _, tt := range tests {
		for _, shape := range []string{
			"concat(xs, [n < 3 ? n : ITEM])",    // an append: only the item is checked
			"concat(xs[:], [n < 3 ? n : ITEM])", // evaluated as written: the whole list is
		} {
			t.Run(tt.name+"/"+shape, func(t *testing.T) {
				set := strings.ReplaceAll(shape, "ITEM", tt.item)
				m := compileSpec(t, `
lpp: 1
name: bad
context:
  n:  {type: int, default: 0}
  xs: {type: list, default: []}
initial: a
states:
  a:
    set:
      xs: '`+set+`'
      n: n + 1
    next: [{to: a}]
`, nil)
				r, err := m.NewRun(nil)
				require.NoError(t, err)
				for range 3 {
					_, err := r.Step(context.Background())
					require.NoError(t, err)
				}
				_, err = r.Step(context.Background())
				require.Error(t, err)
				assert.Equal(t, fmt.Sprintf(tt.want, set), err.Error())
			})
		}
	}
}

// TestAnAppendCostsTheSameAtAnyLength counts the allocations of a step that
// appends one item to a list of 10 and of 10,000 items: an append that
// copied or checked the whole list would allocate in proportion.
func TestAnAppendCostsTheSameAtAnyLength(t *testing.T) {
	const spec = `
lpp: 1
name: grow
context:
  n:  {type: int, default: 0}
  xs: {type: list, default: []}
initial: a
states:
  a:
    set: {n: n + 1, xs: 'concat(xs, [{n: n, at: string(n)}])'}
    next: [{to: a}]
`
	m := compileSpec(t, spec, nil)
	allocs := map[int]float64{}
	for _, size := range []int{10, 10000} {
		start := make([]any, size)
		for i := range start {
			start[i] = map[string]any{"n": i, "at": "x"}
		}
		r, err := m.NewRun(map[string]any{"xs": start}, machine.WithMaxTransitions(1<<20))
		require.NoError(t, err)
		_, err = r.Step(context.Background()) // the first append copies the list once
		require.NoError(t, err)
		allocs[size] = testing.AllocsPerRun(200, func() {
			if _, err := r.Step(context.Background()); err != nil {
				t.Fatal(err)
			}
		})
	}
	assert.InDelta(t, allocs[10], allocs[10000], 1, "allocations per step: %v", allocs)
}
