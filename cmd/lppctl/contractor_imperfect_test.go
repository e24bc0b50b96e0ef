package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runImperfect runs the contractor on a fresh project with the imperfect
// model building its target.
func runImperfect(t *testing.T, m *imperfectModel, vars ...string) (runResult, string) {
	t.Helper()
	root := newContractorProject(t)
	noProvider(t)
	t.Setenv("OPENAI_API_BASE", m.srv.URL)
	t.Setenv("OPENAI_API_KEY", "test-key")
	args := []string{"run", "specs/skill_contractor.yaml", "--llm", "openai:imperfect", "--var", "target=" + m.tg.target}
	for _, v := range vars {
		args = append(args, "--var", v)
	}
	return contractorRun(t, root, args...), root
}

// skillGives installs the promoted skill, runs its spec on each example
// (its files written into the installed folder first) and asserts what
// the run logs and the variables the example expects.
func skillGives(t *testing.T, root string, tg codingTarget) {
	t.Helper()
	res := contractorRun(t, root, "skills", "install", "output/contractor/"+tg.skill)
	require.Equal(t, 0, res.code, "install:\n%s", res.all())
	for _, ex := range tg.examples {
		files, _ := ex["files"].(map[string]any)
		for p, text := range files {
			path := filepath.Join(root, "skills", tg.skill, filepath.FromSlash(p))
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, []byte(fmt.Sprint(text)), 0o644))
		}
		args := []string{"run", "skills/" + tg.skill + "/" + tg.skill + ".yaml", "--json"}
		for k, v := range ex["vars"].(map[string]any) {
			args = append(args, "--var", fmt.Sprintf("%s=%v", k, v))
		}
		res := contractorRun(t, root, args...)
		if ex["kind"] == "error" {
			// An error example: the run fails, or ends in a state of its own.
			assert.False(t, res.code == 0 && strings.Contains(res.out, `"state":"done"`), "error example %v ended in done:\n%s", ex["name"], res.out)
			continue
		}
		require.Equal(t, 0, res.code, "the installed skill on %v:\n%s", ex["name"], res.all())
		require.Contains(t, res.out, `"state":"done"`, "example %v ended elsewhere:\n%s", ex["name"], res.out)
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
		for k, v := range ex["expect"].(map[string]any) {
			want, _ := strconv.ParseFloat(fmt.Sprint(v), 64)
			got, ok := final[k].(float64)
			require.True(t, ok, "example %v: the run did not write %s:\n%s", ex["name"], k, res.out)
			if want == 0 {
				assert.InDelta(t, want, got, 1e-9, "example %v: %s", ex["name"], k)
				continue
			}
			assert.InEpsilon(t, want, got, 1e-4, "example %v: %s", ex["name"], k)
		}
	}
}

