package machine_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// textSpec adds to log at every step, from the state's set and, every third
// step, from the transition's; held takes a copy of log there and adds to
// it in b: two strings that began as one. Every sixth step b's action sets
// log back to held, a shorter string over log's own bytes (an action's set
// does not tell the run it let them go), which the next step adds to: in
// bytes of its own, not past log's longest value.
const textSpec = `
lpp: 1
name: texts
context:
  n:    {type: int, default: 0}
  log:  {type: string, default: ""}
  held: {type: string, default: ""}
initial: a
states:
  a:
    set: {n: n + 1, log: 'log + "line " + string(n) + ": é\n"'}
    next:
      - {to: b, when: 'n % 3 == 0', set: {held: log, log: 'log + "→b\n"'}}
      - {to: a}
  b:
    do: test.restore
    set: {held: 'held + "!"'}
    next: [{to: a}]
`

// textWant is what textSpec's log and held are after steps steps.
func textWant(steps int) (log, held string) {
	n, state := 0, "a"
	for range steps {
		if state == "b" {
			if n%6 == 0 {
				log = held
			}
			held += "!"
			state = "a"
			continue
		}
		log += fmt.Sprintf("line %d: é\n", n)
		n++
		if n%3 == 0 {
			held = log
			log += "→b\n"
			state = "b"
		}
	}
	return log, held
}

func TestAStringAddedToLeavesEveryValueHandedOutUnchanged(t *testing.T) {
	reg := machine.NewBuiltinRegistry()
	reg.MustRegister(machine.Action{Name: "test.restore", Doc: "sets log to held every sixth step",
		Writes: []machine.VarSpec{{Name: "log", Type: mspec.TypeString}},
		Run: func(_ context.Context, c *machine.Call) error {
			if c.Var("n").(int)%6 != 0 {
				return nil
			}
			return c.SetVar("log", c.Var("held"))
		}})
	m := compileSpec(t, textSpec, reg)
	type seen struct{ held, copy string }
	var values []seen
	r, err := m.NewRun(nil, machine.WithObserver(machine.ObserverFunc(func(_ context.Context, rec *machine.Record) error {
		for _, name := range []string{"log", "held"} {
			if s, ok := rec.Vars[name].(string); ok {
				values = append(values, seen{s, strings.Clone(s)})
			}
		}
		return nil
	})))
	require.NoError(t, err)
	for i := range 60 {
		_, err := r.Step(context.Background())
		require.NoError(t, err)
		log, held := textWant(i + 1)
		require.Equal(t, log, r.Var("log"), "log after step %d", i+1)
		require.Equal(t, held, r.Var("held"), "held after step %d", i+1)
	}
	require.NotEmpty(t, values)
	for i, v := range values {
		assert.Equal(t, v.copy, v.held, "value %d changed after it was handed out", i)
	}
}

// TestAStringThatGrowsAtEveryStepCostsWhatItGained runs a set that adds a
// line to a string, written as a sum and as the idiom that adds a separator
// once the text is not empty, for 1,000 and for 8,000 steps: the bytes
// allocated per step must not grow with the string (expr's + copies it
// whole at every +).
func TestAStringThatGrowsAtEveryStepCostsWhatItGained(t *testing.T) {
	for _, set := range []string{
		`log + "line " + string(n) + ": the model said something of a usual length\n"`,
		`log == "" ? "line 0" : log + "\nline " + string(n) + ": the model said something of a usual length"`,
	} {
		t.Run(set, func(t *testing.T) {
			m := compileSpec(t, `
lpp: 1
name: transcript
context:
  n:   {type: int, default: 0}
  log: {type: string, default: ""}
initial: a
states:
  a:
    set: {n: n + 1, log: '`+set+`'}
    next: [{to: a}]
`, nil)
			perStep := map[int]float64{}
			for _, steps := range []int{1000, 8000} {
				r, err := m.NewRun(nil, machine.WithMaxTransitions(1<<20))
				require.NoError(t, err)
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				for range steps {
					_, err := r.Step(context.Background())
					require.NoError(t, err)
				}
				runtime.ReadMemStats(&after)
				perStep[steps] = float64(after.TotalAlloc-before.TotalAlloc) / float64(steps)
				assert.Contains(t, r.Var("log"), fmt.Sprintf("line %d: the model said something of a usual length", steps-1))
			}
			assert.Less(t, perStep[8000], 2*perStep[1000], "bytes allocated per step, by steps: %v", perStep)
		})
	}
}

