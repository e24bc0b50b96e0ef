package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// contractorBaseline is the commit before the contractor ran examples: the
// campaign's "today".
const contractorBaseline = "1aeb7d5"

// campaign is the seeded runs the token figures of docs/contractor.md come
// from: every target with each kind of mistake.
func campaign(t *testing.T) map[string]func(t *testing.T) *imperfectModel {
	return map[string]func(t *testing.T) *imperfectModel{
		"length: clean": func(t *testing.T) *imperfectModel { return newImperfectModel(t, lengthTarget) },
		"length: wrong logic, then fixed": func(t *testing.T) *imperfectModel {
			m := newImperfectModel(t, lengthTarget)
			m.scripts = []string{lengthTarget.wrong, lengthTarget.good}
			return m
		},
		"length: low first score": func(t *testing.T) *imperfectModel {
			m := newImperfectModel(t, lengthTarget)
			m.scores = []int{55, 90}
			return m
		},
		"csv: fences, prose, commas, line breaks": func(t *testing.T) *imperfectModel {
			m := newImperfectModel(t, csvTarget)
			m.seed("planning", 0, func(s string) string { return prose(trailingCommas(s)) })
			m.seed("executing", 0, func(s string) string { return fenced(literalNewlines(s)) })
			m.seed("executing", 1, func(s string) string { return prose(trailingCommas(literalNewlines(s))) })
			return m
		},
		"csv: missing comma": func(t *testing.T) *imperfectModel {
			return newImperfectModel(t, csvTarget).seed("planning", 0, missingComma)
		},
		"csv: wrong logic, then fixed": func(t *testing.T) *imperfectModel {
			m := newImperfectModel(t, csvTarget)
			m.scripts = []string{csvTarget.wrong, csvTarget.good}
			return m
		},
		"log: deadlocked blueprint": func(t *testing.T) *imperfectModel {
			m := newImperfectModel(t, logTarget)
			m.blueprints = []string{deadlocked(logTarget.rightBlueprint()), logTarget.rightBlueprint()}
			return m
		},
		"log: forbidden import": func(t *testing.T) *imperfectModel {
			m := newImperfectModel(t, logTarget)
			m.scripts = []string{withImport(logTarget.good, "subprocess"), logTarget.good}
			return m
		},
	}
}

// TestContractorCampaignTokens runs the campaign on the contractor as it is
// and as it was at contractorBaseline (its spec, prompts, schemas and
// scripts from git), and logs the tokens of each finished run and the
// medians. Set LPPCTL_CONTRACTOR_CAMPAIGN=1 to run it (it takes minutes).
func TestContractorCampaignTokens(t *testing.T) {
	if os.Getenv("LPPCTL_CONTRACTOR_CAMPAIGN") == "" {
		t.Skip("set LPPCTL_CONTRACTOR_CAMPAIGN=1 to run the token campaign")
	}
	names := make([]string, 0)
	for n := range campaign(t) {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, version := range []string{"baseline", "now"} {
		var in, out []int
		for _, name := range names {
			t.Run(version+"/"+name, func(t *testing.T) {
				m := campaign(t)[name](t)
				root := newContractorProject(t)
				if version == "baseline" {
					restoreBaseline(t, root)
				}
				noProvider(t)
				t.Setenv("OPENAI_API_BASE", m.srv.URL)
				t.Setenv("OPENAI_API_KEY", "test-key")
				res := contractorRun(t, root, "run", "specs/skill_contractor.yaml", "--llm", "openai:imperfect", "--var", "target="+m.tg.target)
				if os.Getenv("LPPCTL_CONTRACTOR_CAMPAIGN") == "v" {
					for _, line := range strings.Split(res.out, "\n") {
						if i := strings.Index(line, "[prompt "); i > 0 {
							t.Logf("%s %s", strings.Fields(line)[0], line[i:])
						}
					}
				}
				finished := res.code == 0 && strings.Contains(res.out, "completed in complete")
				t.Logf("%-8s %-42s finished=%-5v %6d in %6d out", version, name, finished, m.tokens.in, m.tokens.out)
				if finished {
					in, out = append(in, m.tokens.in), append(out, m.tokens.out)
				}
			})
		}
		t.Logf("%-8s median per finished run (%d of %d): %d in / %d out", version, len(in), len(names), median(in), median(out))
	}
}

func median(v []int) int {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// restoreBaseline puts the contractor's files of contractorBaseline into
// the project.
func restoreBaseline(t *testing.T, root string) {
	t.Helper()
	repo := repoRoot(t)
	list, err := exec.Command("git", "-C", repo, "ls-tree", "-r", "--name-only", contractorBaseline, "specs/skill_contractor.yaml", "specs/contractor", "scripts/contractor").Output()
	require.NoError(t, err)
	for _, p := range strings.Fields(string(list)) {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		b, err := exec.Command("git", "-C", repo, "show", contractorBaseline+":"+p).Output()
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, p), b, 0o644))
	}
	for _, p := range []string{"scripts/contractor/read_step.py", "scripts/contractor/promote.py"} {
		_ = os.Remove(filepath.Join(root, p))
	}
}