func TestContractorImperfectModel(t *testing.T) {
	tests := []struct {
		name  string
		model func(t *testing.T) *imperfectModel
		vars  []string
		code  int
		route []string          // in the run's output, in this order
		told  map[string]string // state → a substring of one of the messages it was sent
		check func(t *testing.T, m *imperfectModel, res runResult, root string)
	}{
		{
			name: "wrong logic (12 ft = 3.6 m) fails its examples and a refinement that sees them fixes it",
			model: func(t *testing.T) *imperfectModel {
				m := newImperfectModel(t, lengthTarget)
				m.scripts = []string{lengthTarget.wrong, lengthTarget.good}
				return m
			},
			route: []string{`validating → planning  [checks_ok && phase == "blueprint"]`, "validating → refining", "validating → eval_interactive", "probe_checking → promoting  [probes_ok]", "completed in complete"},
			told: map[string]string{
				"planning":  `FAIL example 1 "12 ft in m" (vars {"from_unit":"ft","to_unit":"m","value":12}): result: expected 3.6576, got 3.6`,
				"executing": "The files as they are now: edit what failed and keep what works.\n=== scripts/convert.py\n\"\"\"Convert a length",
			},
			check: func(t *testing.T, m *imperfectModel, res runResult, root string) {
				// Example 2 is held out: the writer learns that it failed, never its inputs or values.
				assert.Contains(t, m.toldIn("executing")[3], `FAIL example 2 (typical; held out from the writer: its name, inputs and values are not shown): the run did not give what it expects (it checks result)`)
				for i, p := range m.toldIn("executing") {
					assert.NotContains(t, p, "3.10686", "executing prompt %d shows the held-out example's value", i)
					assert.NotContains(t, p, "5 km in mi", "executing prompt %d shows the held-out example's name", i)
				}
				assert.Contains(t, m.toldIn("evaluating")[0], "TO_M = {", "the score sees the scripts")
				assert.Contains(t, m.toldIn("evaluating")[0], `pass example 1 "12 ft in m"`, "the score sees the examples' results")
				skillGives(t, root, lengthTarget)
			},
		},
		{
			name: "wrong logic that is never fixed ends in error, never in complete, even with a high score",
			model: func(t *testing.T) *imperfectModel {
				m := newImperfectModel(t, lengthTarget)
				m.scripts = []string{lengthTarget.wrong}
				m.scores = []int{99}
				return m
			},
			vars:  []string{"max_iterations=2"},
			code:  exitPaused,
			route: []string{"validating → refining", "refining → recovering  [iteration >= max_iterations]", "recovering → error  next[3]", "paused in error"},
			check: func(t *testing.T, m *imperfectModel, res runResult, root string) {
				assert.NotContains(t, res.out, "→ promoting")
				assert.NotContains(t, res.out, "→ complete")
				assert.Zero(t, m.callsOf("evaluating"), "a skill whose examples fail is not scored")
				assert.NoDirExists(t, filepath.Join(root, "output", "contractor", "length_conv"), "nothing was promoted")
				assert.Contains(t, fmt.Sprint(runVar(t, root, "error")), "result: expected 3.6576, got 3.6")
				// The same failures after a refinement of the scripts reopened phase 1 once.
				assert.Contains(t, res.out, "validating → planning  [phase == \"implementation\" && reopens < max_reopens")
				assert.Equal(t, 1, int(runVar(t, root, "reopens").(float64)))
			},
		},
		{
			name: "a script rewritten after the examples passed is never promoted by the max_iterations route",
			model: func(t *testing.T) *imperfectModel {
				m := newImperfectModel(t, lengthTarget)
				m.scripts = []string{lengthTarget.good, lengthTarget.wrong}
				m.scores = []int{55}
				m.replanAll = true
				for n := 4; n < 13; n++ { // the refinement's documents step never parses
					m.seed("executing", n, func(string) string { return "no JSON today" })
				}
				return m
			},
			vars:  []string{"max_iterations=2"},
			code:  exitPaused,
			route: []string{"evaluating → refining", "parsing → reviewing  [step_error_count + 1 >= max_errors]", "refining → recovering  [iteration >= max_iterations]", "recovering → error  next[3]"},
			check: func(t *testing.T, m *imperfectModel, res runResult, root string) {
				assert.NotContains(t, res.out, "→ promoting")
				assert.Equal(t, 2, m.written["script"], "the wrong script was written after the examples passed")
				assert.NoDirExists(t, filepath.Join(root, "output", "contractor", "length_conv"))
			},
		},
		{
			name: "fenced JSON, prose around JSON, trailing commas and raw line breaks are read without a repair",
			model: func(t *testing.T) *imperfectModel {
				m := newImperfectModel(t, csvTarget)
				m.seed("planning", 0, func(s string) string { return prose(trailingCommas(s)) })
				m.seed("planning", 1, fenced)
				m.seed("executing", 0, func(s string) string { return fenced(literalNewlines(s)) })
				m.seed("executing", 1, func(s string) string { return prose(trailingCommas(literalNewlines(s))) })
				m.seed("evaluating", 0, func(s string) string { return fenced(trailingCommas(s)) })
				return m
			},
			route: []string{"probe_checking → promoting  [probes_ok]", "completed in complete"},
			check: func(t *testing.T, m *imperfectModel, res runResult, root string) {
				assert.NotContains(t, res.out, "asking again")
				assert.NotContains(t, res.out, "repair_attempts < max_repairs")
				assert.Equal(t, 2, m.callsOf("planning"))
				assert.Equal(t, 3, m.callsOf("executing"))
				skillGives(t, root, csvTarget)
			},
		},
		{
			name: "a missing comma is sent back with its line and column, not as missing properties",
			model: func(t *testing.T) *imperfectModel {
				return newImperfectModel(t, csvTarget).seed("planning", 0, missingComma)
			},
			route: []string{"the reply was invalid (the reply's JSON does not parse: line 2, column 1:", "completed in complete"},
			told:  map[string]string{"planning": `Your reply was invalid: the reply's JSON does not parse: line 2, column 1: "\"" where a comma or the closing bracket belongs (a missing comma?)`},
			check: func(t *testing.T, m *imperfectModel, res runResult, root string) {
				for _, msg := range m.toldIn("planning") {
					assert.NotContains(t, msg, "missing properties")
				}
			},
		},
		{
			name: "a deadlocked first blueprint is refused by validation and only the blueprint is rewritten",
			model: func(t *testing.T) *imperfectModel {
				m := newImperfectModel(t, logTarget)
				m.blueprints = []string{deadlocked(logTarget.rightBlueprint()), logTarget.rightBlueprint()}
				return m
			},
			route: []string{"validating → refining", "refining → planning", `validating → planning  [checks_ok && phase == "blueprint"]`, "completed in complete"},
			told:  map[string]string{"planning": `The last blueprint was rejected by the checks; plan a corrected one:` + "\n" + `output/contractor/log_counter.attempt/log_counter.yaml:12:3: error: state "count_lines" has no way out`},
			check: func(t *testing.T, m *imperfectModel, res runResult, root string) {
				assert.Equal(t, 2, m.written["blueprint"])
				skillGives(t, root, logTarget)
			},
		},
		{
			name: "a script path outside the skill is refused in phase 1 with the path to use",
			model: func(t *testing.T) *imperfectModel {
				m := newImperfectModel(t, logTarget)
				m.blueprints = []string{logTarget.blueprintWith("scripts/count_lines.py"), logTarget.rightBlueprint()}
				return m
			},
			route: []string{"validating → refining", `validating → planning  [checks_ok && phase == "blueprint"]`, "completed in complete"},
			told:  map[string]string{"planning": `output/contractor/log_counter.attempt/log_counter.yaml:15:15: state "count_lines" runs scripts/count_lines.py, which is not a script of the skill: name it skills/log_counter/scripts/count_lines.py`},
			check: func(t *testing.T, m *imperfectModel, res runResult, root string) {
				skillGives(t, root, logTarget)
			},
		},
		{
			name: "a forbidden import is refused by the check and the writer is told with the current file",
			model: func(t *testing.T) *imperfectModel {
				m := newImperfectModel(t, logTarget)
				m.scripts = []string{withImport(logTarget.good, "subprocess"), logTarget.good}
				return m
			},
			route: []string{"validating → refining", "completed in complete"},
			told: map[string]string{
				"executing": "imports subprocess: subprocess runs other programs",
			},
			check: func(t *testing.T, m *imperfectModel, res runResult, root string) {
				assert.Contains(t, m.toldIn("executing")[3], "=== scripts/count_lines.py\n\"\"\"Count log lines")
				skillGives(t, root, logTarget)
			},
		},
		{
			name: "a low first self-score is refined with its feedback",
			model: func(t *testing.T) *imperfectModel {
				m := newImperfectModel(t, lengthTarget)
				m.scores = []int{55, 90}
				return m
			},
			route: []string{"evaluating → refining", "probe_checking → promoting  [probes_ok]", "completed in complete"},
			told:  map[string]string{"executing": "Why the last version failed (fix exactly this):\nthe evidence was read"},
		},
		{
			name: "an oversized reply is refused unread and asked again, and never journaled",
			model: func(t *testing.T) *imperfectModel {
				return newImperfectModel(t, lengthTarget).seed("executing", 0, oversized)
			},
			route: []string{"more than max_reply_chars (200000); asking again", "completed in complete"},
			told:  map[string]string{"executing": "Your reply was refused unread: the reply has 300"},
			check: func(t *testing.T, m *imperfectModel, res runResult, root string) {
				journals, _ := filepath.Glob(filepath.Join(root, ".lppctl", "runs", "*", "journal.jsonl"))
				require.Len(t, journals, 1)
				b, err := os.ReadFile(journals[0])
				require.NoError(t, err)
				assert.NotContains(t, string(b), strings.Repeat(" ", 1000))
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.model(t)
			res, root := runImperfect(t, m, tt.vars...)
			require.Equal(t, tt.code, res.code, "exit code; output:\n%s", res.all())
			at := 0
			for _, want := range tt.route {
				i := strings.Index(res.out[at:], want)
				if !assert.GreaterOrEqual(t, i, 0, "the route lacks %q after what came before", want) {
					continue
				}
				at += i
			}
			for state, want := range tt.told {
				assert.True(t, slicesContainSubstring(m.toldIn(state), want), "no %s message holds %q; they were:\n%s", state, want, strings.Join(m.toldIn(state), "\n---\n"))
			}
			if tt.check != nil {
				tt.check(t, m, res, root)
			}
			if t.Failed() {
				t.Logf("output:\n%s", res.out)
			}
		})
	}
}

