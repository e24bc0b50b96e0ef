package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/lppctl/lppctl/internal/fsx"
	"github.com/lppctl/lppctl/skills"
)

// evalReport is what `lppctl eval --json` writes.
type evalReport struct {
	Spec       string    `json:"spec"`
	Skill      string    `json:"skill"`
	LLM        string    `json:"llm,omitempty"`
	RunsPerArm int       `json:"runs_per_arm"`
	Arms       []evalArm `json:"arms"`
	// Skills compares, per library skill, the steps of all runs it was
	// injected into with the steps of the same skill folder without it.
	Skills []skills.SkillStats `json:"skills"`
}

// evalArm is one arm: the library on or off.
type evalArm struct {
	Arm     string      `json:"arm"`
	Summary evalSummary `json:"summary"`
	Runs    []evalRun   `json:"runs"`
}

// evalRun is one run of an arm.
type evalRun struct {
	Arm      string           `json:"arm"`
	Run      int              `json:"run"`    // 1-based, within the arm
	Status   string           `json:"status"` // done, paused (a step needs a person) or failed
	Exit     int              `json:"exit"`   // lppctl run's exit code
	Error    string           `json:"error,omitempty"`
	Passed   bool             `json:"passed"` // done, with every step passed
	Steps    int              `json:"steps"`
	FirstTry int              `json:"first_try"` // steps passed at the first try, with no person
	Retries  int              `json:"retries"`   // evaluator FAILs over all steps
	Human    int              `json:"human"`     // steps that needed a person
	Tokens   int              `json:"tokens"`
	WallMS   float64          `json:"wall_ms"`
	Outcomes []skills.Outcome `json:"outcomes"`
}

// add joins the run's step outcomes: the run passed when it is done and
// every step it recorded passed (a spec without plan steps: when it is done).
func (r *evalRun) add(outs []skills.Outcome) {
	r.Outcomes = append([]skills.Outcome{}, outs...)
	r.Passed = r.Status == "done"
	for _, o := range outs {
		r.Steps++
		r.Retries += o.Retries
		if o.Human {
			r.Human++
		}
		if o.FirstTry() {
			r.FirstTry++
		}
		if o.Outcome != skills.OutcomePass {
			r.Passed = false
		}
	}
}

// spread is a measure over the runs of an arm.
type spread struct {
	Mean   float64 `json:"mean"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	StdDev float64 `json:"stddev"`
}

func spreadOf(xs []float64) spread {
	if len(xs) == 0 {
		return spread{}
	}
	s := spread{Min: xs[0], Max: xs[0]}
	for _, x := range xs {
		s.Mean += x
		s.Min, s.Max = min(s.Min, x), max(s.Max, x)
	}
	s.Mean /= float64(len(xs))
	for _, x := range xs {
		s.StdDev += (x - s.Mean) * (x - s.Mean)
	}
	s.StdDev = math.Sqrt(s.StdDev / float64(len(xs)))
	return s
}

// evalSummary sums up the runs of an arm.
type evalSummary struct {
	Runs         int     `json:"runs"`
	PassRate     float64 `json:"pass_rate"`      // share of runs done with every step passed
	FirstTryRate float64 `json:"first_try_rate"` // share of steps passed at the first try
	Retries      spread  `json:"retries"`        // per run
	Human        spread  `json:"human"`          // steps needing a person, per run
	Tokens       spread  `json:"tokens"`         // per run
	WallSeconds  spread  `json:"wall_seconds"`   // per run
}

func summarise(runs []evalRun) evalSummary {
	s := evalSummary{Runs: len(runs)}
	var retries, human, tokens, wall []float64
	passed, steps, first := 0, 0, 0
	for _, r := range runs {
		if r.Passed {
			passed++
		}
		steps += r.Steps
		first += r.FirstTry
		retries = append(retries, float64(r.Retries))
		human = append(human, float64(r.Human))
		tokens = append(tokens, float64(r.Tokens))
		wall = append(wall, r.WallMS/1000)
	}
	if len(runs) > 0 {
		s.PassRate = float64(passed) / float64(len(runs))
	}
	if steps > 0 {
		s.FirstTryRate = float64(first) / float64(steps)
	}
	s.Retries, s.Human, s.Tokens, s.WallSeconds = spreadOf(retries), spreadOf(human), spreadOf(tokens), spreadOf(wall)
	return s
}

// printEvalTable writes one line per arm, each measure as "mean (min–max)".
func printEvalTable(w io.Writer, rep *evalReport) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "LIBRARY\tRUNS\tPASS RATE\tFIRST TRY\tRETRIES\tNEEDED A PERSON\tTOKENS\tWALL TIME")
	for _, a := range rep.Arms {
		s := a.Summary
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", a.Arm, s.Runs, pctOf(s.PassRate), pctOf(s.FirstTryRate),
			spreadText(s.Retries, "%.1f", "%.0f"), spreadText(s.Human, "%.1f", "%.0f"),
			spreadText(s.Tokens, "%.0f", "%.0f"), spreadText(s.WallSeconds, "%.2fs", "%.2f"))
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "per run: mean (min–max); PASS RATE: runs that ended with every step passed; FIRST TRY: steps passed at the first try, with no person")
}

// spreadText renders "mean (min–max)", or only the mean when every run agreed.
func spreadText(s spread, meanFmt, rangeFmt string) string {
	mean := fmt.Sprintf(meanFmt, s.Mean)
	if s.Min == s.Max {
		return mean
	}
	return fmt.Sprintf("%s ("+rangeFmt+"–"+rangeFmt+")", mean, s.Min, s.Max)
}

// writeEvalJSON writes the report, indented, atomically.
func writeEvalJSON(path string, rep *evalReport) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("cannot write the results: %w", err)
	}
	if err := fsx.WriteOutput(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("cannot write the results: %w", err)
	}
	return nil
}
