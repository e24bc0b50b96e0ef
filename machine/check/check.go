package check

import (
	"context"
	"time"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// DefaultMaxStates bounds a model check when CheckOptions leave MaxStates 0.
const DefaultMaxStates = 1_000_000

// Verdict is the outcome of one property of a model check.
type Verdict string

// Verdicts. UNKNOWN means the exploration stopped (a bound, or an
// interruption) before the property could be decided.
const (
	Pass    Verdict = "PASS"
	Fail    Verdict = "FAIL"
	Unknown Verdict = "UNKNOWN"
)

// The properties a model check decides, in report order.
const (
	PropDeadlock      = "deadlock"       // no reachable non-final state where nothing can fire
	PropReachable     = "reachable"      // every state (and so every final state) is reached
	PropTermination   = "termination"    // from every reachable state a final state stays reachable
	PropInvariants    = "invariants"     // every invariant holds in every reachable state it applies to
	PropFinalRequires = "final_requires" // every run that ends meets its final state's final_requires
	PropBounds        = "bounds"         // ranges hold, and no path exhausts max_transitions
	PropEvaluation    = "evaluation"     // guards and sets evaluate without error (types, enums)
)

// propertyTitles are the one-line names reports print.
var propertyTitles = map[string]string{
	PropDeadlock:      "no deadlock",
	PropReachable:     "every state reachable",
	PropTermination:   "termination (no trap)",
	PropInvariants:    "invariants",
	PropFinalRequires: "final_requires",
	PropBounds:        "bounds (ranges, max_transitions)",
	PropEvaluation:    "expressions evaluate",
}

var propertyOrder = []string{PropDeadlock, PropReachable, PropTermination, PropInvariants, PropFinalRequires, PropBounds, PropEvaluation}

// CheckOptions bound a model check.
type CheckOptions struct {
	// MaxStates is the number of distinct (state, context) pairs explored
	// before the check stops with UNKNOWN verdicts (0: DefaultMaxStates). It
	// bounds the memory used.
	MaxStates int
	// MaxDepth is the number of transitions a path may take: the run's
	// budget. 0 means the spec's limits.max_transitions, else
	// DefaultMaxTransitions. A path that reaches it without ending fails the
	// bounds property, as the run would fail with ErrBudget.
	MaxDepth int
	// Progress, when set, is called about every second with the statistics
	// so far.
	Progress func(CheckStats)
	// Initial gives variables the value they start from instead of their
	// default (typed, as Var.ParseOverride returns them): what a caller
	// sets. A given value wins over `input: true` and Inputs.
	Initial map[string]any
	// Interpreted evaluates every guard and set with expr, as the run
	// does, instead of the compiled closures of the programs that have one
	// (check_fast.go): slower, and the same verdicts (the reference the
	// compiled evaluation is tested against).
	Interpreted bool
	// Inputs names variables that start from every value of their domain
	// (the values an action's write takes, VarDomain), besides those the
	// spec marks `input: true`: the exploration starts from every
	// combination. Validate reports names the spec does not declare.
	Inputs []string
}

// CheckStats describes an exploration.
type CheckStats struct {
	States      int           `json:"states"`      // distinct (state, context) pairs
	Transitions int           `json:"transitions"` // moves explored, including those to states seen before
	Depth       int           `json:"depth"`       // the longest shortest path, in transitions
	Duration    time.Duration `json:"duration_ns"`
}

// StatesPerSecond is the exploration rate.
func (s CheckStats) StatesPerSecond() float64 {
	if s.Duration <= 0 {
		return 0
	}
	return float64(s.States) / s.Duration.Seconds()
}

// CheckReport is the result of a model check.
type CheckReport struct {
	File       string           `json:"file"`
	Spec       string           `json:"spec"`
	Complete   bool             `json:"complete"`          // every reachable state was explored
	Stopped    string           `json:"stopped,omitempty"` // why not: what bound to raise, or "interrupted"
	Stats      CheckStats       `json:"stats"`
	Properties []PropertyResult `json:"properties"`
	// Dead lists the transitions and events of reached states that no
	// explored path took.
	Dead []DeadTransition `json:"dead_transitions"`
	// Domains lists the values the check gave the variables actions write.
	Domains []VarDomain `json:"domains"`
	// Inputs lists the variables that did not start from their default: a
	// value given (Source "given") or every value of a free input's domain.
	Inputs []VarDomain `json:"inputs,omitempty"`
}

// PropertyResult is the verdict of one property.
type PropertyResult struct {
	Property string  `json:"property"`
	Title    string  `json:"title"`
	Verdict  Verdict `json:"verdict"`
	// Message says what was violated (FAIL) or why it is unknown (UNKNOWN).
	Message string `json:"message,omitempty"`
	// Pos points at what the message is about: the stuck state, the
	// invariant, the unreached state, the range.
	Pos   mspec.Pos `json:"pos"`
	Trace *Trace    `json:"counterexample,omitempty"`
}

// Trace is a counterexample: the shortest path from the initial state to the
// violation.
type Trace struct {
	Steps []TraceStep `json:"steps"`
	// Loop, for a trap, names the states of a cycle the run can no longer leave.
	Loop []string `json:"loop,omitempty"`
	// Inputs holds the values the free inputs started from on this path
	// (those a later expression reads).
	Inputs map[string]any `json:"inputs,omitempty"`
}

// States returns the states the trace goes through, the initial one first.
func (t *Trace) States() []string {
	if t == nil || len(t.Steps) == 0 && len(t.Loop) == 0 {
		return nil
	}
	var out []string
	if len(t.Steps) > 0 {
		out = append(out, t.Steps[0].From)
	}
	for _, s := range t.Steps {
		if s.To != "" {
			out = append(out, s.To)
		}
	}
	return append(out, t.Loop...) // a trap's cycle, entered where the steps end
}

// TraceStep is one step of a counterexample: the action of From ran (with
// the values it wrote, or failing), and the machine moved to To by Via. The
// last step of a trace may end in From (To ""): the violation happened there.
type TraceStep struct {
	From  string         `json:"from"`
	To    string         `json:"to,omitempty"`
	Via   string         `json:"via"`             // "next[i]", "on_error", "event NAME", or "" when the trace ends here
	Guard string         `json:"guard,omitempty"` // the `when` that held
	Pos   mspec.Pos      `json:"pos"`             // of the transition or event taken (of From when none)
	Wrote map[string]any `json:"wrote,omitempty"` // the values the action wrote
	Error string         `json:"error,omitempty"` // the action failed with this last_error
	Vars  map[string]any `json:"vars,omitempty"`  // variables the step's set changed (new values)
	// Event and Payload, on a step an event from outside takes, are what
	// replays it: lppctl run --event EVENT --payload PAYLOAD (as JSON). An
	// event the state's action emitted has neither: the run sends it.
	Event   string         `json:"event,omitempty"`
	Payload map[string]any `json:"payload,omitempty"`
	// Deliver, on such a step, says how the event replays
	// (check_deliver.go): "queue" (lppctl run --event, up front: no earlier
	// step of the path would take it), "resume" (an earlier step would: when
	// the run pauses in From, which waits for events, lppctl resume RUN_ID
	// --event), "send" (an earlier step would, and From does not wait: only
	// a sender while From's action runs). DeliverNote says which step.
	Deliver     string `json:"deliver,omitempty"`
	DeliverNote string `json:"deliver_note,omitempty"`
}

// DeadTransition is a transition (or event) that no explored path took.
type DeadTransition struct {
	State string    `json:"state,omitempty"` // "" for an event
	Via   string    `json:"via"`             // "next[i]", "on_error", "event NAME"
	To    string    `json:"to"`
	Guard string    `json:"guard,omitempty"`
	Pos   mspec.Pos `json:"pos"`
}

// VarDomain lists the values a variable takes when an action writes it.
type VarDomain struct {
	Var    string `json:"var"`
	Values []any  `json:"values"`
	Source string `json:"source"` // "enum", "bool", "range", "default", "compared", ...
}

// Passed reports whether no property failed.
func (r *CheckReport) Passed() bool {
	for _, p := range r.Properties {
		if p.Verdict == Fail {
			return false
		}
	}
	return true
}

// Unknowns counts the properties left undecided.
func (r *CheckReport) Unknowns() int {
	n := 0
	for _, p := range r.Properties {
		if p.Verdict == Unknown {
			n++
		}
	}
	return n
}

// Property returns the result of the named property (PropDeadlock...), or nil.
func (r *CheckReport) Property(name string) *PropertyResult {
	for i := range r.Properties {
		if r.Properties[i].Property == name {
			return &r.Properties[i]
		}
	}
	return nil
}

// ModelCheck explores every reachable (state, context) pair of the machine,
// breadth first, and decides the properties of docs/check.md: no deadlock,
// every state reachable, termination, invariants, final_requires, bounds and
// evaluation. Guards and sets are evaluated for real with the compiled
// expressions; what an action does is unknown, so each variable it writes
// takes every value of a bounded domain (see VarDomain), and a state with an
// on_error route also takes its error route. External events may fire in
// every state they apply in. Counterexamples are shortest paths.
//
// Visited pairs are stored exactly and compactly (check_store.go): each
// distinct value is interned once, and a pair is a fixed-size record of value
// ids, so no two pairs are ever confused. Guards and sets that read only
// context variables are memoised by the ids of what they read
// (check_memo.go). Variables whose value no later expression reads before it
// is overwritten are reset to their defaults (dead-variable reduction), which
// changes no verdict. While a large check runs, the garbage collector's
// target is lowered (check_gc.go).
//
// The check stops early when ctx is done (Stopped "interrupted") or as soon
// as MaxStates pairs are stored; the properties it could not decide are then
// UNKNOWN.
func ModelCheck(ctx context.Context, m *machine.Machine, opts CheckOptions) *CheckReport {
	x := NewExplorer(m, opts)
	defer x.arena.release() // after the verdicts, which read the nodes; the report holds nothing of the arena
	defer func() {
		if x.restoreGC != nil {
			x.restoreGC()
		}
	}()
	start := time.Now()
	x.run(ctx, start)
	rep := &CheckReport{File: m.Spec().File, Spec: m.Spec().Name, Complete: x.stopped == "", Stopped: x.stopped}
	rep.Stats = x.stats(time.Since(start))
	x.store.dropTable() // no pair is looked up any more: the trap search has the memory
	x.memo, x.memoOff = nil, true
	rep.Properties = x.verdicts()
	rep.Dead = x.deadTransitions()
	rep.Domains = x.domainReport()
	rep.Inputs = x.inputReport()
	x.arena.release() // the second exploration, if any, has the memory
	livelock(ctx, m, opts, rep)
	return rep
}
