package agent

import (
	"fmt"
	"strings"

	"github.com/lppctl/lppctl/actions"
	"github.com/lppctl/lppctl/machine"
)

// MemL2Origin is the run memory slot that says which step committed which
// L2 lines: a list of l2Origin, one per commit.
const MemL2Origin = "l2_origin"

// l2Origin records that step Step committed Count L2 lines starting at
// index First of MemL2.
type l2Origin struct {
	Step  int `json:"step"`
	First int `json:"first"`
	Count int `json:"count"`
}

// maxListedKeys bounds how many out-of-scope L2 keys a prompt names, so the
// prompt stays flat however long the run: the most recent are named, the
// others counted.
const maxListedKeys = 24

// stepScope returns the steps whose L2 lines step shows in full: those it
// depends on, transitively (through depends_on), and those the plan marks
// global. ok is false when the plan gives no dependency information at
// all (no depends_on, no global anywhere): every line is then in scope, as
// a plan written without scoping in mind expects.
func stepScope(p *SkillPlan, step *PlanStep) (scope map[int]bool, ok bool) {
	byIndex := map[int]*PlanStep{}
	for _, s := range p.Steps {
		if s == nil {
			continue
		}
		byIndex[s.Index] = s
		ok = ok || len(s.DependsOn) > 0 || s.Global
	}
	if !ok {
		return nil, false
	}
	scope = map[int]bool{}
	for _, s := range p.Steps {
		if s != nil && s.Global {
			scope[s.Index] = true
		}
	}
	var visit func(i int)
	visit = func(i int) {
		if scope[i] && i != step.Index {
			return
		}
		scope[i] = true
		if s := byIndex[i]; s != nil {
			for _, d := range s.DependsOn {
				if d != i {
					visit(d)
				}
			}
		}
	}
	visit(step.Index)
	return scope, true
}

// scopedSkillMemory renders L2 for a step's prompts: the lines committed by
// the steps in its scope (see stepScope), and lines of unknown origin, in
// full; the keys of the other lines by name only, after them, the most
// recent maxListedKeys named and the rest counted.
func scopedSkillMemory(tx machine.MemoryTx, p *SkillPlan, step *PlanStep) string {
	lines := l2Lines(tx)
	if len(lines) == 0 {
		return skillMemory(tx)
	}
	scope, ok := stepScope(p, step)
	if !ok {
		return strings.Join(lines, "\n")
	}
	origin := make([]int, len(lines)) // 0: unknown
	for _, raw := range tx.Items(MemL2Origin) {
		var o l2Origin
		if actions.JSONUnmarshal(raw, &o) != nil {
			continue
		}
		for i := o.First; i < o.First+o.Count && i < len(lines); i++ {
			if i >= 0 {
				origin[i] = o.Step
			}
		}
	}
	var full, keys []string
	shown := map[string]bool{}
	for i, line := range lines {
		if origin[i] == 0 || scope[origin[i]] {
			full = append(full, line)
			k, _, _ := strings.Cut(line, "=")
			shown[k] = true
		}
	}
	listed := map[string]bool{}
	for i := len(lines) - 1; i >= 0; i-- { // newest first, to name the most recent
		k, _, _ := strings.Cut(lines[i], "=")
		if origin[i] == 0 || scope[origin[i]] || shown[k] || listed[k] {
			continue
		}
		listed[k] = true
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		if len(full) == 0 {
			return skillMemory(tx)
		}
		return strings.Join(full, "\n")
	}
	var b strings.Builder
	for _, l := range full {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	named := keys[:min(len(keys), maxListedKeys)]
	for i, j := 0, len(named)-1; i < j; i, j = i+1, j-1 {
		named[i], named[j] = named[j], named[i] // oldest first
	}
	fmt.Fprintf(&b, "(values not shown, from steps this one does not depend on: %s", strings.Join(named, ", "))
	if more := len(keys) - len(named); more > 0 {
		fmt.Fprintf(&b, "; %d older key(s)", more)
	}
	b.WriteString(")")
	return b.String()
}
