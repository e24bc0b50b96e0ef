package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/skills"
)

// The evaluation scenario (testdata/eval): skill folder skills/report, a
// library with header_first (the scripted model passes step 1 at the first
// try when it is in the prompt, fails once otherwise) and footer_last (step 2
// fails once when it is in the prompt, passes at once otherwise).

// newEvalProject is a project root with the scenario's skill and library.
func newEvalProject(t *testing.T) string {
	t.Helper()
	src, dst := repoRoot(t), t.TempDir()
	for _, p := range []string{"config/tools_config.yaml", "scripts", "claude.md", "specs/skills_agent.yaml", "specs/prompts"} {
		copyTree(t, filepath.Join(src, p), filepath.Join(dst, p))
	}
	copyTree(t, filepath.Join("testdata", "eval", "skills"), filepath.Join(dst, "skills"))
	copyTree(t, filepath.Join("testdata", "eval", "library.json"), libraryFile(dst))
	t.Setenv("LPPCTL_SKILLS", "")
	t.Setenv("LPPCTL_LLM", "")
	t.Setenv("LPPCTL_RUN_DIR", "")
	t.Setenv("LPPCTL_NOW", "2025-01-02T03:04:05Z")
	return dst
}

// evalModel is the scenario's scripted model.
func evalModel(t *testing.T) string {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("testdata", "eval", "model.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return "script:" + abs
}

// runScenario runs the Skills Agent once on the scenario's project.
func runScenario(t *testing.T, root string, extra ...string) runResult {
	t.Helper()
	args := append([]string{"lppctl", "run", filepath.Join(root, "specs", "skills_agent.yaml"), "--root", root,
		"--skill", filepath.Join(root, "skills", "report"), "--llm", evalModel(t), "--yes", "--no-input",
		"--feedback", "fine"}, extra...)
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errb)
	return runResult{code: code, out: out.String(), err: errb.String()}
}

func evalCLI(t *testing.T, args ...string) runResult {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"lppctl"}, args...), strings.NewReader(""), &out, &errb)
	return runResult{code: code, out: out.String(), err: errb.String()}
}

// scenarioRuns runs the agent twice with the library (one skill per step)
// and twice without it.
func scenarioRuns(t *testing.T, root string) {
	t.Helper()
	for _, v := range []string{"relevant_skills=1", "relevant_skills=1", "relevant_skills=0", "relevant_skills=0"} {
		if r := runScenario(t, root, "--var", v, "--quiet"); r.code != 0 {
			t.Fatalf("run with %s: exit %d\n%s", v, r.code, r.all())
		}
	}
}

func TestSkillsStatsShowsTheSkillThatHelpsAndTheOneThatHurts(t *testing.T) {
	root := newEvalProject(t)
	scenarioRuns(t, root)
	r := evalCLI(t, "skills", "stats", "--library", libraryFile(root))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.all())
	}
	golden := filepath.Join("testdata", "eval", "stats.golden")
	if *updateScripts {
		writeFile(t, golden, r.out)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if r.out != string(want) {
		t.Errorf("skills stats:\n%s\nwant (%s; -update rewrites it):\n%s", r.out, golden, want)
	}

	r = evalCLI(t, "skills", "stats", "--library", libraryFile(root), "--json")
	if r.code != 0 {
		t.Fatalf("--json: exit %d: %s", r.code, r.all())
	}
	verdicts := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(r.out), "\n") {
		var s struct {
			Name    string `json:"name"`
			Verdict string `json:"verdict"`
			With    struct {
				FirstTryRate float64 `json:"first_try_rate"`
				MeanRetries  float64 `json:"mean_retries"`
			} `json:"with"`
		}
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		verdicts[s.Name] = fmt.Sprintf("%s first_try=%g retries=%g", s.Verdict, s.With.FirstTryRate, s.With.MeanRetries)
	}
	want2 := map[string]string{"footer_last": "hurts first_try=0 retries=1", "header_first": "helps first_try=1 retries=0"}
	if fmt.Sprint(verdicts) != fmt.Sprint(want2) {
		t.Errorf("--json: got %v, want %v", verdicts, want2)
	}
}

func TestSkillsStatsWithoutOutcomes(t *testing.T) {
	root := newEvalProject(t)
	r := evalCLI(t, "skills", "stats", "--library", libraryFile(root))
	want := "no step outcomes in " + skills.OutcomesPath(libraryFile(root)) + " yet: run the agent with this library (spec variable relevant_skills > 0) to collect them\n" +
		"SKILL         INJECTED  PASS            FIRST TRY       RETRIES         TOKENS          VERDICT\n" +
		"                        with / without  with / without  with / without  with / without\n" +
		"footer_last   0         -               -               -               -               unused\n" +
		"header_first  0         -               -               -               -               unused\n"
	if r.code != 0 || r.out != want {
		t.Errorf("exit %d, got:\n%s\nwant:\n%s", r.code, r.all(), want)
	}
	if r := evalCLI(t, "skills", "stats", "extra"); r.code != exitUsage || !strings.Contains(r.err, "skills stats takes no arguments") {
		t.Errorf("an argument: exit %d: %s", r.code, r.all())
	}
}

// The teacher sees the statistics (its scripted reply removes footer_last
// only when its prompt says that skill hurts), and the run notes what it
// applied with the skill's verdict.
func TestTeacherRemovesTheSkillTheStatisticsSayHurts(t *testing.T) {
	root := newEvalProject(t)
	scenarioRuns(t, root)
	r := runScenario(t, root, "--var", "relevant_skills=1", "--var", "run_teacher=true")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.all())
	}
	for _, want := range []string{
		"the teacher gets the statistics of 2 skill(s) from .lppctl/skills.json.outcomes.jsonl",
		`applied: remove "footer_last" — steps with it needed more retries (stats: hurts; injected into 3 step(s))`,
	} {
		if !strings.Contains(r.all(), want) {
			t.Errorf("the run does not note %q:\n%s", want, r.all())
		}
	}
	lib := readLibrary(t, root)
	if _, ok := lib["footer_last"]; ok {
		t.Error("footer_last is still in the library")
	}
	if _, ok := lib["header_first"]; !ok {
		t.Error("header_first was removed")
	}
}

// A step that waits for a person is written as waiting, then, once the
// person decides, as what became of it: one outcome per step.
func TestStepOutcomeWaitingForAPersonIsReplacedByTheDecision(t *testing.T) {
	root := newEvalProject(t)
	r := runScenario(t, root, "--var", "relevant_skills=0", "--var", "max_retries=0", "--quiet")
	if r.code != exitPaused {
		t.Fatalf("exit %d, want %d (paused):\n%s", r.code, exitPaused, r.all())
	}
	outs, err := skills.ReadOutcomes(skills.OutcomesPath(libraryFile(root)))
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 1 || outs[0].Outcome != skills.OutcomeWaiting || !outs[0].Human || outs[0].Retries != 1 {
		t.Fatalf("paused: got %+v, want step 1 waiting for a person after 1 FAIL", outs)
	}
	id := regexp.MustCompile(`lppctl resume (\S+)`).FindStringSubmatch(r.all())
	if id == nil {
		t.Fatalf("no resume hint:\n%s", r.all())
	}
	res := evalCLI(t, "resume", id[1], "--root", root, "--answer", "skip", "--no-input", "--quiet")
	if res.code != 0 {
		t.Fatalf("resume: exit %d:\n%s", res.code, res.all())
	}
	outs, err = skills.ReadOutcomes(skills.OutcomesPath(libraryFile(root)))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range outs {
		got = append(got, fmt.Sprintf("step %d: %s, human %v", o.Step, o.Label(), o.Human))
	}
	want := []string{"step 1: skipped, human true", "step 2: PASS at first try, human false"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("got %q, want %q", got, want)
	}
}

// treeHash fingerprints every file under root.
func treeHash(t *testing.T, root string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		fmt.Fprintf(h, "%s\n", p)
		_, err = io.Copy(h, f)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

func TestEvalComparesTheArmsAndLeavesTheTreeAlone(t *testing.T) {
	root := newEvalProject(t)
	out := t.TempDir()
	before := treeHash(t, root)
	jsonFile, chart := filepath.Join(out, "eval.json"), filepath.Join(out, "eval.svg")
	r := evalCLI(t, "eval", "--root", root, "--spec", filepath.Join(root, "specs", "skills_agent.yaml"),
		"--skill", filepath.Join(root, "skills", "report"), "--runs", "2", "--llm", evalModel(t),
		"--var", "relevant_skills=1", "--json", jsonFile, "--chart", chart)
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.all())
	}
	if after := treeHash(t, root); after != before {
		t.Error("lppctl eval changed the project")
	}
	// the arms: each needs 1 retry per run (on: step 2, off: step 1); wall time varies
	for _, want := range []string{
		`(?m)^on +2 +100% +50% +1\.0 +0\.0 +\d+ +\S`,
		`(?m)^off +2 +100% +50% +1\.0 +0\.0 +\d+ +\S`,
		`(?m)^footer_last +2 +100% / 100% +0% / 67% +1\.0 / 0\.3 +\d+ / \d+ +hurts$`,
		`(?m)^header_first +2 +100% / 100% +100% / 33% +0\.0 / 0\.7 +\d+ / \d+ +helps$`,
	} {
		if !regexp.MustCompile(want).MatchString(r.out) {
			t.Errorf("the output does not match %s:\n%s", want, r.out)
		}
	}

	var rep evalReport
	b, err := os.ReadFile(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Arms) != 2 || rep.Arms[0].Arm != armOn || rep.Arms[1].Arm != armOff {
		t.Fatalf("arms: %+v", rep.Arms)
	}
	for _, a := range rep.Arms {
		if len(a.Runs) != 2 || a.Summary.PassRate != 1 || a.Summary.Retries.Mean != 1 || a.Summary.Tokens.Mean <= 0 {
			t.Errorf("arm %s: %+v", a.Arm, a.Summary)
		}
		for _, run := range a.Runs {
			want := map[string][]string{armOn: {"header_first", "footer_last"}, armOff: {"", ""}}[a.Arm]
			if len(run.Outcomes) != 2 {
				t.Fatalf("arm %s run %d: %d outcomes", a.Arm, run.Run, len(run.Outcomes))
			}
			for i, o := range run.Outcomes {
				got := ""
				if len(o.Skills) > 0 {
					got = o.Skills[0].Name
				}
				if got != want[i] {
					t.Errorf("arm %s run %d step %d: injected %q, want %q", a.Arm, run.Run, o.Step, got, want[i])
				}
			}
		}
	}
	checkChart(t, chart, &rep)
}