// TestASetAddingToAStringIsEvaluatedAsWrittenWhenItMust: the parts are
// added in place only when they are strings and the result is one the set
// as written would give; anything else is the set as written, its errors
// included.
func TestASetAddingToAStringIsEvaluatedAsWrittenWhenItMust(t *testing.T) {
	tests := []struct {
		name    string
		context string // the spec's context lines besides n
		set     string
		steps   int
		want    string // log after steps, or the error of the last step
		wantErr bool
	}{
		{name: "a part that is a number: the error of string + int", context: `m: {type: map, default: {x: 1}}`, set: `log + m.x`, steps: 1,
			want: "cannot apply set of state \"a\": test.yaml:11:31: set log: invalid operation: string + int (in log + m.x)", wantErr: true},
		{name: "a null string: the error of nil + string", context: `log: {type: string, nullable: true, default: null}`, set: `log + "x"`, steps: 1,
			want: "cannot apply set of state \"a\": test.yaml:10:31: set log: invalid operation: <nil> + string (in log + \"x\")", wantErr: true},
		{name: "an enum: each value checked", context: `log: {type: string, enum: [a, ax], default: a}`, set: `log + "x"`, steps: 2,
			want: "cannot apply set of state \"a\": test.yaml:10:27: set log: \"axx\" is not one of [\"a\", \"ax\"] (in log + \"x\")", wantErr: true},
		{name: "past the size limit: the set's error", context: `big: {type: string, default: ""}`, set: `log + repeat("x", 900000)`, steps: 10,
			want: "cannot apply set of state \"a\": test.yaml:11:27: set log: the value is 9000000 bytes or more, past the limit of 8388608 for a context value; a set that grows a value on every pass (s: s + s) never ends: bound it with a guard (in log + repeat(\"x\", 900000))", wantErr: true},
		{name: "parts that are strings from a map", context: `m: {type: map, default: {x: "y"}}`, set: `log + m.x + "-"`, steps: 3, want: "y-y-y-"},
		{name: "a part in parentheses", set: `log + ("a" + "b")`, steps: 2, want: "abab"},
		{name: "an empty part: the value unchanged", set: `log + ""`, steps: 2, want: ""},
		{name: "prepended: as written", set: `"<" + log`, steps: 2, want: "<<"},
		{name: "a separator once not empty", set: `log == "" ? string(n) : log + "," + string(n)`, steps: 4, want: "0,1,2,3"},
		{name: "the append in the other branch", set: `log != "" ? log + "|" + string(n) : "start"`, steps: 3, want: "start|1|2"},
		{name: "appends in both branches", set: `n % 2 == 0 ? log + "a" : log + "b"`, steps: 4, want: "abab"},
		{name: "nested conditionals", set: `n < 2 ? "x" + string(n) : (n < 4 ? log + "-" : log + "+")`, steps: 6, want: "x1--++"},
		{name: "a whole branch of several parts", set: `n < 2 ? "y" + string(n) + "!" : log + "."`, steps: 3, want: "y1!."},
		{name: "an if/else", set: `if log == "" { "a" } else { log + "b" }`, steps: 3, want: "abb"},
		{name: "a whole branch that is a list: the error of the set as written", context: `m: {type: map, default: {x: [y]}}`, set: `n < 1 ? log + "a" : m.x`, steps: 2,
			want: "cannot apply set of state \"a\": test.yaml:11:27: set log: a list is not a string (in n < 1 ? log + \"a\" : m.x)", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := "  n:   {type: int, default: 0}\n"
			if !strings.Contains(tt.context, "log:") {
				ctx += "  log: {type: string, default: \"\"}\n"
			}
			if tt.context != "" {
				ctx += "  " + tt.context + "\n"
			}
			m := compileSpec(t, `
lpp: 1
name: parts
context:
`+ctx+`initial: a
states:
  a:
    set: {n: n + 1, log: '`+tt.set+`'}
    next: [{to: a}]
`, nil)
			r, err := m.NewRun(nil)
			require.NoError(t, err)
			for i := range tt.steps {
				_, err = r.Step(context.Background())
				if i < tt.steps-1 || !tt.wantErr {
					require.NoError(t, err)
				}
			}
			if tt.wantErr {
				require.Error(t, err)
				assert.Equal(t, tt.want, err.Error())
				return
			}
			assert.Equal(t, tt.want, r.Var("log"))
		})
	}
}

// TestAddingInPlaceGivesWhatTheSetAsWrittenGives runs random sets of a
// string variable, of the shapes added in place and others, beside the
// same sets wrapped so that they are evaluated as written (`"" + (SET)`):
// at every step both runs hold the same values, or both fail.
func TestAddingInPlaceGivesWhatTheSetAsWrittenGives(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 36))
	parts := []string{`"a"`, `"é\n"`, `string(n)`, `m.s`, `m.i`, `m.none`, `""`, `other`, `(other + "!")`, `upper(other)`, `m.l`}
	conds := []string{`n % 2 == 0`, `log == ""`, `len(log) > 6`, `n > 3`}
	var gen func(depth int) string
	gen = func(depth int) string {
		switch k := rng.IntN(6); {
		case k == 0 && depth < 2:
			return "(" + conds[rng.IntN(len(conds))] + " ? " + gen(depth+1) + " : " + gen(depth+1) + ")"
		case k <= 3: // a sum that starts with the variable
			e := "log"
			for range 1 + rng.IntN(3) {
				e += " + " + parts[rng.IntN(len(parts))]
			}
			return e
		default: // something else
			e := parts[rng.IntN(len(parts))]
			if rng.IntN(2) == 0 {
				e += " + log"
			}
			return e
		}
	}
	spec := func(set string) string {
		return `
lpp: 1
name: parts
context:
  n:     {type: int, default: 0}
  log:   {type: string, nullable: true, default: ""}
  other: {type: string, default: "o"}
  m:     {type: map, default: {s: "s", i: 1, l: [x]}}
initial: a
states:
  a:
    set: {n: n + 1, other: 'other + "o"', log: '` + strings.ReplaceAll(set, "'", "''") + `'}
    next: [{to: a}]
`
	}
	whole := 0 // sets that ran their 8 steps
	for range 300 {
		set := gen(0) // a conditional in parentheses is the same node
		fast, slow := compileSpec(t, spec(set), nil), compileSpec(t, spec(`let v = (`+set+`); v`), nil)
		rf, err := fast.NewRun(nil)
		require.NoError(t, err)
		rs, err := slow.NewRun(nil)
		require.NoError(t, err)
		for step := 1; step <= 8; step++ {
			_, ef := rf.Step(context.Background())
			_, es := rs.Step(context.Background())
			require.Equal(t, es != nil, ef != nil, "set %s, step %d: as written %v, in place %v", set, step, es, ef)
			if es != nil {
				break
			}
			require.Equal(t, rs.Var("log"), rf.Var("log"), "set %s, step %d", set, step)
			if step == 8 {
				whole++
			}
		}
	}
	assert.Greater(t, whole, 100, "sets that ran their 8 steps")
}
