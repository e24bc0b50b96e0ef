package actions

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/lppctl/lppctl/actions/examples"
	"github.com/lppctl/lppctl/internal/textx"
	"github.com/lppctl/lppctl/machine"
)

// Limits of spec.examples.
const (
	examplesMax       = 8 // examples run per call
	exampleFilesMax   = 8 // input files per example
	exampleFileMax    = 64 << 10
	sandboxOutputTail = 4000 // bytes of a sandboxed run's routed errors kept to look for a crash
)

// specExamples is spec.examples: it runs a folder's spec on behavioural
// examples, each in its own spec.sandbox copy (the same dry run, the same
// confinement): an example's vars are the run's start values (as --var
// gives them), its files are written into the copy first, and when the run
// completes, each variable of expect must hold its value (numbers within a
// tolerance) and each variable of contains must hold its text; an error
// example (kind "error") passes only when the run fails. It writes
// whether every example passed, how many ran and failed, and a report with,
// for each failure, what was expected and what the run gave (or how it
// failed, with the script's stderr); an example named by held_out (its
// number, from 1) is reported as passed or failed only, without its inputs
// or values (heldOutLine).
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
	heldOut := map[int]bool{}
	if c.Param("held_out") != nil {
		nums, ok := c.Param("held_out").([]any)
		if !ok {
			return fmt.Errorf("held_out of spec.examples must give a list of example numbers, not %s", describe(c.Param("held_out")))
		}
		for _, v := range nums {
			if f, ok := number(v); ok {
				heldOut[int(f)] = true
			}
		}
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
		// The examples that succeed run first: an error example passes when
		// its run fails, or ends in a final state none of theirs ended in.
		lines := make([]exampleLine, len(list))
		successEnds := map[string]bool{}
		for _, errorKind := range []bool{false, true} {
			for i, raw := range list {
				if isErrorExample(raw) != errorKind {
					continue
				}
				line, err := d.runExample(ctx, i+1, raw, sandboxJob{dir: dir, spec: specName, as: as, run: true, maxTransitions: c.Int("max_transitions")}, successEnds)
				if err != nil && heldOut[i+1] {
					// The error may quote the example's files or values; it
					// can reach a writer's prompt through the error routes.
					c.Notef("example %d (held out): %v", i+1, err)
					return fmt.Errorf("cannot run example %d (held out from the writer: its inputs are not shown): the sandbox failed; the run's notes say why", i+1)
				}
				if err != nil {
					return err
				}
				if line.pass && line.end != "" && !errorKind {
					successEnds[line.end] = true
				}
				if heldOut[i+1] {
					line.text = heldOutLine(i+1, raw, line)
				}
				lines[i] = line
			}
		}
		for _, line := range lines {
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

// heldOutLine is the report's line of an example held out from the writer
// of the code: whether it passed and, when it failed, what kind of failure
// (line.failure), never its name, inputs or values (the report is the next
// refinement's feedback; shown them, the writer could fit the code to them
// too, and a name such as "5 km in mi" tells the inputs).
func heldOutLine(n int, raw any, line exampleLine) string {
	ex, _ := examples.Decode(raw)
	head := heldOutHead(n, ex)
	if line.pass {
		return head + ": the run gave what it expects"
	}
	failure := line.failure
	if failure == "" {
		failure = "the run did not give what it expects"
	}
	return fmt.Sprintf("%s: %s: the code is right on the examples it was shown but not on this one; fix the logic for every input of the target, never for particular inputs", head, failure)
}

// heldOutHead names an example held out from the writer without its name
// (which may tell its inputs), inputs or values.
func heldOutHead(n int, ex examples.Example) string {
	kind := ex.Kind
	if kind == "" {
		kind = "no kind"
	}
	return fmt.Sprintf("example %d (%s; held out from the writer: its name, inputs and values are not shown)", n, kind)
}

// checkedVars lists the variables an example checks (expect, then contains).
func checkedVars(ex examples.Example) string {
	return strings.Join(append(sortedKeys(ex.Expect), sortedKeys(ex.Contains)...), ", ")
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
	pass    bool
	text    string
	end     string // the final state the run completed in ("" when it did not)
	failure string // what kind of failure, without the example's values (heldOutLine)
}

// isErrorExample reports whether raw is an example of kind "error".
func isErrorExample(raw any) bool {
	m, _ := raw.(map[string]any)
	return m["kind"] == examples.KindError
}

// example passes when its run fails, or completes in a final state that is
// not among successEnds (where the examples that succeed ended). An error is
// only an error of the sandbox itself; a bad example is a failed one.
func (d *Deps) runExample(ctx context.Context, n int, raw any, job sandboxJob, successEnds map[string]bool) (exampleLine, error) {
	ex, err := examples.Decode(raw)
	if err != nil {
		return exampleLine{text: fmt.Sprintf("example %d: not an example object {name, kind, vars, files, expect, contains}: %v", n, err), failure: "it is not an example object"}, nil
	}
	head := fmt.Sprintf("example %d %q (vars %s)", n, ex.Name, examples.ShowValue(ex.Vars))
	if problems := examples.Problems(ex); len(problems) > 0 {
		return exampleLine{text: head + ": " + strings.Join(problems, "; "), failure: "it is no evidence (it expects nothing, an empty text or a wide tolerance, or a file outside reference/)"}, nil
	}
	if p := d.shadowedFile(job.dir, ex.Files); p != "" {
		return exampleLine{text: fmt.Sprintf("%s: file %s is one of the skill's own files; an example's input file never replaces one (name it otherwise under reference/, and leave it out of the skill)", head, p), failure: "one of its input files has the path of one of the skill's own files"}, nil
	}
	job.vars, job.files, job.events = ex.Vars, ex.Files, ex.Events
	res, err := d.sandbox(ctx, job)
	if err != nil {
		return exampleLine{}, err
	}
	var problems, got []string
	end := ""
	if res.ok {
		end = res.endState
	}
	switch {
	case ex.Kind == examples.KindError && res.ok && successEnds[res.endState]:
		problems = append(problems, fmt.Sprintf("expected the run to fail (an error example), but it completed in state %s, where the examples that succeed end: a failure must end the run as failed (e.g. a final state that does agent.abort) or in a final state of its own", res.endState))
	case ex.Kind == examples.KindError && res.ok && len(successEnds) == 0:
		problems = append(problems, fmt.Sprintf("expected the run to fail (an error example), but it completed in state %s, and no example that succeeds completed to tell it from a success", res.endState))
	case ex.Kind == examples.KindError && res.ok && pythonCrash(res.routed) != "":
		return exampleLine{text: fmt.Sprintf("%s: expected the run to refuse its input (an error example), but a script crashed (%s) before the run ended in state %s: %s", head, pythonCrash(res.routed), res.endState, refuseHint), failure: "it is an error example, and a script crashed (a Python traceback) instead of refusing its input: " + refuseHint}, nil
	case ex.Kind == examples.KindError && res.ok && notARefusal(res.routed) != "":
		why := notARefusal(res.routed)
		return exampleLine{text: fmt.Sprintf("%s: expected the run to refuse its input (an error example), but %s before the run ended in state %s: %s", head, why, res.endState, refusalHint), failure: "it is an error example, and " + why + " instead of refusing its input: " + refusalHint}, nil
	case ex.Kind == examples.KindError && res.ok:
		got = append(got, fmt.Sprintf("the run ended in state %s, not where the examples that succeed end, as expected", res.endState))
	case ex.Kind == examples.KindError && !res.runFailed:
		return exampleLine{text: head + ": expected the run to fail (an error example), but it did not run to its end: " + strings.TrimSpace(res.report), failure: "it is an error example, and the run did not run to its end"}, nil
	case ex.Kind == examples.KindError:
		if crash := pythonCrash(res.report + "\n" + res.routed); crash != "" {
			return exampleLine{text: fmt.Sprintf("%s: expected the run to refuse its input (an error example), but a script crashed (%s): %s", head, crash, refuseHint), failure: "it is an error example, and a script crashed (a Python traceback) instead of refusing its input: " + refuseHint}, nil
		}
		if why := notARefusal(res.report + "\n" + res.routed); why != "" {
			return exampleLine{text: fmt.Sprintf("%s: expected the run to refuse its input (an error example), but %s: %s", head, why, refusalHint), failure: "it is an error example, and " + why + " instead of refusing its input: " + refusalHint}, nil
		}
		got = append(got, "the run failed, as expected: "+refusalText(res.report))
	case !res.ok:
		return exampleLine{text: head + ": " + strings.TrimSpace(res.report), failure: "its run failed (a script's error, a refusal or a limit) where it must complete and give what it expects (it checks " + checkedVars(ex) + ")"}, nil
	}
	for _, name := range sortedKeys(ex.Expect) {
		want := ex.Expect[name]
		have, ok := res.final[name]
		if !ok {
			problems = append(problems, fmt.Sprintf("%s: expected %s, but the spec has no variable %s", name, examples.ShowValue(want), name))
			continue
		}
		if !examples.SameValue(want, have, ex.Tolerance) {
			problems = append(problems, name+": "+examples.Mismatch(want, have))
			continue
		}
		got = append(got, fmt.Sprintf("%s: expected %s, got %s", name, examples.ShowValue(want), examples.ShowValue(have)))
	}
	for _, name := range sortedKeys(ex.Contains) {
		have, ok := res.final[name]
		s, isStr := have.(string)
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s: expected a text holding %q, but the spec has no variable %s", name, ex.Contains[name], name))
		case !isStr || !strings.Contains(s, ex.Contains[name]):
			problems = append(problems, fmt.Sprintf("%s: expected a text holding %q, got %s", name, ex.Contains[name], examples.ShowValue(have)))
		default:
			got = append(got, fmt.Sprintf("%s holds %q", name, ex.Contains[name]))
		}
	}
	if len(problems) > 0 {
		failure := "the run did not give what it expects (it checks " + checkedVars(ex) + ")"
		if ex.Kind == examples.KindError {
			failure = "it is an error example, and the run completed where the examples that succeed end (or none did): a failure must end the run as failed or in a final state of its own"
		}
		return exampleLine{text: head + ": " + strings.Join(problems, "; "), end: end, failure: failure}, nil
	}
	return exampleLine{pass: true, text: head + ": " + strings.Join(got, ", "), end: end}, nil
}

// refuseHint says how a script refuses an input, after a crash that made an
// error example's run fail.
const refuseHint = `an uncaught exception is a bug, not a refusal, and passes for any input it cannot handle; check the input and refuse it with a message saying why (sys.exit("why"), or print it to stderr and exit 1)`

// pythonCrash returns the exception line of a Python traceback in a run's
// report ("KeyError: 'parsec'"), or "" when no script crashed: a script
// that refuses an input exits with a message of its own.
func pythonCrash(report string) string {
	lines := strings.Split(report, "\n")
	traced := strings.Contains(report, "Traceback (most recent call last)")
	for i := len(lines) - 1; i >= 0; i-- {
		line := strings.TrimSpace(lines[i])
		if strings.HasPrefix(line, "File \"") && strings.Contains(line, "\", line ") {
			traced = true
		}
	}
	if !traced {
		return ""
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if m := exceptionLine.FindString(strings.TrimSpace(lines[i])); m != "" {
			return Clip(m, examples.ReportValue)
		}
	}
	return "a Python traceback"
}

// exceptionLine is the last line of a Python traceback: the exception's
// type, and its message.
var exceptionLine = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*\.)*[A-Za-z_][A-Za-z0-9_]*(Error|Exception|Exit|Interrupt|Iteration)\b(:.*)?$`)

// lastLine is the last non-blank line of a run's report (how it failed),
// on one line and clipped.
// refusalText is the message a failed run's script refused its input with:
// the "error" it printed instead of its answer (errorKeyNote), else the
// report's last line (a message on stderr ends it).
func refusalText(report string) string {
	if i := strings.LastIndex(report, errorKeyLead); i >= 0 {
		msg, _, _ := strings.Cut(report[i+len(errorKeyLead):], "\n")
		return Clip(textx.OneLine(msg), examples.ReportValue)
	}
	return lastLine(report)
}

func lastLine(report string) string {
	lines := strings.Split(strings.TrimSpace(report), "\n")
	return Clip(textx.OneLine(lines[len(lines)-1]), examples.ReportValue)
}

// folder dir already holds ("" when none does): an example adds inputs, it
// never replaces the skill's own files.
func (d *Deps) shadowedFile(dir string, files map[string]string) string {
	if len(files) == 0 {
		return ""
	}
	root, err := os.OpenRoot(d.RootDir())
	if err != nil {
		return ""
	}
	defer root.Close()
	for _, p := range sortedKeys(files) {
		rel, err := cleanRel("file", p)
		if err != nil {
			continue
		}
		if _, err := root.Lstat(path.Join(dir, rel)); err == nil {
			return rel
		}
	}
	return ""
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
		// O_EXCL: an example's file never replaces one of the copy's.
		f, err := os.OpenFile(abs, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return fmt.Errorf("cannot write an example's file: %w", err)
		}
		_, err = f.WriteString(files[p])
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("cannot write an example's file: %w", err)
		}
	}
	return nil
}