// checkChart parses the SVG as XML and checks one bar per measure and arm,
// its height in proportion to its value on the panel's scale.
func checkChart(t *testing.T, path string, rep *evalReport) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := xml.NewDecoder(f)
	scale := map[string]float64{}
	type bar struct{ value, height float64 }
	bars := map[string]bar{}
	attr := func(se xml.StartElement, name string) string {
		for _, a := range se.Attr {
			if a.Name.Local == name {
				return a.Value
			}
		}
		return ""
	}
	num := func(s string) float64 {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("not a number: %q", s)
		}
		return f
	}
	sawSVG := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the chart is not XML: %v", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch {
		case se.Name.Local == "svg":
			sawSVG = se.Name.Space == "http://www.w3.org/2000/svg"
		case se.Name.Local == "g" && attr(se, "class") == "panel":
			scale[attr(se, "data-metric")] = num(attr(se, "data-scale"))
		case se.Name.Local == "rect" && attr(se, "class") == "bar":
			bars[attr(se, "data-metric")+"/"+attr(se, "data-arm")] = bar{num(attr(se, "data-value")), num(attr(se, "height"))}
		}
	}
	if !sawSVG {
		t.Error("no <svg> root in the SVG namespace")
	}
	if want := len(chartMetrics) * len(rep.Arms); len(bars) != want {
		t.Fatalf("%d bars, want %d: %v", len(bars), want, bars)
	}
	for _, a := range rep.Arms {
		for key, want := range map[string]float64{
			"pass_rate": a.Summary.PassRate * 100, "first_try": a.Summary.FirstTryRate * 100,
			"retries": a.Summary.Retries.Mean, "tokens": a.Summary.Tokens.Mean,
		} {
			b, ok := bars[key+"/"+a.Arm]
			if !ok {
				t.Errorf("no bar %s for arm %s", key, a.Arm)
				continue
			}
			if math.Abs(b.value-want) > 1e-6 {
				t.Errorf("bar %s/%s: value %g, want %g", key, a.Arm, b.value, want)
			}
			if h := want / scale[key] * chartPlotH; math.Abs(b.height-h) > 0.01 {
				t.Errorf("bar %s/%s: height %g, want %g", key, a.Arm, b.height, h)
			}
		}
	}
}

func TestEvalUsageErrors(t *testing.T) {
	root := newEvalProject(t)
	spec := filepath.Join(root, "specs", "skills_agent.yaml")
	skill := filepath.Join(root, "skills", "report")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--runs", "0"}, "--runs 0: give at least 1 run per arm"},
		{[]string{"--library", "maybe"}, `--library "maybe": give on, off or both`},
		{[]string{"--chart", "eval.png"}, "--chart eval.png: the chart is an SVG file; name it FILE.svg"},
		{[]string{"extra"}, "eval takes no arguments (give the spec with --spec)"},
	} {
		r := evalCLI(t, append([]string{"eval", "--spec", spec, "--skill", skill}, c.args...)...)
		if r.code != exitUsage || !strings.Contains(r.err, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, r.code, r.err, exitUsage, c.want)
		}
	}
	r := evalCLI(t, "eval", "--spec", spec, "--skill", filepath.Join(root, "skills", "nothing"))
	if r.code != exitUsage || !strings.Contains(r.err, "cannot use --skill "+filepath.Join(root, "skills", "nothing")+": ") {
		t.Errorf("a skill folder that does not exist: exit %d: %s", r.code, r.err)
	}
}

