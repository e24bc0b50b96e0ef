package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lppctl/lppctl/internal/textx"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/check"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// Bounds of the Spec page's Check (lppctl ui --max-states, --check-timeout).
const (
	DefaultCheckMaxStates = 200_000
	DefaultCheckTimeout   = 10 * time.Second
)

// checkView is a model check's report as the Spec page shows it.
type checkView struct {
	Error      string // the check could not run (an invalid spec, a busy checker)
	Summary    string // "6 (state, context) pairs, 9 transitions, depth 2, 3ms"
	Stopped    string // why it stopped early ("" when complete)
	Passed     bool
	Headline   string // "no property fails", "a property fails", or what is undecided
	Tone       string // the headline's class: ok, err, warn (undecided)
	Properties []propView
	Dead       []string // transitions no explored path took, "file:l:c: what"
	Domains    []string // the values given to what actions write, when a property fails
	Drawn      string   // the property whose counterexample the diagram shows
}

// propView is one property's verdict and, for a FAIL, its counterexample.
type propView struct {
	Property, Title, Verdict string
	Where, Message           string // "specs/x.yaml:9:3", and what was violated
	Steps                    []traceStepView
	Loop                     string // a trap's cycle: "a → b → a"
	DrawURL                  string // the page drawing this counterexample
}

// traceStepView is one step of a counterexample.
type traceStepView struct {
	Head  string // "measure → route", or the state the trace stops in
	Where string // the position of the transition or event taken
	What  string // "next[0] when n < 2; wrote n=2; set i=1", or "stops here"
}

// checkSpec model-checks spec within the UI's bounds: Options.CheckMaxStates
// states and Options.CheckTimeout, one check at a time. rel is the spec's
// path under the root, used in positions.
func (s *Server) checkSpec(ctx context.Context, spec *mspec.Spec, rel string) (*check.CheckReport, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.CheckTimeout)
	defer cancel()
	select {
	case s.checks <- struct{}{}: // free: check even if ctx is already done
	default:
		select {
		case s.checks <- struct{}{}:
		case <-ctx.Done():
			return nil, fmt.Errorf("cannot check %s: another check kept the checker busy for %s; try again", rel, s.opts.CheckTimeout)
		}
	}
	defer func() { <-s.checks }()
	m, err := s.compile(spec)
	if err != nil {
		return nil, fmt.Errorf("cannot compile %s: %w", rel, err)
	}
	r := check.ModelCheck(ctx, m, check.CheckOptions{MaxStates: s.opts.CheckMaxStates})
	if r.Stopped == "interrupted" && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		r.Stopped = fmt.Sprintf("the UI's time limit of %s ran out (lppctl ui --check-timeout raises it; lppctl check %s has none)", s.opts.CheckTimeout, rel)
	}
	return r, nil
}

// compile compiles spec with Options.Compile, else against the built-in
// actions.
func (s *Server) compile(spec *mspec.Spec) (*machine.Machine, error) {
	if s.opts.Compile != nil {
		return s.opts.Compile(spec)
	}
	return machine.Compile(spec, machine.NewBuiltinRegistry())
}

