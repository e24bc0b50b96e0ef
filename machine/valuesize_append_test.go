package machine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// bigAppendSpec appends big (a 1 MiB string: bigVars) to xs at every step (SHAPE is the
// set's expression): the eighth append takes the list past MaxValueBytes
// (8 items of 8 bytes plus 8 MiB of strings).
const bigAppendSpec = `
lpp: 1
name: big
context:
  n:  {type: int, default: 0}
  xs: {type: list, default: []}
  big: {type: string, default: ""}
initial: a
states:
  a:
    set:
      xs: 'SHAPE'
      n: n + 1
    next: [{to: a}]
`

// tooLargeWant is the error of the eighth step of bigAppendSpec (%s: the
// set's expression), whichever way the set is evaluated.
const tooLargeWant = `cannot apply set of state "a": test.yaml:12:12: set xs: the value is 8388672 bytes or more, past the limit of 8388608 for a context value; a set that grows a value on every pass (s: s + s) never ends: bound it with a guard (in %s)`

var bigAppendShapes = []string{
	`concat(xs, [big])`,    // an append: only the item is measured
	`concat(xs[:], [big])`, // evaluated as written: the whole list is
}

func bigAppendMachine(t *testing.T, shape string) *machine.Machine {
	t.Helper()
	return compileSpec(t, replaceShape(bigAppendSpec, shape), nil)
}

var bigVars = map[string]any{"big": string(make([]byte, 1<<20))}

func replaceShape(spec, shape string) string {
	out := []byte{}
	for i := 0; i < len(spec); i++ {
		if i+5 <= len(spec) && spec[i:i+5] == "SHAPE" {
			out = append(out, shape...)
			i += 4
			continue
		}
		out = append(out, spec[i])
	}
	return string(out)
}

func TestAnAppendStopsAtTheValueSizeLimitAsAnySetDoes(t *testing.T) {
	for _, shape := range bigAppendShapes {
		t.Run(shape, func(t *testing.T) {
			m := bigAppendMachine(t, shape)
			r, err := m.NewRun(bigVars)
			require.NoError(t, err)
			for range 7 {
				_, err := r.Step(context.Background())
				require.NoError(t, err)
			}
			_, err = r.Step(context.Background())
			require.Error(t, err)
			assert.True(t, errors.Is(err, mspec.ErrValueTooLarge), "%v", err)
			assert.Equal(t, fmt.Sprintf(tooLargeWant, shape), err.Error())
			assert.Len(t, r.Var("xs"), 7, "the failing append changed the list")
		})
	}
}

func TestAResumedRunStopsAtTheValueSizeLimit(t *testing.T) {
	shape := bigAppendShapes[0]
	m := bigAppendMachine(t, shape)
	_, recs := stepRecords(t, m, bigVars, 5)
	r, err := m.Resume(bigVars, recs)
	require.NoError(t, err)
	for range 2 {
		_, err := r.Step(context.Background())
		require.NoError(t, err)
	}
	_, err = r.Step(context.Background())
	require.Error(t, err)
	assert.Equal(t, fmt.Sprintf(tooLargeWant, shape), err.Error())
}

// TestReplayTakesAJournaledAppendPastTheValueSizeLimit: a journal (of a
// version that did not hold the limit on appends) whose list grew past it,
// by an append or written whole, is what happened: the run resumes (a run of
// the previous release stays resumable) and the next append is refused with
// the message any set past the limit gives.
func TestReplayTakesAJournaledAppendPastTheValueSizeLimit(t *testing.T) {
	for _, appended := range []bool{true, false} {
		t.Run(fmt.Sprintf("appended=%v", appended), func(t *testing.T) {
			m := bigAppendMachine(t, bigAppendShapes[0])
			_, recs := stepRecords(t, m, bigVars, 7)
			big := make([]any, 8)
			for i := range big {
				big[i] = string(make([]byte, 1<<20))
			}
			rec := &machine.Record{Seq: 8, From: "a", To: "a", Via: "next[0]",
				Vars: map[string]any{"n": 8, "xs": big}}
			if appended {
				rec.Appended = map[string]int{"xs": 7}
			}
			r, err := m.Resume(bigVars, append(recs, rec))
			require.NoError(t, err)
			assert.Len(t, r.Var("xs"), 8)
			_, err = r.Step(context.Background()) // the next append is refused
			require.Error(t, err)
			assert.True(t, errors.Is(err, mspec.ErrValueTooLarge), "%v", err)
			assert.Equal(t, strings.Replace(fmt.Sprintf(tooLargeWant, bigAppendShapes[0]), "8388672", "8388680", 1), err.Error())
			assert.Len(t, r.Var("xs"), 8, "the refused append changed the list")
		})
	}
}

// bigMergeSpec adds big under a new key of m at every step (SHAPE: the
// set's expression): the eighth key takes the map past MaxValueBytes.
const bigMergeSpec = `
lpp: 1
name: big
context:
  n:   {type: int, default: 0}
  m:   {type: map, default: {}}
  big: {type: string, default: ""}
initial: a
states:
  a:
    set:
      m: 'SHAPE'
      n: n + 1
    next: [{to: a}]
`

func TestAKeyChangeStopsAtTheValueSizeLimitAsAnySetDoes(t *testing.T) {
	const want = `cannot apply set of state "a": test.yaml:12:11: set m: the value is 8388752 bytes or more, past the limit of 8388608 for a context value; a set that grows a value on every pass (s: s + s) never ends: bound it with a guard (in %s)`
	for _, shape := range []string{
		`merge(m, {("k" + string(n)): big})`,              // key by key: only the key is measured
		`merge(n == n ? m : m, {("k" + string(n)): big})`, // evaluated as written: the whole map is
	} {
		t.Run(shape, func(t *testing.T) {
			m := compileSpec(t, replaceShape(bigMergeSpec, shape), nil)
			r, err := m.NewRun(bigVars)
			require.NoError(t, err)
			for range 7 {
				_, err := r.Step(context.Background())
				require.NoError(t, err)
			}
			_, err = r.Step(context.Background())
			require.Error(t, err)
			assert.True(t, errors.Is(err, mspec.ErrValueTooLarge), "%v", err)
			assert.Equal(t, fmt.Sprintf(want, shape), err.Error())
			assert.Len(t, r.Var("m"), 7, "the failing change changed the map")
		})
	}
}
