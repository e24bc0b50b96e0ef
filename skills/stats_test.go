package skills

import (
	"testing"
)

// evalOutcomes are two runs of folder skills/report with the library (step
// 1 gets header_first and passes at once, step 2 gets footer_last and needs
// a retry) and two without it (step 1 needs a retry, step 2 passes at once).
func evalOutcomes() []Outcome {
	var out []Outcome
	for _, run := range []string{"on1", "on2"} {
		out = append(out,
			Outcome{ID: run + "/1", Run: run, Step: 1, Folder: "skills/report", Skills: []Injected{{Name: "header_first", Score: 2}}, Outcome: OutcomePass, Tokens: 100},
			Outcome{ID: run + "/2", Run: run, Step: 2, Folder: "skills/report", Skills: []Injected{{Name: "footer_last", Score: 1}}, Outcome: OutcomePass, Retries: 1, Tokens: 200})
	}
	for _, run := range []string{"off1", "off2"} {
		out = append(out,
			Outcome{ID: run + "/1", Run: run, Step: 1, Folder: "skills/report", Outcome: OutcomePass, Retries: 1, Tokens: 180},
			Outcome{ID: run + "/2", Run: run, Step: 2, Folder: "skills/report", Outcome: OutcomePass, Tokens: 90})
	}
	// another folder, and a step still waiting: neither counts for the skills above
	out = append(out,
		Outcome{ID: "x/1", Run: "x", Step: 1, Folder: "skills/other", Outcome: OutcomeFail},
		Outcome{ID: "on3/1", Run: "on3", Step: 1, Folder: "skills/report", Skills: []Injected{{Name: "header_first"}}, Outcome: OutcomeWaiting, Human: true})
	return out
}

func TestComputeStatsTellsHelpfulFromHarmfulSkills(t *testing.T) {
	got := ComputeStats(evalOutcomes(), []string{"header_first", "never_used"})
	want := []SkillStats{
		{Name: "footer_last", Injected: 2, Folders: []string{"skills/report"},
			With:    StepGroup{Steps: 2, Passed: 2, FirstTry: 0, Retries: 2, Tokens: 400},
			Without: StepGroup{Steps: 6, Passed: 6, FirstTry: 4, Retries: 2, Tokens: 740}, Verdict: VerdictHurts},
		{Name: "header_first", Injected: 2, Folders: []string{"skills/report"},
			With:    StepGroup{Steps: 2, Passed: 2, FirstTry: 2, Retries: 0, Tokens: 200},
			Without: StepGroup{Steps: 6, Passed: 6, FirstTry: 2, Retries: 4, Tokens: 940}, Verdict: VerdictHelps},
		{Name: "never_used", Folders: []string{}, Verdict: VerdictUnused},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d skills, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Name != w.Name || g.Injected != w.Injected || g.With != w.With || g.Without != w.Without || g.Verdict != w.Verdict || len(g.Folders) != len(w.Folders) {
			t.Errorf("skill %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
}

func TestVerdicts(t *testing.T) {
	pass := StepGroup{Steps: 2, Passed: 2, FirstTry: 2}
	for _, c := range []struct {
		name          string
		with, without StepGroup
		want          string
	}{
		{"never injected", StepGroup{}, pass, VerdictUnused},
		{"nothing to compare with", pass, StepGroup{}, VerdictNoBaseline},
		{"same results", pass, pass, VerdictNoDiff},
		{"more passes", pass, StepGroup{Steps: 2, Passed: 1, FirstTry: 1}, VerdictHelps},
		{"fewer passes, though at first try", StepGroup{Steps: 2, Passed: 1, FirstTry: 1}, StepGroup{Steps: 2, Passed: 2}, VerdictHurts},
		{"same passes, fewer retries", StepGroup{Steps: 2, Passed: 2, Retries: 1}, StepGroup{Steps: 2, Passed: 2, Retries: 4}, VerdictHelps},
	} {
		if got := verdict(c.with, c.without); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestStatsSummaryForTheTeacher(t *testing.T) {
	got := StatsSummary(ComputeStats(evalOutcomes(), []string{"never_used"}))
	want := "- footer_last: injected into 2 step(s); with it vs without it (6 step(s) of the same skill folders): passed 100% vs 100%, at the first try 0% vs 67%, mean retries 1.0 vs 0.3, mean tokens 200 vs 123 → hurts\n" +
		"- header_first: injected into 2 step(s); with it vs without it (6 step(s) of the same skill folders): passed 100% vs 100%, at the first try 100% vs 33%, mean retries 0.0 vs 0.7, mean tokens 100 vs 157 → helps"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if got := StatsSummary(nil); got != "" {
		t.Errorf("no outcomes: got %q", got)
	}
}