// The seed's rules: settings from the environment (--var wins), bounded
// automatic recovery, no model call after a step's error budget, each
// failed step listed once, and files of an earlier run never counted.
func TestContractorSeedRules(t *testing.T) {
	t.Run("EVAL_THRESHOLD and MAX_ITERATIONS come from the environment and --var wins", func(t *testing.T) {
		for _, tt := range []struct {
			name        string
			env         map[string]string
			vars        []string
			scores      []int
			evaluations int
			code        int
			route       string
		}{
			{name: "EVAL_THRESHOLD=95 refuses a 90", env: map[string]string{"EVAL_THRESHOLD": "95"}, scores: []int{90, 96}, evaluations: 2, route: "evaluating → refining"},
			{name: "--var threshold=85 wins over EVAL_THRESHOLD=95", env: map[string]string{"EVAL_THRESHOLD": "95"}, vars: []string{"threshold=85"}, scores: []int{90}, evaluations: 1, route: "probe_checking → promoting  [probes_ok]"},
			{name: "MAX_ITERATIONS=1 stops a skill whose score stays under the threshold after one refinement, unpromoted", env: map[string]string{"MAX_ITERATIONS": "1"}, scores: []int{50}, evaluations: 1, code: exitPaused, route: "recovering → error  next[3]"},
			{name: "--var max_iterations=3 wins over MAX_ITERATIONS=1", env: map[string]string{"MAX_ITERATIONS": "1"}, vars: []string{"max_iterations=3"}, scores: []int{50}, evaluations: 3, code: exitPaused, route: "recovering → error  next[3]"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				m := newImperfectModel(t, lengthTarget)
				m.scores = tt.scores
				root := newContractorProject(t)
				noProvider(t)
				for k, v := range tt.env {
					t.Setenv(k, v)
				}
				t.Setenv("OPENAI_MODEL", "imperfect-1")
				t.Setenv("OPENAI_API_BASE", m.srv.URL)
				t.Setenv("OPENAI_API_KEY", "test-key")
				args := []string{"run", "specs/skill_contractor.yaml", "--llm", "openai:imperfect", "--var", "target=" + m.tg.target}
				for _, v := range tt.vars {
					args = append(args, "--var", v)
				}
				res := contractorRun(t, root, args...)
				require.Equal(t, tt.code, res.code, res.all())
				assert.Contains(t, res.out, tt.route)
				assert.Equal(t, tt.evaluations, m.callsOf("evaluating"))
				if tt.code != 0 {
					// The scorer's verdict stands: nothing is promoted, and the error says the score.
					assert.NoDirExists(t, filepath.Join(root, "output", "contractor", m.tg.skill))
					assert.Contains(t, runVar(t, root, "error"), "; the last score 50 is under pass_score 80; nothing was promoted; the last diagnostics:\nthe evidence was read")
				}
				assert.Equal(t, "imperfect-1", runVar(t, root, "model"))
			})
		}
	})

	t.Run("a SUBMIT with an empty target is refused and the run keeps waiting", func(t *testing.T) {
		root := newContractorProject(t)
		noProvider(t)
		res := contractorRun(t, root, "run", "specs/skill_contractor.yaml")
		require.Equal(t, exitPaused, res.code, res.all())
		id := regexp.MustCompile(`lppctl resume (\S+) --event`).FindStringSubmatch(res.out)
		require.NotNil(t, id, res.all())
		res = contractorRun(t, root, "resume", id[1], "--event", "SUBMIT", "--payload", `{"target": ""}`)
		assert.Equal(t, exitUsage, res.code, res.all())
		assert.Contains(t, res.all(), `cannot fire event "SUBMIT" in state "idle": its guard "event.payload.target != \"\"" is false (a SUBMIT needs a target)`)
	})

	t.Run("a step that keeps failing costs no call after its budget, is listed once, and an earlier run's files never count", func(t *testing.T) {
		m := newImperfectModel(t, logTarget)
		for n := 0; n < 40; n++ {
			m.seed("executing", n, func(string) string { return "I am not sure what to write." })
		}
		m.reviews = []string{"skip"}
		root := newContractorProject(t)
		// An earlier run left a good blueprint in the attempt folder and a finished skill.
		for _, dir := range []string{"log_counter.attempt", "log_counter"} {
			p := filepath.Join(root, "output", "contractor", dir, "log_counter.yaml")
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte(logTarget.rightBlueprint()), 0o644))
		}
		noProvider(t)
		t.Setenv("OPENAI_API_BASE", m.srv.URL)
		t.Setenv("OPENAI_API_KEY", "test-key")
		res := contractorRun(t, root, "run", "specs/skill_contractor.yaml", "--llm", "openai:imperfect", "--var", "target="+logTarget.target, "--var", "max_iterations=2")
		require.Equal(t, exitPaused, res.code, res.all())
		// max_errors (3) rounds of 1 call + max_repairs (2) repairs, then reviewing: no 10th call.
		assert.Equal(t, 9*m.callsOf("reviewing"), m.callsOf("executing"))
		assert.Contains(t, res.out, "parsing → reviewing  [step_error_count + 1 >= max_errors]")
		assert.Equal(t, []any{float64(1)}, runVar(t, root, "failed_steps"))
		assert.GreaterOrEqual(t, m.callsOf("reviewing"), 2)
		// The earlier run's blueprint was cleared, not validated as this run's.
		assert.Contains(t, fmt.Sprint(runVar(t, root, "error")), "output/contractor/log_counter.attempt/log_counter.yaml: cannot read the spec")
		assert.FileExists(t, filepath.Join(root, "output", "contractor", "log_counter", "log_counter.yaml"), "a finished skill is replaced only on success")
	})
}
