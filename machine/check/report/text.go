// Package report writes a model check's report as text, for people and
// models: the summary line, one line per property, and under each FAIL its
// message, position and shortest counterexample.
package report

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/lppctl/lppctl/internal/textx"
	"github.com/lppctl/lppctl/machine/check"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// Options tune Text.
type Options struct {
	NoTimes bool // leave durations out (for golden files)
}

// Text renders the report for people and models: a summary line, one line
// per property, and under each FAIL its message with the position and the
// shortest counterexample, one numbered step per line.
func Text(r *check.CheckReport, opts Options) string {
	var b strings.Builder
	s := r.Stats
	// What is counted are (state, context) pairs, not the spec's states.
	fmt.Fprintf(&b, "%s: %s, %s, depth %d", r.File, textx.Count(s.States, "(state, context) pair", "(state, context) pairs"), textx.Count(s.Transitions, "transition", "transitions"), s.Depth)
	if !opts.NoTimes {
		fmt.Fprintf(&b, ", %s (%.0f pairs/s)", s.Duration.Round(time.Millisecond), s.StatesPerSecond())
	}
	b.WriteByte('\n')
	if len(r.Inputs) > 0 {
		fmt.Fprintf(&b, "  starts from: %s\n", formatInputs(r.Inputs))
	}
	if r.Stopped != "" {
		fmt.Fprintf(&b, "  stopped early: %s\n", r.Stopped)
	}
	for _, p := range r.Properties {
		fmt.Fprintf(&b, "  %-7s %s", p.Verdict, p.Title)
		if p.Message != "" && p.Verdict == check.Pass {
			fmt.Fprintf(&b, " (%s)", p.Message)
		}
		b.WriteByte('\n')
		if p.Verdict == check.Pass {
			continue
		}
		// An expr error brings its own lines (the expression, a caret):
		// they stay inside the property's block.
		fmt.Fprintf(&b, "          %s%s\n", where(r, p.Pos), strings.ReplaceAll(p.Message, "\n", "\n          "))
		if p.Trace != nil {
			formatTrace(r, &b, p.Trace)
		}
	}
	if len(r.Dead) > 0 {
		fmt.Fprintf(&b, "  %s no explored path took:\n", textx.Count(len(r.Dead), "transition", "transitions"))
		for _, d := range r.Dead {
			what := d.Via
			if d.State != "" {
				what = fmt.Sprintf("state %q %s", d.State, d.Via)
			}
			guard := ""
			if d.Guard != "" {
				guard = ", when " + d.Guard
			}
			fmt.Fprintf(&b, "          %s%s → %s%s\n", where(r, d.Pos), what, d.To, guard)
		}
	}
	if !r.Passed() && len(r.Domains) > 0 {
		b.WriteString("  values given to what actions write:\n")
		for _, d := range r.Domains {
			vals := make([]string, len(d.Values))
			for i, v := range d.Values {
				vals[i] = check.QuoteValue(v)
			}
			fmt.Fprintf(&b, "          %s ∈ {%s} (%s)\n", d.Var, strings.Join(vals, ", "), d.Source)
		}
	}
	return b.String()
}

func where(r *check.CheckReport, p mspec.Pos) string {
	if !p.IsValid() {
		return ""
	}
	return fmt.Sprintf("%s:%d:%d: ", r.File, p.Line, p.Col)
}

