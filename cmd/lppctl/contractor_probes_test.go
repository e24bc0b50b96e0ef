package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// inchTenfold is the length converter with the inch ten times too long
// (0.254 m): right on every example (ft, km, mi, m and an unknown unit), the
// held-out one too, and wrong on every conversion from or to inches.
var inchTenfold = strings.Replace(lengthScript(map[string]string{"ft": "0.3048", "mi": "1609.344"}), `"in": 0.0254`, `"in": 0.254`, 1)

// Hidden probes: after the examples pass, a blind call proposes inputs no
// example uses with their values, a second blind call works the values out
// again from the inputs alone, and the probes both agree on run as
// held-out examples before a promotion. A skill wrong only where no example
// looks is never promoted; a probe the two calls disagree on is dropped, so
// a right skill is never refused for one call's slip.
func TestContractorHiddenProbes(t *testing.T) {
	changeFirst := func(from, to string) func(string) string {
		return func(s string) string { return strings.Replace(s, from, to, 1) }
	}
	tests := []mistakeScenario{
		{
			name: "a wrong inch factor no example exercises (0.254 m) fails the probes and, never fixed, ends in error naming them, nothing promoted",
			model: func(t *testing.T) *imperfectModel {
				m := newImperfectModel(t, lengthTarget)
				m.scripts = []string{inchTenfold}
				return m
			},
			vars:  []string{"max_iterations=2"},
			code:  exitPaused,
			route: []string{"confirming → probing  [is_satisfied]", "agreeing → probe_checking", "probe_checking → refining", "confirming → probe_checking", "probe_checking → refining", "recovering → error  next[3]", "paused in error"},
			check: func(t *testing.T, m *imperfectModel, res runResult, root string) {
				errText := fmt.Sprint(runVar(t, root, "error"))
				assert.Contains(t, errText, "implementation did not pass after 2 iteration(s) (max_iterations 2); the skill gave a wrong answer on 2 hidden probe(s) (inputs no example uses, whose values two independent derivations agree on); nothing was promoted; the last diagnostics:")
				assert.Contains(t, errText, "FAIL example 1 (probe; held out from the writer: its name, inputs and values are not shown)")
				assert.Equal(t, 1, m.callsOf("probing"), "the probes are asked for once per run")
				assert.Equal(t, 1, m.callsOf("probe_deriving"))
				for _, r := range m.requests() {
					if r.state == "planning" || r.state == "executing" || r.state == "evaluating" {
						for _, secret := range []string{"39.3701", "177.8", "100 cm in in", "7 in in mm"} {
							assert.NotContains(t, r.text, secret, "a %s request shows a probe", r.state)
						}
					}
				}
				assert.True(t, slicesContainSubstring(m.toldIn("planning"), "the skill passed its examples but gave a wrong answer on 2 hidden probe(s)"), "the refinement is told: %v", m.toldIn("planning"))
			},
		},
		{
			name: "the same wrong inch factor, fixed when told of the failing probes, ships right",
			model: func(t *testing.T) *imperfectModel {
				m := newImperfectModel(t, lengthTarget)
				m.scripts = []string{inchTenfold, lengthTarget.good}
				return m
			},
			route:  []string{"agreeing → probe_checking", "probe_checking → refining", "confirming → probe_checking", "probe_checking → promoting  [probes_ok]", "completed in complete"},
			probes: lengthProbes(),
		},
		{
			name: "a probe whose value the proposing call gets wrong disagrees with the second derivation and is dropped: the right skill ships",
			model: func(t *testing.T) *imperfectModel {
				return newImperfectModel(t, lengthTarget).seed("probing", 0, changeFirst(`"result":39.3701`, `"result":3.937`))
			},
			route:  []string{"agreeing → probe_checking", "probe_checking → promoting  [probes_ok]", "completed in complete"},
			probes: lengthProbes(),
			check: func(t *testing.T, m *imperfectModel, res runResult, root string) {
				assert.Contains(t, res.out, "probes: 4 proposed, 3 kept (two derivations agree); dropped: probe 1: the two derivations differ on result")
			},
		},
		{
			name: "a second derivation that slips on every probe drops them all: the right skill ships (the examples and the score stand for it)",
			model: func(t *testing.T) *imperfectModel {
				return newImperfectModel(t, lengthTarget).seed("probe_deriving", 0, func(s string) string {
					for _, v := range []string{"39.3701", "177.8", "1.609344"} {
						s = strings.Replace(s, `"result":`+v, `"result":1`, 1)
					}
					return strings.Replace(s, `"result":9`, `"result":27`, 1)
				})
			},
			route:  []string{"agreeing → promoting", "completed in complete"},
			probes: lengthProbes(),
			check: func(t *testing.T, m *imperfectModel, res runResult, root string) {
				assert.Contains(t, res.out, "probes: 4 proposed, 0 kept")
				assert.NotContains(t, res.out, "probe_checking")
			},
		},
		{
			name: "a probe reply that is not JSON is asked again, as any malformed reply; the next one's probes run",
			model: func(t *testing.T) *imperfectModel {
				return newImperfectModel(t, lengthTarget).seed("probing", 0, func(string) string { return "Here are some probes: 100 cm, 7 in, 3 yd." })
			},
			route:  []string{"agreeing → probe_checking", "probe_checking → promoting  [probes_ok]", "completed in complete"},
			probes: lengthProbes(),
			check: func(t *testing.T, m *imperfectModel, res runResult, root string) {
				assert.Equal(t, 2, m.callsOf("probing"))
				assert.True(t, slicesContainSubstring(m.toldIn("probing"), "invalid"), "the repair names the problem: %v", m.toldIn("probing"))
			},
		},
		{
			name: "probe replies that are never JSON end the run in error, nothing promoted (a broken check never lets a skill through)",
			model: func(t *testing.T) *imperfectModel {
				m := newImperfectModel(t, lengthTarget)
				for n := 0; n < 12; n++ {
					m.seed("probing", n, func(string) string { return "{probes: oops" })
				}
				return m
			},
			vars:  []string{"max_iterations=2"},
			code:  exitPaused,
			route: []string{"probing → recovering", "recovering → refining", "probing → recovering", "recovering → error  next[3]", "paused in error"},
			check: func(t *testing.T, m *imperfectModel, res runResult, root string) {
				assert.Contains(t, fmt.Sprint(runVar(t, root, "error")), "probing failed: ")
			},
		},
		{
			name: "a skill whose examples cover every case (the model proposes no probe) ships without a second call",
			model: func(t *testing.T) *imperfectModel {
				m := newImperfectModel(t, lengthTarget)
				m.tg.probes = []map[string]any{}
				return m
			},
			route:  []string{"probing → promoting", "completed in complete"},
			probes: lengthProbes(),
			check: func(t *testing.T, m *imperfectModel, res runResult, root string) {
				assert.Equal(t, 0, m.callsOf("probe_deriving"))
			},
		},
	}
	runMistakeScenarios(t, tests)
}

