package lpp

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"github.com/lppctl/lppctl/machine/export"
)

// anyID is the node that stands for "*" (every state) in a diagram.
const anyID = "lpp_any"

// Mermaid draws a blueprint as a Mermaid stateDiagram-v2: `[*] --> entry`,
// one edge per transition labelled `ID: EVENT [guard] / actions` with every
// gate's full text (L++'s own drawings cut gates to 30 characters), "*"
// transitions drawn once from a node "* (any state)" instead of expanded
// into every state, and `terminal --> [*]`. Several transitions from a
// state to itself are one edge with one label line each (Mermaid draws
// only the last label of several loops on one node).
func Mermaid(bp *Blueprint) string {
	ids := map[string]string{}
	var b strings.Builder
	b.WriteString("stateDiagram-v2\n")
	fmt.Fprintf(&b, "    %%%% L++ blueprint %s\n", export.MermaidText(cmpOr(bp.ID, bp.Name)))
	taken := map[string]bool{anyID: true}
	for _, s := range bp.States {
		taken[s.ID] = export.MermaidID(s.ID)
	}
	for i, s := range bp.States {
		if export.MermaidID(s.ID) && s.ID != anyID && bp.Spelling(s.ID) == s.ID {
			ids[s.ID] = s.ID
			continue
		}
		id := "s" + strconv.Itoa(i)
		for taken[id] {
			id += "_"
		}
		taken[id] = true
		ids[s.ID] = id
		fmt.Fprintf(&b, "    state \"%s\" as %s\n", strings.ReplaceAll(export.MermaidText(bp.Spelling(s.ID)), `"`, "'"), id)
	}
	hasAny := false
	for _, t := range bp.Transitions {
		hasAny = hasAny || t.From == Any
	}
	if hasAny {
		fmt.Fprintf(&b, "    state \"* (any state)\" as %s\n", anyID)
	}
	if bp.Entry != "" {
		fmt.Fprintf(&b, "    [*] --> %s\n", ids[bp.Entry])
	}
	type edge struct {
		from, to string
		labels   []string
	}
	var edges []*edge
	loops := map[string]*edge{}
	for _, t := range bp.Transitions {
		from := anyID
		if t.From != Any {
			from = ids[t.From]
		}
		to := ids[t.To]
		l := edgeLabel(bp, t)
		if from == to {
			if e := loops[from]; e != nil {
				e.labels = append(e.labels, l)
				continue
			}
		}
		e := &edge{from: from, to: to, labels: []string{l}}
		if from == to {
			loops[from] = e
		}
		edges = append(edges, e)
	}
	for _, e := range edges {
		parts := make([]string, len(e.labels))
		for i, l := range e.labels {
			parts[i] = export.MermaidText(l)
		}
		fmt.Fprintf(&b, "    %s --> %s : %s\n", e.from, e.to, strings.Join(parts, "<br/>"))
	}
	for _, t := range bp.Terminals {
		if id, ok := ids[t.ID]; ok {
			fmt.Fprintf(&b, "    %s --> [*]\n", id)
		}
	}
	return b.String()
}

// edgeLabel is `ID: EVENT [gate and gate] / action, action` with each
// gate's full expression (a compute gate as `compute ns:op`).
func edgeLabel(bp *Blueprint, t *Transition) string {
	l := cmp.Or(t.Written, t.ID) + ": " + bp.Spelling(t.Event)
	var guards []string
	for _, id := range t.Gates {
		g := bp.Gate(id)
		switch {
		case g == nil:
			guards = append(guards, id)
		case g.Type == GateCompute:
			guards = append(guards, "compute "+g.ComputeUnit)
		case len(t.Gates) > 1:
			guards = append(guards, "("+g.Expression+")")
		default:
			guards = append(guards, g.Expression)
		}
	}
	if len(guards) > 0 {
		l += " [" + strings.Join(guards, " and ") + "]"
	}
	if len(t.Actions) > 0 {
		l += " / " + strings.Join(t.Actions, ", ")
	}
	return l
}
