package actions

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/lppctl/lppctl/internal/textx"
	"github.com/lppctl/lppctl/machine"
)

// Limits of spec.examples.
const (
	examplesMax        = 8 // examples run per call
	exampleFilesMax    = 8 // input files per example
	exampleFileMax     = 64 << 10
	exampleDefaultTol  = 1e-4 // relative tolerance of a number with no tolerance given
	exampleReportValue = 160  // characters of a value shown in the report
)

// specExamples is spec.examples: it runs a folder's spec on behavioural
// examples, each in its own spec.sandbox copy (the same dry run, the same
// confinement): an example's vars are the run's start values (as --var
// gives them), its files are written into the copy first, and when the run
// completes, each variable of expect must hold its value (numbers within a
// tolerance) and each variable of contains must hold its text. It writes
// whether every example passed, how many ran and failed, and a report with,
// for each failure, what was expected and what the run gave (or how it
// failed, with the script's stderr).
func (d *Deps) specExamples(ctx context.Context, c *machine.Call) error {
	dir, err := stringParam(c, "dir")
	if err != nil {
		return err
	}
	specName, err := stringParam(c, "spec")
	if err != nil {
		return err
	}
	as := dir
	if c.Param("as") != nil {
		if as, err = stringParam(c, "as"); err != nil {
			return err
		}
	}
	run := true
	if c.Param("run") != nil {
		if run, err = boolParam(c, "run"); err != nil {
			return err
		}
	}
	list, _ := c.Param("examples").([]any)
	if c.Param("examples") != nil && list == nil {
		return fmt.Errorf("examples of spec.examples must give a list, not %s", describe(c.Param("examples")))
	}
	res := exampleResults{}
	switch {
	case !run:
		res.report = "examples: not run in this phase"
	case len(list) == 0:
		res.report = "examples: none given: the plan must hold examples (inputs and expected outputs) written from the target"
		res.failed = 1
	default:
		if len(list) > examplesMax {
			list = list[:examplesMax]
		}
		for i, raw := range list {
			line, err := d.runExample(ctx, i+1, raw, sandboxJob{dir: dir, spec: specName, as: as, run: true, maxTransitions: c.Int("max_transitions")})
			if err != nil {
				return err
			}
			res.ran++
			if line.pass {
				res.passed = append(res.passed, line.text)
			} else {
				res.failed++
				res.failures = append(res.failures, line.text)
			}
		}
		res.report = res.String()
	}
	c.Notef("examples: %d run, %d failed", res.ran, res.failed)
	return setNamedVars(c, map[string]any{"ok": res.failed == 0, "failed": res.failed, "ran": res.ran, "report": res.report})
}

// exampleResults gathers the lines of one spec.examples call.
type exampleResults struct {
	ran, failed      int
	passed, failures []string
	report           string
}

func (r exampleResults) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "examples: %d of %d passed", r.ran-r.failed, r.ran)
	for _, f := range r.failures {
		b.WriteString("\nFAIL " + f)
	}
	for _, p := range r.passed {
		b.WriteString("\npass " + p)
	}
	return b.String()
}

type exampleLine struct {
	pass bool
	text string
}

// example is one behavioural example, as the plan's schema gives it.
type example struct {
	Name      string            `json:"name"`
	Vars      map[string]any    `json:"vars"`
	Files     map[string]string `json:"files"`
	Events    []string          `json:"events"`
	Expect    map[string]any    `json:"expect"`
	Contains  map[string]string `json:"contains"`
	Tolerance *float64          `json:"tolerance"`
}

