package skills

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Verdicts of SkillStats.Verdict.
const (
	VerdictHelps      = "helps"
	VerdictHurts      = "hurts"
	VerdictNoDiff     = "no difference"
	VerdictNoBaseline = "no baseline" // no step of its folders ran without it
	VerdictUnused     = "unused"      // never injected
)

// StepGroup sums the outcomes of a set of steps.
type StepGroup struct {
	Steps    int `json:"steps"`
	Passed   int `json:"passed"`
	FirstTry int `json:"first_try"`
	Retries  int `json:"retries"`
	Human    int `json:"human"`
	Tokens   int `json:"tokens"`
}

func (g *StepGroup) add(o Outcome) {
	g.Steps++
	if o.Outcome == OutcomePass {
		g.Passed++
	}
	if o.FirstTry() {
		g.FirstTry++
	}
	if o.Human {
		g.Human++
	}
	g.Retries += o.Retries
	g.Tokens += o.Tokens
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// PassRate is the share of the steps that passed (0 without steps).
func (g StepGroup) PassRate() float64 { return ratio(g.Passed, g.Steps) }

// FirstTryRate is the share of the steps that passed at the first try, with no person.
func (g StepGroup) FirstTryRate() float64 { return ratio(g.FirstTry, g.Steps) }

// MeanRetries is the mean number of evaluator FAILs per step.
func (g StepGroup) MeanRetries() float64 { return ratio(g.Retries, g.Steps) }

// MeanTokens is the mean number of model tokens per step.
func (g StepGroup) MeanTokens() float64 { return ratio(g.Tokens, g.Steps) }

// SkillStats compares the steps a library skill was injected into with the
// steps of the same skill folders that ran without it.
type SkillStats struct {
	Name     string    `json:"name"`
	Injected int       `json:"injected"` // steps it was injected into
	Folders  []string  `json:"folders"`  // the skill folders of those steps
	With     StepGroup `json:"with"`
	Without  StepGroup `json:"without"` // steps of the same folders without it
	Verdict  string    `json:"verdict"`
}

// ComputeStats joins step outcomes into per-skill statistics, sorted by
// name. names lists the library's skills, so that those never injected show
// too (as VerdictUnused); skills injected but since removed show as well.
// Steps still waiting for a person are left out: they have no outcome yet.
func ComputeStats(outcomes []Outcome, names []string) []SkillStats {
	byName := map[string]*SkillStats{}
	get := func(name string) *SkillStats {
		s := byName[name]
		if s == nil {
			s = &SkillStats{Name: name, Folders: []string{}}
			byName[name] = s
		}
		return s
	}
	for _, n := range names {
		get(n)
	}
	var done []Outcome
	for _, o := range outcomes {
		if o.Outcome == OutcomeWaiting {
			continue
		}
		done = append(done, o)
		for _, sk := range o.Skills {
			s := get(sk.Name)
			if !slices.Contains(s.Folders, o.Folder) {
				s.Folders = append(s.Folders, o.Folder)
			}
		}
	}
	out := make([]SkillStats, 0, len(byName))
	for _, s := range byName {
		slices.Sort(s.Folders)
		for _, o := range done {
			switch {
			case o.Has(s.Name):
				s.With.add(o)
			case slices.Contains(s.Folders, o.Folder):
				s.Without.add(o)
			}
		}
		s.Injected = s.With.Steps
		s.Verdict = verdict(s.With, s.Without)
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b SkillStats) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// verdict compares the steps with a skill to those without it: the pass
// rate first, then the first-try rate, then the mean retries (fewer is better).
func verdict(with, without StepGroup) string {
	switch {
	case with.Steps == 0:
		return VerdictUnused
	case without.Steps == 0:
		return VerdictNoBaseline
	}
	const eps = 1e-9
	for _, d := range []float64{
		with.PassRate() - without.PassRate(),
		with.FirstTryRate() - without.FirstTryRate(),
		without.MeanRetries() - with.MeanRetries(),
	} {
		switch {
		case d > eps:
			return VerdictHelps
		case d < -eps:
			return VerdictHurts
		}
	}
	return VerdictNoDiff
}

// StatsSummary renders stats for a prompt (the teacher's), one line per
// skill, or "" when no skill was ever injected.
func StatsSummary(stats []SkillStats) string {
	var b strings.Builder
	for _, s := range stats {
		if s.Injected == 0 {
			continue
		}
		fmt.Fprintf(&b, "- %s: injected into %d step(s); ", s.Name, s.Injected)
		if s.Without.Steps == 0 {
			fmt.Fprintf(&b, "passed %s, %s at the first try, mean retries %.1f; no step of its skill folders ran without it to compare → %s\n",
				pct(s.With.PassRate()), pct(s.With.FirstTryRate()), s.With.MeanRetries(), s.Verdict)
			continue
		}
		fmt.Fprintf(&b, "with it vs without it (%d step(s) of the same skill folders): passed %s vs %s, at the first try %s vs %s, mean retries %.1f vs %.1f, mean tokens %.0f vs %.0f → %s\n",
			s.Without.Steps, pct(s.With.PassRate()), pct(s.Without.PassRate()), pct(s.With.FirstTryRate()), pct(s.Without.FirstTryRate()),
			s.With.MeanRetries(), s.Without.MeanRetries(), s.With.MeanTokens(), s.Without.MeanTokens(), s.Verdict)
	}
	return strings.TrimRight(b.String(), "\n")
}

// pct renders a share as a whole percentage.
func pct(r float64) string { return fmt.Sprintf("%.0f%%", r*100) }

// StatsHeading introduces the statistics in the teacher's prompt.
const StatsHeading = `## How the existing skills did

Each line compares the steps of past runs a skill was injected into with the steps of the same skill folders that ran without it. Propose "remove" for a skill that hurts, or "update" to rewrite one that does not help; keep the skills that help.

`

// MarshalJSON adds the rates to the counts.
func (g StepGroup) MarshalJSON() ([]byte, error) {
	type counts StepGroup
	return json.Marshal(struct {
		counts
		PassRate     float64 `json:"pass_rate"`
		FirstTryRate float64 `json:"first_try_rate"`
		MeanRetries  float64 `json:"mean_retries"`
		MeanTokens   float64 `json:"mean_tokens"`
	}{counts(g), round3(g.PassRate()), round3(g.FirstTryRate()), round3(g.MeanRetries()), round3(g.MeanTokens())})
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }
