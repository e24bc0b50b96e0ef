package main

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/lppctl/lppctl/internal/fsx"
	"github.com/lppctl/lppctl/machine/runstore"
	"github.com/lppctl/lppctl/skills"
)

// Arms of an evaluation.
const (
	armOn  = "on"  // the library's relevant skills go into the prompts
	armOff = "off" // relevant_skills=0: no library skill in any prompt
)

// evalCommand is `lppctl eval`: run a skill N times with and without the
// skill library and compare.
func evalCommand() *cli.Command {
	return &cli.Command{
		Name:  "eval",
		Usage: "run a skill N times with and without the skill library and compare the runs",
		Description: `Runs the spec on the skill --runs times per arm: "on" with the library's
relevant skills in the prompts, "off" with none (--var relevant_skills=0; a
spec without that variable runs without the library file). Every run works
in a fresh temporary copy of the project (the spec's folder, the skill,
config/, scripts/, claude.md and the library), approves the plan, gives a
fixed final feedback and never asks a person: a step that needs one counts
as such and ends the run. The working tree is left as it was.

Prints per arm: the share of runs that ended with every step passed, the
share of steps passed at the first try, and per run the evaluator FAILs
(retries), the steps that needed a person, the tokens and the wall time,
each as the mean with the min-max spread. --json writes every run and the
summaries; --chart draws the summaries as an SVG bar chart (one panel per
measure, one bar per arm, the min-max spread as a whisker).`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "spec", Aliases: []string{"f"}, Usage: "the spec `FILE` (e.g. specs/skills_agent.yaml)", Required: true},
			&cli.StringFlag{Name: "skill", Usage: "the skill's `DIR` (holding skills.md)", Required: true},
			&cli.IntFlag{Name: "runs", Aliases: []string{"n"}, Value: 3, Usage: "runs per arm (`N`, at least 1)"},
			&cli.StringFlag{Name: "library", Value: "both", Usage: "the arms to run: `on` (with the library), off (without) or both"},
			&cli.StringFlag{Name: "json", Usage: "write every run and the summaries as JSON to `FILE`"},
			&cli.StringFlag{Name: "chart", Usage: "draw the summaries as an SVG chart in `FILE.svg`"},
			&cli.StringFlag{Name: "root", Usage: "the project root `DIR` the copies are made from (default: the current directory)"},
			&cli.StringFlag{Name: "skills-library", EnvVars: []string{"LPPCTL_SKILLS"}, Usage: "the skill library `FILE` (default: ROOT/" + skills.DefaultLibraryPath + ")"},
			&cli.StringFlag{Name: "llm", Usage: "the model, as lppctl run takes it: `PROVIDER[:MODEL]` or script:FILE"},
			&cli.StringSliceFlag{Name: "var", KeepSpace: true, Usage: "override a context variable in every run: `NAME=VALUE` (repeatable)"},
		},
		Action: evalAction,
	}
}

// evalSetup is what every run of an evaluation copies and runs.
type evalSetup struct {
	root    string   // the project root (absolute)
	spec    string   // the spec, relative to the copy's root
	specDir string   // the spec's folder in the project (absolute)
	specTo  string   // where it goes in the copy, relative to its root
	skill   string   // the skill folder, relative to the copy's root
	skillAt string   // the skill folder in the project (absolute)
	library string   // the library file (absolute; may not exist)
	llm     string   // --llm, with a script:FILE made absolute
	vars    []string // --var
	offVar  bool     // the spec has relevant_skills: the off arm sets it to 0
}

func evalAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("eval takes no arguments (give the spec with --spec)")
	}
	n := c.Int("runs")
	if n < 1 {
		return usageErrorf("--runs %d: give at least 1 run per arm", n)
	}
	var arms []string
	switch c.String("library") {
	case "on":
		arms = []string{armOn}
	case "off":
		arms = []string{armOff}
	case "both":
		arms = []string{armOn, armOff}
	default:
		return usageErrorf("--library %q: give on, off or both", c.String("library"))
	}
	if chart := c.String("chart"); chart != "" && !strings.EqualFold(filepath.Ext(chart), ".svg") {
		return usageErrorf("--chart %s: the chart is an SVG file; name it FILE.svg", chart)
	}
	setup, err := newEvalSetup(c)
	if err != nil {
		return err
	}
	sweepEvalTemps("") // the copies of evals killed before they removed them
	ctx, stop := interruptContext(c)
	defer stop()
	rep := &evalReport{Spec: c.String("spec"), Skill: c.String("skill"), RunsPerArm: n, LLM: setup.llm}
	for _, arm := range arms {
		a := evalArm{Arm: arm}
		for i := 1; i <= n; i++ {
			if ctx.Err() != nil {
				return withCode(exitInterrupted, errors.New("interrupted: no report was written"))
			}
			fmt.Fprintf(c.App.ErrWriter, "eval: library %s, run %d of %d\n", arm, i, n)
			r, err := setup.runOnce(arm, i)
			if err != nil {
				return err
			}
			a.Runs = append(a.Runs, r)
		}
		a.Summary = summarise(a.Runs)
		rep.Arms = append(rep.Arms, a)
	}
	var all []skills.Outcome
	for _, a := range rep.Arms {
		for _, r := range a.Runs {
			all = append(all, r.Outcomes...)
		}
	}
	rep.Skills = skills.ComputeStats(all, nil)
	printEvalTable(c.App.Writer, rep)
	if len(rep.Skills) > 0 {
		fmt.Fprintln(c.App.Writer, "\nlibrary skills over all runs (steps with the skill / steps of the same skill folder without it):")
		if err := printStats(c.App.Writer, rep.Skills); err != nil {
			return err
		}
	}
	if p := c.String("json"); p != "" {
		if err := writeEvalJSON(p, rep); err != nil {
			return err
		}
		fmt.Fprintf(c.App.ErrWriter, "eval: results in %s\n", p)
	}
	if p := c.String("chart"); p != "" {
		if err := fsx.WriteOutput(p, []byte(evalChart(rep)), 0o644); err != nil {
			return fmt.Errorf("cannot write the chart: %w", err)
		}
		fmt.Fprintf(c.App.ErrWriter, "eval: chart in %s\n", p)
	}
	return nil
}

// newEvalSetup checks the flags' files and works out where they go in a copy.
func newEvalSetup(c *cli.Context) (*evalSetup, error) {
	root, err := filepath.Abs(cmp.Or(c.String("root"), "."))
	if err != nil {
		return nil, err
	}
	s := &evalSetup{root: root, vars: c.StringSlice("var")}
	spec, err := filepath.Abs(c.String("spec"))
	if err != nil {
		return nil, err
	}
	src, err := os.ReadFile(spec)
	if err != nil {
		return nil, withCode(exitUsage, fmt.Errorf("cannot read the spec: %w", err))
	}
	s.specDir = filepath.Dir(spec)
	s.specTo = inCopy(root, s.specDir, "spec")
	s.spec = filepath.Join(s.specTo, filepath.Base(spec))
	s.offVar = bytes.Contains(src, []byte("\n  relevant_skills:"))
	skill, _ := skillFolder(c.String("skill"), root)
	if _, err := os.Stat(skill); err != nil && !filepath.IsAbs(skill) {
		skill = filepath.Join(root, skill)
	}
	if s.skillAt, err = filepath.Abs(skill); err != nil {
		return nil, err
	}
	if _, err := skills.OpenSkill(s.skillAt); err != nil {
		return nil, withCode(exitUsage, fmt.Errorf("cannot use --skill %s: %w; give a folder holding a skills.md", c.String("skill"), err))
	}
	s.skill = inCopy(root, s.skillAt, filepath.Join("skills", filepath.Base(s.skillAt)))
	lib := cmp.Or(c.String("skills-library"), filepath.Join(root, skills.DefaultLibraryPath))
	if s.library, err = filepath.Abs(lib); err != nil {
		return nil, err
	}
	s.llm = c.String("llm")
	if file, ok := strings.CutPrefix(s.llm, "script:"); ok {
		if abs, err := filepath.Abs(file); err == nil {
			s.llm = "script:" + abs
		}
	}
	return s, nil
}

// inCopy is where path (inside root) goes in a copy of root: the same
// relative path, or other when path is outside root.
func inCopy(root, path, other string) string {
	if rel, err := filepath.Rel(root, path); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	return other
}

// runOnce makes a fresh copy of the project and runs the spec on it once.
func (s *evalSetup) runOnce(arm string, i int) (evalRun, error) {
	tmp, err := evalTempDir("")
	if err != nil {
		return evalRun{}, fmt.Errorf("cannot make a copy of the project: %w", err)
	}
	defer os.RemoveAll(tmp)
	copies := [][2]string{
		{filepath.Join(s.root, "config"), filepath.Join(tmp, "config")},
		{filepath.Join(s.root, "scripts"), filepath.Join(tmp, "scripts")},
		{filepath.Join(s.root, "claude.md"), filepath.Join(tmp, "claude.md")},
		{s.specDir, filepath.Join(tmp, s.specTo)},
		{s.skillAt, filepath.Join(tmp, s.skill)},
	}
	lib := filepath.Join(tmp, skills.DefaultLibraryPath)
	if arm == armOn || s.offVar {
		copies = append(copies, [2]string{s.library, lib})
	}
	for _, cp := range copies {
		if err := copyPath(cp[0], cp[1]); err != nil {
			return evalRun{}, fmt.Errorf("cannot make a copy of the project: %w", err)
		}
	}
	if _, err := os.Stat(lib); errors.Is(err, fs.ErrNotExist) {
		// an empty library, so that the steps' outcomes are recorded
		if err := os.MkdirAll(filepath.Dir(lib), 0o755); err != nil {
			return evalRun{}, fmt.Errorf("cannot make a copy of the project: %w", err)
		}
		if err := os.WriteFile(lib, []byte("{}\n"), 0o644); err != nil {
			return evalRun{}, fmt.Errorf("cannot make a copy of the project: %w", err)
		}
	}
	runs := filepath.Join(tmp, runstore.DefaultDir)
	args := []string{"lppctl", "run", filepath.Join(tmp, s.spec), "--root", tmp, "--skill", filepath.Join(tmp, s.skill),
		"--skills-library", lib, "--run-dir", runs, "--yes", "--no-input", "--quiet",
		"--feedback", "(lppctl eval: no feedback)"}
	if s.llm != "" {
		args = append(args, "--llm", s.llm)
	}
	for _, v := range s.vars {
		args = append(args, "--var", v)
	}
	if arm == armOff && s.offVar {
		args = append(args, "--var", "relevant_skills=0")
	}
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := run(args, strings.NewReader(""), &stdout, &stderr)
	r := evalRun{Arm: arm, Run: i, Exit: code, WallMS: float64(time.Since(start).Microseconds()) / 1000}
	switch code {
	case exitOK:
		r.Status = "done"
	case exitPaused:
		r.Status = "paused"
	case exitUsage, exitInvalidSpec:
		return evalRun{}, withCode(code, fmt.Errorf("cannot run the evaluation: %s", lastLine(stderr.String())))
	default:
		r.Status, r.Error = "failed", lastLine(stderr.String())
	}
	if list, err := runstore.New(runs).List(); err == nil && len(list) > 0 {
		r.Tokens = list[0].Tokens()
	}
	outs, err := skills.ReadOutcomes(skills.OutcomesPath(lib))
	if err != nil {
		return evalRun{}, err
	}
	r.add(outs)
	return r, nil
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimPrefix(lines[len(lines)-1], "lppctl: ")
}

// copyPath copies a file or a folder tree; a missing source copies nothing.
func copyPath(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == src {
			return nil
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			if d.Name() == "__pycache__" || (d.Name() == ".lppctl" && p != src) {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm())
	})
}