// viewCheck turns a report into the page's view; positions name rel, and
// each FAIL with a counterexample links to drawURL(property).
func viewCheck(r *check.CheckReport, rel string, drawURL func(string) string) *checkView {
	where := func(p mspec.Pos) string {
		if !p.IsValid() {
			return ""
		}
		return fmt.Sprintf("%s:%d:%d", rel, p.Line, p.Col)
	}
	s := r.Stats
	v := &checkView{
		Summary: fmt.Sprintf("%s, %s, depth %d, %s", textx.Count(s.States, "(state, context) pair", "(state, context) pairs"), textx.Count(s.Transitions, "transition", "transitions"), s.Depth, s.Duration.Round(time.Millisecond)),
		Stopped: r.Stopped,
		Passed:  r.Passed(),
	}
	var unknown []string
	for _, p := range r.Properties {
		if p.Verdict == check.Unknown {
			unknown = append(unknown, p.Title)
		}
	}
	switch {
	case !v.Passed:
		v.Headline, v.Tone = "a property fails", "err"
	case len(unknown) > 0: // no FAIL, but not every state was explored
		v.Headline, v.Tone = fmt.Sprintf("undecided: the check stopped early; %d of %d properties are UNKNOWN (%s), none fails in what it explored", len(unknown), len(r.Properties), strings.Join(unknown, ", ")), "warn"
	default:
		v.Headline, v.Tone = "no property fails", "ok"
	}
	for _, p := range r.Properties {
		pv := propView{Property: p.Property, Title: p.Title, Verdict: string(p.Verdict), Message: p.Message}
		if p.Verdict != check.Pass {
			pv.Where = where(p.Pos)
		}
		if t := p.Trace; t != nil {
			pv.DrawURL = drawURL(p.Property)
			for _, st := range t.Steps {
				pv.Steps = append(pv.Steps, viewTraceStep(st, where(st.Pos)))
			}
			pv.Loop = strings.Join(t.Loop, " → ")
		}
		v.Properties = append(v.Properties, pv)
	}
	for _, d := range r.Dead {
		what := d.Via
		if d.State != "" {
			what = fmt.Sprintf("state %q %s", d.State, d.Via)
		}
		line := fmt.Sprintf("%s → %s", what, d.To)
		if d.Guard != "" {
			line += ", when " + d.Guard
		}
		if w := where(d.Pos); w != "" {
			line = w + ": " + line
		}
		v.Dead = append(v.Dead, line)
	}
	if !r.Passed() {
		for _, d := range r.Domains {
			vals := make([]string, len(d.Values))
			for i, x := range d.Values {
				vals[i] = showValue(x)
			}
			v.Domains = append(v.Domains, fmt.Sprintf("%s ∈ {%s} (%s)", d.Var, strings.Join(vals, ", "), d.Source))
		}
	}
	return v
}

// viewTraceStep describes one counterexample step as lppctl check prints it.
func viewTraceStep(st check.TraceStep, where string) traceStepView {
	sv := traceStepView{Head: st.From}
	if st.To != "" {
		sv.Head += " → " + st.To
	}
	var parts []string
	if st.Via != "" {
		sv.Where = where
		via := st.Via
		if st.Guard != "" {
			via += " when " + st.Guard
		}
		parts = append(parts, via)
	}
	if len(st.Wrote) > 0 {
		parts = append(parts, "wrote "+showVars(st.Wrote))
	}
	if st.Error != "" {
		parts = append(parts, "failed with "+strconv.Quote(st.Error))
	}
	if len(st.Vars) > 0 {
		parts = append(parts, "set "+showVars(st.Vars))
	}
	if st.To == "" && st.Via == "" {
		parts = append(parts, "stops here")
	}
	sv.What = strings.Join(parts, "; ")
	return sv
}

// showVars renders name=value pairs sorted by name.
func showVars(vars map[string]any) string {
	names := make([]string, 0, len(vars))
	for name := range vars {
		names = append(names, name)
	}
	slices.Sort(names)
	for i, name := range names {
		names[i] = name + "=" + showValue(vars[name])
	}
	return strings.Join(names, ", ")
}

// showValue renders a context value: strings quoted, lists and maps as JSON.
func showValue(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case []any, map[string]any:
		if b, err := json.Marshal(x); err == nil {
			return string(b)
		}
	}
	return fmt.Sprint(v)
}

// drawnTrace picks the counterexample the diagram shows: the property named
// by want when it has one, else the first property that has one.
func drawnTrace(r *check.CheckReport, want string) (string, *check.Trace) {
	if p := r.Property(want); p != nil && p.Trace != nil {
		return p.Property, p.Trace
	}
	for _, p := range r.Properties {
		if p.Trace != nil {
			return p.Property, p.Trace
		}
	}
	return "", nil
}
