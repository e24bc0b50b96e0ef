package check_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/check/report"
	"github.com/lppctl/lppctl/machine/internal/spectest"
)

// TestTheStoreFindsPairsStoredBeforeItWidened: n counts up to top (more
// values than 8-bit ids hold, then more than 16-bit ids hold, so the store
// re-encodes its records in wider words on the way), then b sends the run
// back to a with n = 1, a pair stored before the store widened: it must be
// found, not stored again.
func TestTheStoreFindsPairsStoredBeforeItWidened(t *testing.T) {
	for _, top := range []int{300, 70000} {
		t.Run(fmt.Sprint(top), func(t *testing.T) {
			m := spectest.Compile(t, fmt.Sprintf(`lpp: 1
name: wide
limits: {max_transitions: 1000000}
context:
  n: {type: int, default: 0, range: [0, %[1]d]}
initial: a
states:
  a:
    next:
      - {to: b, when: n == %[1]d, set: {n: 0}}
      - {to: a, set: {n: n + 1}}
  b:
    next:
      - {to: a, set: {n: 1}}
  done: {final: true}
`, top), nil)
			r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
			require.True(t, r.Complete, r.Stopped)
			assert.Equal(t, top+2, r.Stats.States, "a for each n, and b")
			assert.Equal(t, top+2, r.Stats.Transitions, "one move out of each pair")
			assert.Equal(t, check.Fail, r.Property(check.PropTermination).Verdict, "the run cycles for ever")
		})
	}
}

// TestTheStoreFindsLongRecordsAcrossWidening: as above with four more live
// variables (which change every 1,000 steps), so that a record (the state
// and a word per variable) is hashed and compared as one number while its
// words take a byte (at most 8 bytes), and as bytes once they take two or
// four (more than 8): the pair stored before each change is found after it,
// and the search is the one the interpreter makes.
func TestTheStoreFindsLongRecordsAcrossWidening(t *testing.T) {
	for _, top := range []int{300, 70000} {
		t.Run(fmt.Sprint(top), func(t *testing.T) {
			m := spectest.Compile(t, fmt.Sprintf(`lpp: 1
name: wide
limits: {max_transitions: 1000000}
context:
  n: {type: int, default: 0, range: [0, %[1]d]}
  a: {type: bool, default: false}
  b: {type: int, default: 0, range: [0, 1]}
  c: {type: string, enum: [x, y], default: x}
  d: {type: int, default: 0, range: [0, 2]}
initial: a0
states:
  a0:
    next:
      - {to: b0, when: n == %[1]d, set: {n: 0}}
      - {to: a0, when: n %% 1000 == 999 && !a, set: {a: true, n: n + 1}}
      - {to: a0, when: n %% 1000 == 999 && a, set: {a: false, b: 1 - b, c: 'c == "x" ? "y" : "x"', d: '(d + 1) %% 3', n: n + 1}}
      - {to: a0, set: {n: n + 1}}
  b0:
    next:
      - {to: a0, when: a || b + d > 0 || c == "y", set: {n: 1, a: false, b: 0, c: '"x"', d: 0}}
      - {to: a0, set: {n: 1}}
  done: {final: true}
`, top), nil)
			want := check.ModelCheck(context.Background(), m, check.CheckOptions{Interpreted: true})
			r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
			require.True(t, r.Complete, r.Stopped)
			assert.Equal(t, want.Stats, withDuration(r.Stats, want.Stats.Duration))
			assert.Equal(t, top+2, r.Stats.States, "a0 for each n (a, b, c, d follow from n), and b0")
			assert.Equal(t, check.Fail, r.Property(check.PropTermination).Verdict, "the run cycles for ever")
		})
	}
}

// TestTheStoreGivesTheSameSearchAtEveryIDWidth: the table's entries keep
// an id in as many bits as MaxStates needs and a tag of the record's hash in
// the others (from 31 bits of tag to 1): the search is the same.
func TestTheStoreGivesTheSameSearchAtEveryIDWidth(t *testing.T) {
	m := spectest.Compile(t, genSpec(9, 3, 3, false), spectest.Registry())
	want := check.ModelCheck(context.Background(), m, check.CheckOptions{})
	require.True(t, want.Complete, want.Stopped)
	for _, max := range []int{want.Stats.States + 1, 1 << 20, 1 << 30, 1<<31 - 1, 1 << 40} {
		r := check.ModelCheck(context.Background(), m, check.CheckOptions{MaxStates: max})
		require.True(t, r.Complete, "MaxStates %d: %s", max, r.Stopped)
		assert.Equal(t, want.Stats, withDuration(r.Stats, want.Stats.Duration), "MaxStates %d", max)
		assert.Equal(t, report.Text(want, report.Options{NoTimes: true}), report.Text(r, report.Options{NoTimes: true}), "MaxStates %d", max)
	}
}

// withDuration is s with its duration d, to compare statistics.
func withDuration(s check.CheckStats, d time.Duration) check.CheckStats {
	s.Duration = d
	return s
}
