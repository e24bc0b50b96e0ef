package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The example held out from the writer of the code (examples.vet's
// held_out) reaches no prompt of a model that writes or refines the
// blueprint or the code, on any path: neither its values nor its name
// (which may describe its inputs: "5 km in mi"). Only deriving, which works
// the values out again from the inputs and writes nothing, and a plan that
// writes the examples (again) see them.
func TestTheHeldOutExampleReachesNoWriter(t *testing.T) {
	// lengthTarget's example 2, "5 km in mi", is the last typical one: held out.
	const heldName, heldValue = "5 km in mi", "3.10686"
	intResult := strings.Replace(lengthTarget.rightBlueprint(), "result:    {type: float, default: 0}", "result:    {type: int, default: 0}", 1)
	tests := []struct {
		name  string
		model func(m *imperfectModel)
		vars  []string
		code  int
		route []string // in the run's output, in this order
		told  string   // a substring of some request to a writer
		// secrets are the held-out example's name and value (default
		// heldName, heldValue), checked in the requests after the
		// derivings-th deriving call (the examples it vetted are the run's).
		secrets   []string
		derivings int
	}{
		{
			name: "through a reopen whose blueprint no longer fits the held-out example's type",
			model: func(m *imperfectModel) {
				m.scripts = []string{lengthTarget.wrong}
				// The reopened phase 1 declares result an int: every float
				// example, the held-out one included, no longer fits it.
				m.blueprints = []string{lengthTarget.rightBlueprint(), intResult, lengthTarget.rightBlueprint()}
			},
			vars:  []string{"max_iterations=2"},
			code:  exitPaused,
			route: []string{`validating → planning  [phase == "implementation" && reopens < max_reopens`, "validating → refining", `validating → planning  [checks_ok && phase == "blueprint"]`, "paused in error"},
			told:  "example 2 (typical; held out from the writer: its name, inputs and values are not shown) expects result as a number, but result is a int in the spec: give a int (or change the variable's type)",
		},
		{
			name: "through examples the derivation refused, written again the same",
			model: func(m *imperfectModel) {
				m.seed("deriving", 0, func(s string) string { return strings.Replace(s, heldValue, "3.2", 1) })
			},
			route: []string{"vetting → planning  [example_asks < max_repairs]", "vetting → reading  [examples_ok]", "completed in complete"},
			told:  "The last examples were refused; write them again, correcting this:\nthe examples cannot stand; write them again (and the blueprint plan with them):\nexample 2 \"5 km in mi\" expects result 3.10686, but an independent derivation from the target and the inputs gives 3.2",
		},
		{
			name: "through examples whose types a first blueprint refused, written again with the first two swapped",
			model: func(m *imperfectModel) {
				m.blueprints = []string{intResult, lengthTarget.rightBlueprint()}
				// The examples written again hold the same two typical ones,
				// swapped: "12 ft in m", shown before, is now held out.
				swap := func(s string) string {
					var plan map[string]any
					if err := json.Unmarshal([]byte(s), &plan); err != nil {
						t.Errorf("the plan does not parse: %v", err)
						return s
					}
					ex, _ := plan["examples"].([]any)
					if len(ex) < 2 {
						t.Errorf("the reply holds %d examples", len(ex))
						return s
					}
					ex[0], ex[1] = ex[1], ex[0]
					b, _ := json.Marshal(plan)
					return string(b)
				}
				m.seed("planning", 1, swap).seed("deriving", 1, swap)
			},
			route:     []string{"validating → refining", "deriving → vetting", "vetting → reading  [examples_ok]", "completed in complete"},
			told:      "the examples had values of the wrong type for the blueprint's variables; they are written again",
			secrets:   []string{"12 ft in m", "3.6576"},
			derivings: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newImperfectModel(t, lengthTarget)
			tt.model(m)
			res, _ := runImperfect(t, m, tt.vars...)
			assert.Equal(t, tt.code, res.code, "exit code; output:\n%s", res.all())
			at := 0
			for _, want := range tt.route {
				i := strings.Index(res.out[at:], want)
				if assert.GreaterOrEqual(t, i, 0, "the route lacks %q after what came before", want) {
					at += i
				}
			}
			secrets := tt.secrets
			if secrets == nil {
				secrets = []string{heldValue, heldName}
			}
			told, derivings := false, 0
			for i, req := range m.requests() {
				told = told || strings.Contains(req.text, tt.told)
				if req.state == "deriving" {
					derivings++
				}
				if req.state == "deriving" || derivings < tt.derivings || strings.Contains(req.text, "First write 3 to 6 examples from the target") {
					continue // these see the examples' inputs, or examples that are not the run's; they write no code
				}
				for _, secret := range secrets {
					if at := strings.Index(req.text, secret); at >= 0 {
						t.Errorf("request %d (%s) shows the held-out example's %q: ...%s...", i, req.state, secret, req.text[max(0, at-300):min(len(req.text), at+100)])
					}
				}
			}
			assert.True(t, told, "no request holds %q", tt.told)
			if t.Failed() {
				t.Logf("output:\n%s", res.out)
			}
		})
	}
}