// runExample runs one example in a sandbox and judges its end. An error is
// only an error of the sandbox itself; a bad example is a failed one.
func (d *Deps) runExample(ctx context.Context, n int, raw any, job sandboxJob) (exampleLine, error) {
	var ex example
	b, err := json.Marshal(raw)
	if err == nil {
		err = json.Unmarshal(b, &ex)
	}
	if err != nil {
		return exampleLine{text: fmt.Sprintf("example %d: not an example object {name, vars, files, expect, contains}: %v", n, err)}, nil
	}
	head := fmt.Sprintf("example %d %q (vars %s)", n, ex.Name, showValue(ex.Vars))
	if len(ex.Expect) == 0 && len(ex.Contains) == 0 {
		return exampleLine{text: head + ": it expects nothing; give expect {variable: value} or contains {variable: text}"}, nil
	}
	if len(ex.Files) > exampleFilesMax {
		return exampleLine{text: fmt.Sprintf("%s: more than %d files", head, exampleFilesMax)}, nil
	}
	for p, text := range ex.Files {
		if len(text) > exampleFileMax {
			return exampleLine{text: fmt.Sprintf("%s: file %s has more than %d bytes", head, p, exampleFileMax)}, nil
		}
		if _, err := cleanRel("file", p); err != nil {
			return exampleLine{text: fmt.Sprintf("%s: file %q must be a path inside the skill folder, relative to it", head, p)}, nil
		}
	}
	job.vars, job.files, job.events = ex.Vars, ex.Files, ex.Events
	res, err := d.sandbox(ctx, job)
	if err != nil {
		return exampleLine{}, err
	}
	if !res.ok {
		return exampleLine{text: head + ": " + strings.TrimSpace(res.report)}, nil
	}
	var problems, got []string
	for _, name := range sortedKeys(ex.Expect) {
		want := ex.Expect[name]
		have, ok := res.final[name]
		if !ok {
			problems = append(problems, fmt.Sprintf("%s: expected %s, but the spec has no variable %s", name, showValue(want), name))
			continue
		}
		if !sameValue(want, have, ex.Tolerance) {
			problems = append(problems, fmt.Sprintf("%s: expected %s, got %s", name, showValue(want), showValue(have)))
			continue
		}
		got = append(got, fmt.Sprintf("%s = %s", name, showValue(have)))
	}
	for _, name := range sortedKeys(ex.Contains) {
		have, ok := res.final[name]
		s, isStr := have.(string)
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s: expected a text holding %q, but the spec has no variable %s", name, ex.Contains[name], name))
		case !isStr || !strings.Contains(s, ex.Contains[name]):
			problems = append(problems, fmt.Sprintf("%s: expected a text holding %q, got %s", name, ex.Contains[name], showValue(have)))
		default:
			got = append(got, fmt.Sprintf("%s holds %q", name, ex.Contains[name]))
		}
	}
	if len(problems) > 0 {
		return exampleLine{text: head + ": " + strings.Join(problems, "; ")}, nil
	}
	return exampleLine{pass: true, text: head + ": " + strings.Join(got, ", ")}, nil
}

// writeSandboxFiles writes an example's input files into the sandbox's copy
// of the folder (base), each path inside it.
func writeSandboxFiles(base string, files map[string]string) error {
	names := make([]string, 0, len(files))
	for p := range files {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		rel, err := cleanRel("file", p)
		if err != nil {
			return err
		}
		abs := filepath.Join(base, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return fmt.Errorf("cannot write an example's file: %w", err)
		}
		if err := os.WriteFile(abs, []byte(files[p]), 0o644); err != nil {
			return fmt.Errorf("cannot write an example's file: %w", err)
		}
	}
	return nil
}

// sameValue reports whether have (a run's value) matches want (an
// example's): numbers within tol (absolute; else relative 1e-4), lists and
// maps item by item, anything else equal.
func sameValue(want, have any, tol *float64) bool {
	if w, ok := number(want); ok {
		h, ok := number(have)
		if !ok {
			return false
		}
		if tol != nil {
			return math.Abs(w-h) <= *tol
		}
		return math.Abs(w-h) <= exampleDefaultTol*math.Max(1, math.Abs(w))
	}
	switch w := want.(type) {
	case []any:
		h, ok := have.([]any)
		if !ok || len(h) != len(w) {
			return false
		}
		for i := range w {
			if !sameValue(w[i], h[i], tol) {
				return false
			}
		}
		return true
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok || len(h) != len(w) {
			return false
		}
		for k, v := range w {
			if hv, ok := h[k]; !ok || !sameValue(v, hv, tol) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(want, have)
}

// number converts a decoded number to float64.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// showValue is a value as JSON, on one line, clipped; floats with 10
// significant digits (3.5999999999999996 shows as 3.6).
func showValue(v any) string {
	b, err := json.Marshal(roundFloats(v))
	if err != nil {
		return fmt.Sprint(v)
	}
	return Clip(textx.OneLine(string(b)), exampleReportValue)
}

// roundFloats returns v with every float rounded to 10 significant digits.
func roundFloats(v any) any {
	switch x := v.(type) {
	case float64:
		r, err := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 10, 64), 64)
		if err != nil {
			return x
		}
		return r
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = roundFloats(x[i])
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = roundFloats(e)
		}
		return out
	}
	return v
}
