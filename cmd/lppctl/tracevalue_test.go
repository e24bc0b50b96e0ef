package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

// TestATracedValueReadsAsItsWholeEncodingShortened: traceValues renders each
// step's value as shorten(compactJSON(v), n) does, through key changes
// (added, changed, removed, named twice), whole writes, lists and values
// json cannot encode.
func TestATracedValueReadsAsItsWholeEncodingShortened(t *testing.T) {
	type step struct {
		v    any
		keys []string // the keys changed (nil: the value written whole)
	}
	grow := func(k, v string) map[string]any { return map[string]any{k: v} }
	tests := []struct {
		name  string
		steps []step
	}{
		{"a map changed by keys", []step{
			{map[string]any{"b": 1.0}, nil},
			{map[string]any{"b": 1.0, "a": 2.0}, []string{"a"}},
			{map[string]any{"a": 2.0}, []string{"b"}},
			{map[string]any{"a": 3.0, "c": "x"}, []string{"a", "c", "c"}},
			{map[string]any{"a": 3.0, "c": "x", "é€": "<&>"}, []string{"é€"}},
			{map[string]any{"a": 3.0}, []string{"c", "é€", "zz"}},
		}},
		{"a map written whole, then changed", []step{
			{map[string]any{"k": []any{1.0, "two", map[string]any{"z": nil, "y": true}}}, nil},
			{map[string]any{"k": 1.0, "long": "a string longer than what the trace shows of it"}, []string{"long", "k"}},
			{map[string]any{"x": 0.0}, nil},
			{map[string]any{"x": 0.0, "w": 1.0}, []string{"w"}},
		}},
		{"a map and a scalar in turn", []step{
			{grow("a", "1"), nil},
			{"now a string", nil},
			{grow("b", "2"), []string{"b"}},
			{map[string]any{"b": "2", "a": "3"}, []string{"a"}},
		}},
		{"lists", []step{
			{[]any{}, nil},
			{[]any{1.0, "ünï", map[string]any{"b": 1.0, "a": 2.0}}, nil},
			{[]any{"a long item, longer than what the trace shows of a value"}, nil},
		}},
		{"strings", []step{
			{"", nil},
			{"ab", nil},
			{"a string longer than what the trace shows of it, with \"quotes\", <&>, é€ and \n", nil},
			{"\u2028\u2029\x01\xff\xe2\x82 then text long enough to be cut at any n here", nil},
			{"abc\xe2\x82", nil},
		}},
		{"values json cannot encode", []step{
			{map[string]any{"x": math.Inf(1)}, nil},
			{[]any{math.NaN()}, nil},
		}},
	}
	for _, tt := range tests {
		for _, n := range []int{3, 10, 40} {
			t.Run(fmt.Sprintf("%s/n=%d", tt.name, n), func(t *testing.T) {
				var tv traceValues
				for i, s := range tt.steps {
					want := shorten(compactJSON(s.v), n)
					got := tv.show("v", s.v, s.keys, s.keys != nil, n)
					assert.Equal(t, want, got, "step %d", i+1)
				}
			})
		}
	}
}

// TestTracingAGrowingMapIsLinearInItsSteps: tracing the steps of a map that
// gains a key per step allocates about as the steps (4× for 4× the steps),
// not as their square (a whole encoding of the map per step).
func TestTracingAGrowingMapIsLinearInItsSteps(t *testing.T) {
	var got []uint64
	for _, steps := range []int{1000, 4000} {
		m := map[string]any{}
		var tv traceValues
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := range steps {
			k := fmt.Sprintf("k%06d", steps-i) // each key first in order
			m[k] = i
			tv.show("m", m, []string{k}, i > 0, 40)
		}
		runtime.ReadMemStats(&after)
		got = append(got, after.TotalAlloc-before.TotalAlloc)
		assert.Equal(t, shorten(compactJSON(m), 40), tv.show("m", m, nil, true, 40))
	}
	ratio := float64(got[1]) / float64(got[0])
	t.Logf("bytes allocated: %d (1,000 steps), %d (4,000): ×%.2f", got[0], got[1], ratio)
	assert.LessOrEqual(t, ratio, 5.0, "bytes allocated tracing 4,000 steps / 1,000 steps")
}

// TestATracedStringReadsAsItsWholeEncodingShortened compares stringPrefix
// with the whole encoding shortened, on random strings of escapes, runes of
// every length and invalid bytes, at every n from 1 to 30.
func TestATracedStringReadsAsItsWholeEncodingShortened(t *testing.T) {
	pieces := []string{"a", "é", "€", "😀", `"`, `\`, "\n", "\t", "\x01", "<", "&", "\u2028", "\xff", "\xe2\x82", "\x82", " "}
	rng := rand.New(rand.NewPCG(36, 1))
	for range 500 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		for n := 1; n <= 30; n++ {
			var tv traceValues
			assert.Equal(t, shorten(compactJSON(s), n), tv.show("s", s, nil, false, n), "%q, n=%d", s, n)
		}
	}
}

// TestTracingAGrowingStringIsLinearInItsSteps: tracing the steps of a string
// that gains a line per step allocates about as the steps, not as their
// square (the whole string encoded per step).
func TestTracingAGrowingStringIsLinearInItsSteps(t *testing.T) {
	var got []uint64
	for _, steps := range []int{1000, 4000} {
		buf := make([]byte, 0, 40*steps) // the values share it, as a run's do
		var tv traceValues
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := range steps {
			buf = fmt.Appendf(buf, "line %d of the transcript, é\n", i)
			tv.show("s", unsafe.String(&buf[0], len(buf)), nil, false, 40)
		}
		runtime.ReadMemStats(&after)
		got = append(got, after.TotalAlloc-before.TotalAlloc)
	}
	ratio := float64(got[1]) / float64(got[0])
	t.Logf("bytes allocated: %d (1,000 steps), %d (4,000): ×%.2f", got[0], got[1], ratio)
	assert.LessOrEqual(t, ratio, 5.0, "bytes allocated tracing 4,000 steps / 1,000 steps")
}

// runs show and runs trace print values for a person: <, > and & as they
// are, not as JSON's HTML escapes (\u003c...), which json.Marshal writes.
func TestShownValuesKeepAngleBracketsAndAmpersands(t *testing.T) {
	v := map[string]any{"html": "<b>fish & chips</b>", "n": 1}
	assert.Equal(t, `{"html":"<b>fish & chips</b>","n":1}`, compactJSON(v))
	assert.Equal(t, `"<b>fish `, stringPrefix("<b>fish & chips</b>", 7), "the first n+1 characters")
	var tv traceValues
	assert.Equal(t, `"<b>fish & chips</b>"`, tv.show("s", "<b>fish & chips</b>", nil, false, 40))
}