// formatTrace writes a counterexample, one step a line:
//
//  1. plan → approve_plan  next[0] at spec.yaml:54:9 when plan_error == ""; wrote step_count=0; set plan_attempts=1
//
// A counterexample over maxShownSteps steps (a path that spends a budget of
// 10,000 transitions) shows its first shownHead and last shownTail steps,
// with the count of those left out between; --json keeps every step.
func formatTrace(r *check.CheckReport, b *strings.Builder, t *check.Trace) {
	fmt.Fprintf(b, "          shortest counterexample (%s):\n", textx.Count(len(t.Steps), "step", "steps"))
	shown := func(i int) bool {
		return len(t.Steps) <= maxShownSteps || i < shownHead || i >= len(t.Steps)-shownTail
	}
	width, numWidth := 0, max(2, len(strconv.Itoa(len(t.Steps))))
	for i, s := range t.Steps {
		if shown(i) {
			width = max(width, len(head(s)))
		}
	}
	if len(t.Inputs) > 0 {
		fmt.Fprintf(b, "              inputs: %s\n", formatVars(t.Inputs))
	}
	for i, s := range t.Steps {
		if !shown(i) {
			if i == shownHead {
				fmt.Fprintf(b, "          … %s left out (%d to %d; --json lists every step) …\n",
					textx.Count(len(t.Steps)-shownHead-shownTail, "step", "steps"), shownHead+1, len(t.Steps)-shownTail)
			}
			continue
		}
		var parts []string
		if s.Via != "" {
			via := s.Via
			if s.Event != "" {
				via += " from outside" // not emitted by the action: lppctl run --event replays it
			}
			via = fmt.Sprintf("%s at %s:%d:%d", via, r.File, s.Pos.Line, s.Pos.Col)
			if s.Guard != "" {
				via += " when " + s.Guard
			}
			parts = append(parts, via)
		}
		if len(s.Wrote) > 0 {
			parts = append(parts, "wrote "+formatVars(s.Wrote))
		}
		if s.Error != "" {
			parts = append(parts, fmt.Sprintf("failed with %q", s.Error))
		}
		if len(s.Vars) > 0 {
			parts = append(parts, "set "+formatVars(s.Vars))
		}
		if s.To == "" && s.Via == "" {
			parts = append(parts, "stops here")
		}
		fmt.Fprintf(b, "          %*d. %-*s  %s\n", numWidth, i+1, width, head(s), strings.Join(parts, "; "))
	}
	if len(t.Loop) > 0 {
		fmt.Fprintf(b, "          then loops: %s\n", strings.Join(t.Loop, " → "))
	}
	formatReplay(r, b, t)
}

// formatReplay says how the events from outside of a counterexample
// replay (check_deliver.go): those queued up front, then those delivered to
// the paused run, and those no command delivers where the path takes them.
func formatReplay(r *check.CheckReport, b *strings.Builder, t *check.Trace) {
	var queued []string
	var then []string
	for i, s := range t.Steps {
		ev := "--event " + s.Event
		if len(s.Payload) > 0 {
			js, _ := json.Marshal(s.Payload)
			ev += " --payload " + shellQuote(string(js))
		}
		switch s.Deliver {
		case check.DeliverQueue:
			queued = append(queued, ev)
		case check.DeliverResume:
			then = append(then, fmt.Sprintf("when the run pauses in %q (step %d): lppctl resume RUN_ID %s (not queued up front: %s)", s.From, i+1, ev, s.DeliverNote))
		case check.DeliverFork:
			then = append(then, fmt.Sprintf("for step %d: lppctl runs fork RUN_ID --step %d, then lppctl resume NEW_RUN_ID %s (NEW_RUN_ID is the run from here on; the event is fired where the run enters %q, whose action writes nothing and which has no set: as the run that had it sent while that action ran; not queued up front: %s)", i+1, i, ev, s.From, s.DeliverNote))
		case check.DeliverSend:
			then = append(then, fmt.Sprintf("step %d's event %s replays with no command: it must be sent (Run.SendEvent) while the run is in %q, before its transitions are tried (%s)", i+1, s.Event, s.From, s.DeliverNote))
		}
	}
	if len(queued) == 0 && len(then) == 0 {
		return
	}
	run := "lppctl run " + shellQuote(r.File)
	if len(queued) > 0 {
		run += " " + strings.Join(queued, " ")
	}
	fmt.Fprintf(b, "          events from outside replay with: %s\n", run)
	for _, s := range then {
		fmt.Fprintf(b, "            then %s\n", s)
	}
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./:=@+,", c))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// A counterexample longer than maxShownSteps is shown by its first shownHead
// and last shownTail steps.
const (
	maxShownSteps = 40
	shownHead     = 20
	shownTail     = 10
)

func head(s check.TraceStep) string {
	if s.To == "" {
		return s.From
	}
	return s.From + " → " + s.To
}

// formatVars renders name=value pairs sorted by name.
func formatVars(vars map[string]any) string {
	names := make([]string, 0, len(vars))
	for name := range vars {
		names = append(names, name)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = name + "=" + check.QuoteValue(vars[name])
	}
	return strings.Join(parts, ", ")
}

// formatInputs renders the values a check starts from: `mode="fast" (given),
// n ∈ {0, 1, 2} (input)`.
func formatInputs(ins []check.VarDomain) string {
	parts := make([]string, len(ins))
	for i, d := range ins {
		if d.Source == "given" {
			parts[i] = fmt.Sprintf("%s=%s (given)", d.Var, check.QuoteValue(d.Values[0]))
			continue
		}
		vals := make([]string, len(d.Values))
		for j, v := range d.Values {
			vals[j] = check.QuoteValue(v)
		}
		parts[i] = fmt.Sprintf("%s ∈ {%s} (input)", d.Var, strings.Join(vals, ", "))
	}
	return strings.Join(parts, ", ")
}