// A contractor run killed (SIGKILL, no cleanup) right after each probe step
// is journaled, or in the middle of one's journal line, resumes to the same
// end: the probes agreed on run, and the skill is promoted.
func TestContractorKilledAroundTheProbesResumes(t *testing.T) {
	bin := buildLppctl(t)
	ref := newContractorProject(t)
	noProvider(t)
	res := runChild(t, bin, ref, "", "run", "specs/skill_contractor.yaml", "--var", "target="+contractorTarget, "--yes")
	require.Equal(t, 0, res.code, "reference run:\n%s", res.out)
	m := regexp.MustCompile(`\[(\d+)\] confirming → probing`).FindStringSubmatch(res.out)
	require.NotNil(t, m, "the reference run never asked for probes:\n%s", res.out)
	p, _ := strconv.Atoi(m[1])
	// Step p+1 is probing, p+2 probe_deriving, p+3 agreeing, p+4 probe_checking.
	for _, point := range []string{
		fmt.Sprintf("journal-after-write:%d", p+1), fmt.Sprintf("journal-mid-write:%d", p+2),
		fmt.Sprintf("journal-after-write:%d", p+3), fmt.Sprintf("journal-after-write:%d", p+4),
	} {
		t.Run(point, func(t *testing.T) {
			root := newContractorProject(t)
			res := runChild(t, bin, root, point, "run", "specs/skill_contractor.yaml", "--var", "target="+contractorTarget, "--yes")
			require.True(t, res.killed, "the process was not killed at %s (exit %d)\n%s", point, res.code, res.out)
			id := runIDIn(t, root)
			res = runChild(t, bin, root, "", "resume", "--no-input", id)
			require.Equal(t, 0, res.code, "resume:\n%s", res.out)
			assert.Contains(t, res.out, "completed in complete")
			assert.FileExists(t, filepath.Join(root, "output", "contractor", "word_stats", "scripts", "word_stats.py"))
			show := runChild(t, bin, root, "", "runs", "show", id)
			assert.Regexp(t, `state:\s+complete`, show.out)
			assert.Regexp(t, `probes_ok\s+= true`, show.out, "the agreed probes ran before the promotion:\n%s", show.out)
			assert.Regexp(t, `probes_report\s+= "probes: 2 proposed, 2 kept`, show.out)
		})
	}
}
