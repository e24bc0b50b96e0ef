package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The imperfect model makes one ordinary mistake per scenario (a rounding,
// a boundary, an argument order, a unit, a script fitted to the examples it
// was shown, a reply that corrects itself after its JSON, a defect the
// scorer writes only in its prose). Whatever it does, the contractor must
// never promote a skill that gives a wrong answer: a run that completes is
// checked on inputs the test computes itself (probes, never the model's
// examples), and a run the model cannot finish ends in error (exit 4) with
// nothing promoted.

// probe is an input of an installed skill and the values it must give,
// computed by the test; want nil: the run must fail (or end apart from
// done).
type probe struct {
	vars  map[string]any
	files map[string]string
	want  map[string]any
}

// probesHold installs the promoted skill and runs its spec on each probe.
func probesHold(t *testing.T, root string, tg codingTarget, probes []probe) {
	t.Helper()
	res := contractorRun(t, root, "skills", "install", "output/contractor/"+tg.skill)
	require.Equal(t, 0, res.code, "install:\n%s", res.all())
	for i, p := range probes {
		for path, text := range p.files {
			full := filepath.Join(root, "skills", tg.skill, filepath.FromSlash(path))
			require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
			require.NoError(t, os.WriteFile(full, []byte(text), 0o644))
		}
		args := []string{"run", "skills/" + tg.skill + "/" + tg.skill + ".yaml", "--json"}
		for k, v := range p.vars {
			args = append(args, "--var", fmt.Sprintf("%s=%v", k, v))
		}
		res := contractorRun(t, root, args...)
		if p.want == nil {
			assert.False(t, res.code == 0 && strings.Contains(res.out, `"state":"done"`), "probe %d %v: an invalid input ended in done:\n%s", i, p.vars, res.out)
			continue
		}
		require.Equal(t, 0, res.code, "probe %d %v:\n%s", i, p.vars, res.all())
		final := map[string]any{}
		for _, line := range strings.Split(strings.TrimSpace(res.out), "\n") {
			var rec struct {
				Vars map[string]any `json:"vars"`
			}
			require.NoError(t, json.Unmarshal([]byte(line), &rec))
			for k, v := range rec.Vars {
				final[k] = v
			}
		}
		for k, want := range p.want {
			switch w := want.(type) {
			case float64:
				got, ok := final[k].(float64)
				require.True(t, ok, "probe %d %v: %s is %v", i, p.vars, k, final[k])
				assert.LessOrEqual(t, math.Abs(got-w), 1e-9*math.Max(1, math.Abs(w)), "probe %d %v: %s = %v, want %v", i, p.vars, k, got, w)
			default:
				assert.Equal(t, want, final[k], "probe %d %v: %s", i, p.vars, k)
			}
		}
	}
}

// metres is the test's own table of the units' lengths (exact definitions).
var metres = map[string]float64{"m": 1, "km": 1000, "cm": 0.01, "mm": 0.001, "ft": 0.3048, "in": 0.0254, "yd": 0.9144, "mi": 1609.344}

func lengthProbes() []probe {
	var out []probe
	for _, c := range []struct {
		value    float64
		from, to string
	}{{3, "yd", "ft"}, {100, "cm", "in"}, {1, "mi", "km"}, {2.5, "km", "m"}, {7, "in", "mm"}, {12, "ft", "m"}} {
		out = append(out, probe{vars: map[string]any{"value": c.value, "from_unit": c.from, "to_unit": c.to}, want: map[string]any{"result": c.value * metres[c.from] / metres[c.to]}})
	}
	return append(out, probe{vars: map[string]any{"value": 1, "from_unit": "furlong", "to_unit": "m"}})
}

// letter is the test's own grading rule.
func letter(score float64) string {
	switch {
	case score >= 90:
		return "A"
	case score >= 80:
		return "B"
	case score >= 70:
		return "C"
	case score >= 60:
		return "D"
	}
	return "F"
}

func gradeProbes() []probe {
	var out []probe
	for _, s := range []float64{100, 90, 89, 80, 79.5, 70, 69, 60, 59, 0} {
		out = append(out, probe{vars: map[string]any{"score": s}, want: map[string]any{"grade": letter(s)}})
	}
	return append(out, probe{vars: map[string]any{"score": 101}}, probe{vars: map[string]any{"score": -1}})
}

var gradeTarget = codingTarget{
	target: "a skill that turns an exam score from 0 to 100 into a letter grade: A for 90 and above, B from 80, C from 70, D from 60, else F; a score outside 0..100 is refused",
	skill:  "grader", script: "grade.py",
	examples: []map[string]any{
		{"name": "95 is an A", "kind": "typical", "vars": map[string]any{"score": 95}, "expect": map[string]any{"grade": "A"}},
		{"name": "72 is a C", "kind": "typical", "vars": map[string]any{"score": 72}, "expect": map[string]any{"grade": "C"}},
		{"name": "exactly 80 is a B", "kind": "edge", "vars": map[string]any{"score": 80}, "expect": map[string]any{"grade": "B"}},
		{"name": "a score over 100", "kind": "error", "vars": map[string]any{"score": 101}, "expect": map[string]any{}},
	},
	probes: []map[string]any{
		{"name": "85 is a B", "vars": map[string]any{"score": 85}, "expect": map[string]any{"grade": "B"}},
		{"name": "65 is a D", "vars": map[string]any{"score": 65}, "expect": map[string]any{"grade": "D"}},
		{"name": "exactly 90 is an A", "vars": map[string]any{"score": 90}, "expect": map[string]any{"grade": "A"}},
		{"name": "30 is an F", "vars": map[string]any{"score": 30}, "expect": map[string]any{"grade": "F"}},
	},
	blueprint: `lpp: 1
name: grader
description: Turn an exam score into a letter grade.
limits: {max_transitions: 10}
context:
  score:  {type: float, default: 0}
  grade:  {type: string, default: ""}
  report: {type: string, default: ""}
initial: grade
states:
  grade:
    do: script.run
    with:
      script: SCRIPT
      input: {score: score}
      output: {grade: grade, report: report}
    next: [done]
    on_error: failed
  done:
    final: true
    do: log
    with: {message: graded, value: report}
  failed:
    final: true
    do: log
    with: {message: cannot grade, value: last_error}
`,
	good:  gradeScript(">="),
	wrong: gradeScript(">"),
}

func gradeScript(cmp string) string {
	return `"""Grade a score: {score} on stdin; {grade, report} on stdout."""
import json
import sys


def main():
    data = json.load(sys.stdin)
    score = float(data["score"])
    if not 0 <= score <= 100:
        sys.exit("score %g is outside 0..100" % score)
    grade = "F"
    for limit, name in ((90, "A"), (80, "B"), (70, "C"), (60, "D")):
        if score ` + cmp + ` limit:
            grade = name
            break
    print(json.dumps({"grade": grade, "report": "%g is %s" % (score, grade)}))


if __name__ == "__main__":
    main()
`
}

const lengthFormula = `result = value * TO_M[data["from_unit"]] / TO_M[data["to_unit"]]`

func TestContractorOrdinaryMistakesNeverShip(t *testing.T) {
	filesReply := func(path, text string) string {
		b, _ := json.Marshal(map[string]any{"files": map[string]string{path: text}})
		return string(b)
	}
	tests := []mistakeScenario{
		{
			name: "wrong rounding (round(x, 2): 12 ft = 3.66 m) never fixed ends in error, nothing promoted",
			model: func(t *testing.T) *imperfectModel {
				m := newImperfectModel(t, lengthTarget)
				m.scripts = []string{strings.Replace(lengthTarget.good, lengthFormula, `result = round(value * TO_M[data["from_unit"]] / TO_M[data["to_unit"]], 2)`, 1)}
				m.scores = []int{97}
				return m
			},
			vars:  []string{"max_iterations=2"},
			code:  exitPaused,
			route: []string{"validating → refining", "recovering → error  next[3]", "paused in error"},
			check: func(t *testing.T, m *imperfectModel, res runResult, root string) {
				assert.Contains(t, fmt.Sprint(runVar(t, root, "error")), "result: expected 3.6576, got 3.66")
			},
		},
		{
			name: "off by one on a boundary (score > 80 for a B) is caught by the edge example and fixed; the skill grades every boundary right",
			model: func(t *testing.T) *imperfectModel {
				m := newImperfectModel(t, gradeTarget)
				m.scripts = []string{gradeTarget.wrong, gradeTarget.good}
				return m
			},
			route:  []string{"validating → refining", "validating → eval_interactive", "probe_checking → promoting  [probes_ok]", "completed in complete"},
			probes: gradeProbes(),
			check: func(t *testing.T, m *imperfectModel, res runResult, root string) {
				assert.True(t, slicesContainSubstring(m.toldIn("planning"), `FAIL example 3 "exactly 80 is a B" (vars {"score":80}): grade: expected "B", got "C"`), "the refinement is told the boundary: %v", m.toldIn("planning"))
			},
		},
		{
			name: "swapped arguments (to/from) fail every conversion and are fixed; the skill converts right",
			model: func(t *testing.T) *imperfectModel {
				m := newImperfectModel(t, lengthTarget)
				m.scripts = []string{strings.Replace(lengthTarget.good, lengthFormula, `result = value * TO_M[data["to_unit"]] / TO_M[data["from_unit"]]`, 1), lengthTarget.good}
				return m
			},
			route:  []string{"validating → refining", "probe_checking → promoting  [probes_ok]", "completed in complete"},
			probes: lengthProbes(),
		},
		{
			name: "a wrong unit (the nautical mile for mi) that only the held-out example catches is never promoted, and the writer never sees that example",
			model: func(t *testing.T) *imperfectModel {
				m := newImperfectModel(t, lengthTarget)
				m.scripts = []string{lengthScript(map[string]string{"ft": "0.3048", "mi": "1852.0"})}
				m.scores = []int{95}
				return m
			},
			vars:  []string{"max_iterations=2"},
			code:  exitPaused,
			route: []string{"validating → refining", "recovering → error  next[3]", "paused in error"},
			check: func(t *testing.T, m *imperfectModel, res runResult, root string) {
				assert.Contains(t, fmt.Sprint(runVar(t, root, "error")), "FAIL example 2 (typical; held out from the writer: its name, inputs and values are not shown)")
				for _, r := range m.requests() {
					if r.state == "executing" {
						assert.NotContains(t, r.text, "3.10686")
					}
				}
			},
		},
		{
			name: "a script right on the examples it was shown but wrong elsewhere (a table of them) fails the held-out one and is never promoted",
			model: func(t *testing.T) *imperfectModel {
				m := newImperfectModel(t, lengthTarget)
				m.scripts = []string{strings.Replace(lengthTarget.good, lengthFormula, `shown = {(12.0, "ft", "m"): 3.6576, (0.0, "m", "km"): 0.0}
    result = shown.get((value, data["from_unit"], data["to_unit"]), value)`, 1)}
				m.scores = []int{99}
				return m
			},
			vars:  []string{"max_iterations=2"},
			code:  exitPaused,
			route: []string{"validating → refining", "recovering → error  next[3]", "paused in error"},
			check: func(t *testing.T, m *imperfectModel, res runResult, root string) {
				assert.Contains(t, fmt.Sprint(runVar(t, root, "error")), "the code is right on the examples it was shown but not on this one")
			},
		},
		{
			name: "a fenced reply followed by a corrected one is asked again, never written as its draft; the skill's statistics are right",
			model: func(t *testing.T) *imperfectModel {
				m := newImperfectModel(t, csvTarget)
				m.seed("executing", 1, func(s string) string {
					return "Here is the script:\n```json\n" + filesReply("scripts/stats.py", csvTarget.wrong) + "\n```\nWait, the mean divides by one too many. Corrected:\n```json\n" + s + "\n```"
				})
				return m
			},
			route: []string{"parsing → executing  [repair_attempts < max_repairs]", "probe_checking → promoting  [probes_ok]", "completed in complete"},
			probes: []probe{
				{vars: map[string]any{"csv_path": "skills/csv_stats/reference/p1.csv", "column": "x"}, files: map[string]string{"reference/p1.csv": "x\n10\n20\n"}, want: map[string]any{"count": 2.0, "mean": 15.0, "maximum": 20.0}},
				{vars: map[string]any{"csv_path": "skills/csv_stats/reference/p2.csv", "column": "v"}, files: map[string]string{"reference/p2.csv": "k,v\na,-5\nb,0\nc,5\nd,12\n"}, want: map[string]any{"count": 4.0, "mean": 3.0, "maximum": 12.0}},
				{vars: map[string]any{"csv_path": "skills/csv_stats/reference/none.csv", "column": "v"}},
			},
			check: func(t *testing.T, m *imperfectModel, res runResult, root string) {
				assert.True(t, slicesContainSubstring(m.toldIn("executing"), `the reply holds 2 different JSON objects with "files"`), "the writer is told why")
			},
		},
		{
			name: "a fenced reply followed by a correction in prose only is written as it is, fails its examples and is fixed; the skill is right",
			model: func(t *testing.T) *imperfectModel {
				m := newImperfectModel(t, csvTarget)
				m.seed("executing", 1, func(string) string {
					return "```json\n" + filesReply("scripts/stats.py", csvTarget.wrong) + "\n```\nOops: the mean should divide by len(values), not len(values) + 1; please fix that line."
				})
				return m
			},
			route: []string{"validating → refining", "probe_checking → promoting  [probes_ok]", "completed in complete"},
			probes: []probe{
				{vars: map[string]any{"csv_path": "skills/csv_stats/reference/p1.csv", "column": "x"}, files: map[string]string{"reference/p1.csv": "x\n1\n2\n3\n4\n"}, want: map[string]any{"count": 4.0, "mean": 2.5, "maximum": 4.0}},
			},
		},
		{
			name: "a plan whose steps quote every example that succeeds is sent back (none could be held out unseen), and the plan written again completes",
			model: func(t *testing.T) *imperfectModel {
				m := newImperfectModel(t, csvTarget)
				m.seed("planning", 0, func(s string) string {
					return strings.Replace(s, `"instruction":"the machine of `, `"instruction":"it reads skills/csv_stats/reference/a.csv (mean 3), skills/csv_stats/reference/b.csv or skills/csv_stats/reference/c.csv; the machine of `, 1)
				})
				return m
			},
			route: []string{"vetting → planning", "vetting → reading  [examples_ok]", "probe_checking → promoting  [probes_ok]", "completed in complete"},
			probes: []probe{
				{vars: map[string]any{"csv_path": "skills/csv_stats/reference/p1.csv", "column": "x"}, files: map[string]string{"reference/p1.csv": "x\n0.5\n1.5\n7\n"}, want: map[string]any{"count": 3.0, "mean": 3.0, "maximum": 7.0}},
			},
			check: func(t *testing.T, m *imperfectModel, res runResult, root string) {
				assert.True(t, slicesContainSubstring(m.toldIn("planning"), `quote a value of every example that succeeds (example 1 "three values", example 2 "one value", example 3 "negative values"), so none can be held out from the writer of the code unseen`), "the plan is told why: %v", m.toldIn("planning"))
				assert.Equal(t, 2, m.callsOf("deriving"), "the examples were derived again")
			},
		},
		{
			name: "a defect the scorer writes only in its prose (lower-case lines counted) is read back, refined and fixed; the skill counts right",
			model: func(t *testing.T) *imperfectModel {
				m := newImperfectModel(t, logTarget)
				m.scripts = []string{logScript(`line.split()[0].upper() == level`), logTarget.good}
				m.scores = []int{95, 92}
				m.feedbacks = []string{"Excellent: every example passes; though a line starting with lower-case \"error\" is counted as ERROR, which the target does not ask for.", "Counts the exact level only; every example passes."}
				m.defects = [][]string{{"a line starting with lower-case \"error\" is counted as ERROR"}, {}}
				return m
			},
			route: []string{"evaluating → confirming  [is_satisfied]", "confirming → refining", "probe_checking → promoting  [probes_ok]", "completed in complete"},
			probes: []probe{
				{vars: map[string]any{"log_path": "skills/log_counter/reference/p.log", "level": "ERROR"}, files: map[string]string{"reference/p.log": "ERROR a\nerror b\nINFO c\nERROR d\n"}, want: map[string]any{"count": 2.0}},
				{vars: map[string]any{"log_path": "skills/log_counter/reference/p.log", "level": "INFO"}, want: map[string]any{"count": 1.0}},
			},
			check: func(t *testing.T, m *imperfectModel, res runResult, root string) {
				assert.True(t, slicesContainSubstring(m.toldIn("confirming"), "though a line starting with lower-case"), "the read-back sees the feedback")
				assert.True(t, slicesContainSubstring(m.toldIn("planning"), `the scorer's feedback names 1 defect(s) its problems list left out: a line starting with lower-case "error" is counted as ERROR`))
			},
		},
	}
	runMistakeScenarios(t, tests)
}

// mistakeScenario is a contractor run against a model that makes one
// mistake: the run's exit code, its route (states in the output, in this
// order), what a completed run's skill gives, and a check of its own.
type mistakeScenario struct {
	name   string
	model  func(t *testing.T) *imperfectModel
	vars   []string
	code   int
	route  []string // in the run's output, in this order
	probes []probe  // a completed run's skill gives these
	check  func(t *testing.T, m *imperfectModel, res runResult, root string)
}

// runMistakeScenarios runs each scenario; a run that does not exit 0 must
// have promoted nothing.
func runMistakeScenarios(t *testing.T, tests []mistakeScenario) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.model(t)
			res, root := runImperfect(t, m, tt.vars...)
			require.Equal(t, tt.code, res.code, "exit code; output:\n%s\n%s", res.all(), contractorEvidence(root))
			at := 0
			for _, want := range tt.route {
				i := strings.Index(res.out[at:], want)
				if !assert.GreaterOrEqual(t, i, 0, "the route lacks %q after what came before", want) {
					continue
				}
				at += i
			}
			if tt.code != 0 {
				assert.NotContains(t, res.out, "→ promoting")
				assert.NoDirExists(t, filepath.Join(root, "output", "contractor", m.tg.skill), "nothing was promoted")
			}
			if tt.probes != nil {
				probesHold(t, root, m.tg, tt.probes)
			}
			if tt.check != nil {
				tt.check(t, m, res, root)
			}
			if t.Failed() {
				t.Logf("output:\n%s\n%s", res.out, contractorEvidence(root))
			}
		})
	}
}