// A run of the scenario killed after a step's outcome line was appended, or
// in the middle of a journal write, and resumed, leaves the same outcomes as
// an uninterrupted run: no FAIL, token or step counted twice.
func TestStepOutcomesSurviveACrash(t *testing.T) {
	bin := buildLppctl(t)
	model := evalModel(t)
	args := []string{"run", "--spec", "specs/skills_agent.yaml", "--skill", "skills/report", "--llm", model, "--yes", "--no-input", "--feedback", "fine", "-q", "--var", "relevant_skills=1"}
	outcomes := func(root string) []string {
		t.Helper()
		outs, err := skills.ReadOutcomes(skills.OutcomesPath(libraryFile(root)))
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, o := range outs {
			o.ID, o.Run = "", ""
			b, _ := json.Marshal(o)
			s = append(s, string(b))
		}
		return s
	}
	ref := newEvalProject(t)
	if r := runChild(t, bin, ref, "", args...); r.code != 0 {
		t.Fatalf("reference run: exit %d\n%s", r.code, r.out)
	}
	want := outcomes(ref)
	if len(want) != 2 {
		t.Fatalf("reference run: outcomes %q", want)
	}
	for _, point := range []string{"outcome-after-append:1", "outcome-after-append:2", "journal-mid-write:12", "journal-after-write:11"} {
		t.Run(point, func(t *testing.T) {
			root := newEvalProject(t)
			if r := runChild(t, bin, root, point, args...); !r.killed {
				t.Fatalf("not killed at %s: exit %d\n%s", point, r.code, r.out)
			}
			id := onlyRun(t, filepath.Join(root, ".lppctl", "runs"))
			if r := runChild(t, bin, root, "", "resume", "-q", "--no-input", id); r.code != 0 {
				t.Fatalf("resume: exit %d\n%s", r.code, r.out)
			}
			if strings.HasPrefix(point, "outcome-after-append") {
				raw, err := os.ReadFile(skills.OutcomesPath(libraryFile(root)))
				if err != nil {
					t.Fatal(err)
				}
				if n := strings.Count(string(raw), "\n"); n != 3 {
					t.Errorf("the log has %d lines, want 3 (the step's line written again on resume)", n)
				}
			}
			if got := outcomes(root); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("outcomes after the crash:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func TestEvalRunAndSummary(t *testing.T) {
	pass := skills.Outcome{Outcome: skills.OutcomePass}
	retried := skills.Outcome{Outcome: skills.OutcomePass, Retries: 2}
	helped := skills.Outcome{Outcome: skills.OutcomePass, Human: true}
	for _, c := range []struct {
		name   string
		status string
		outs   []skills.Outcome
		want   string
	}{
		{"every step passed", "done", []skills.Outcome{pass, retried}, "passed=true steps=2 first=1 retries=2 human=0"},
		{"a person helped", "done", []skills.Outcome{helped}, "passed=true steps=1 first=0 retries=0 human=1"},
		{"a step skipped", "done", []skills.Outcome{pass, {Outcome: skills.OutcomeSkipped, Human: true}}, "passed=false steps=2 first=1 retries=0 human=1"},
		{"paused for a person", "paused", []skills.Outcome{{Outcome: skills.OutcomeWaiting, Human: true, Retries: 3}}, "passed=false steps=1 first=0 retries=3 human=1"},
		{"no plan steps, done", "done", nil, "passed=true steps=0 first=0 retries=0 human=0"},
		{"failed", "failed", []skills.Outcome{pass}, "passed=false steps=1 first=1 retries=0 human=0"},
	} {
		r := evalRun{Status: c.status}
		r.add(c.outs)
		if got := fmt.Sprintf("passed=%v steps=%d first=%d retries=%d human=%d", r.Passed, r.Steps, r.FirstTry, r.Retries, r.Human); got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
	s := summarise([]evalRun{
		{Passed: true, Steps: 2, FirstTry: 2, Retries: 0, Tokens: 100, WallMS: 1000},
		{Passed: false, Steps: 2, FirstTry: 1, Retries: 3, Human: 1, Tokens: 300, WallMS: 3000},
	})
	if s.PassRate != 0.5 || s.FirstTryRate != 0.75 || s.Retries != (spread{Mean: 1.5, Min: 0, Max: 3, StdDev: 1.5}) || s.Tokens.Mean != 200 {
		t.Errorf("summary: %+v", s)
	}
	for _, c := range []struct {
		sp   spread
		want string
	}{
		{s.Retries, "1.5 (0–3)"},
		{spread{Mean: 2, Min: 2, Max: 2}, "2.0"},
	} {
		if got := spreadText(c.sp, "%.1f", "%.0f"); got != c.want {
			t.Errorf("spreadText(%+v) = %q, want %q", c.sp, got, c.want)
		}
	}
}
