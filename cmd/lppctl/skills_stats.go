package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/lppctl/lppctl/skills"
)

// skillsStatsCommand is `lppctl skills stats`: how the library's skills did
// in the steps they were injected into.
func skillsStatsCommand() *cli.Command {
	return &cli.Command{
		Name:  "stats",
		Usage: "compare the steps each skill was injected into with those without it",
		Description: `Reads the library's step outcomes (FILE.outcomes.jsonl, written by agent runs
whose prompts draw on the library: one line per plan step with the skills
injected and what became of the step) and shows per skill: the steps it was
injected into, and, with it / without it (steps of the same skill folders
that ran without it): the share of steps that passed, that passed at the
first try with no person, the mean evaluator FAILs (retries) and tokens per
step, and a verdict (helps, hurts, no difference, no baseline, unused).
Steps still waiting for a person are left out. See docs/evaluation.md.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "library", Aliases: []string{"l"}, EnvVars: []string{"LPPCTL_SKILLS"}, Usage: "the skill library `FILE` (default: ROOT/" + skills.DefaultLibraryPath + ", ROOT being the current directory or the nearest folder above it holding config/tools_config.yaml)"},
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object per skill"},
		},
		Action: skillsStats,
	}
}

func skillsStats(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("skills stats takes no arguments")
	}
	lib, err := skills.Open(libraryPath(c))
	if err != nil {
		return err
	}
	list, err := lib.List()
	if err != nil {
		return err
	}
	outs, err := lib.Outcomes()
	if err != nil {
		return err
	}
	names := make([]string, len(list))
	for i, s := range list {
		names[i] = s.Name
	}
	stats := skills.ComputeStats(outs, names)
	if c.Bool("json") {
		return printJSONLines(c.App.Writer, stats)
	}
	if len(outs) == 0 {
		fmt.Fprintf(c.App.Writer, "no step outcomes in %s yet: run the agent with this library (spec variable relevant_skills > 0) to collect them\n", skills.OutcomesPath(lib.Path()))
	}
	if len(stats) == 0 {
		return nil
	}
	return printStats(c.App.Writer, stats)
}

// printStats writes the statistics as a table, "with / without" per column.
func printStats(w io.Writer, stats []skills.SkillStats) error {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SKILL\tINJECTED\tPASS\tFIRST TRY\tRETRIES\tTOKENS\tVERDICT")
	fmt.Fprintln(tw, "\t\twith / without\twith / without\twith / without\twith / without\t")
	for _, s := range stats {
		if s.Injected == 0 {
			fmt.Fprintf(tw, "%s\t0\t-\t-\t-\t-\t%s\n", s.Name, s.Verdict)
			continue
		}
		w, wo := s.With, s.Without
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\n", s.Name, s.Injected,
			pair(pctOf(w.PassRate()), pctOf(wo.PassRate()), wo.Steps),
			pair(pctOf(w.FirstTryRate()), pctOf(wo.FirstTryRate()), wo.Steps),
			pair(fmt.Sprintf("%.1f", w.MeanRetries()), fmt.Sprintf("%.1f", wo.MeanRetries()), wo.Steps),
			pair(fmt.Sprintf("%.0f", w.MeanTokens()), fmt.Sprintf("%.0f", wo.MeanTokens()), wo.Steps),
			s.Verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		if _, err := io.WriteString(w, strings.TrimRight(line, " \n")+strings.Repeat("\n", strings.Count(line, "\n"))); err != nil {
			return err
		}
	}
	return nil
}

// pair renders "with / without", the without part "-" when no step ran without.
func pair(with, without string, withoutSteps int) string {
	if withoutSteps == 0 {
		without = "-"
	}
	return with + " / " + without
}

func pctOf(r float64) string { return fmt.Sprintf("%.0f%%", r*100) }
