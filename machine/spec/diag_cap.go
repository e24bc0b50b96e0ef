package spec

import (
	"fmt"
	"regexp"
)

// maxAlike is how many diagnostics of one kind a report shows in full.
const maxAlike = 10

// alikeRE matches what tells diagnostics of one kind apart: quoted names
// and numbers.
var alikeRE = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|\d+`)

// capAlike shortens a report that repeats one kind of diagnostic (the same
// message but for names and numbers: an alias used a thousand times, a
// generated spec with one mistake in every state): it keeps the first
// maxAlike of a kind, in order, then the next one with "(and N more like
// it, to line L)" (its More counts them), and leaves the rest out. Counts
// (Count) still include every diagnostic.
func (ds Diagnostics) CapAlike() Diagnostics {
	kind := func(d Diagnostic) string {
		return d.Severity.String() + ":" + alikeRE.ReplaceAllString(moreRE.ReplaceAllString(d.Msg, ""), "_")
	}
	total := map[string]int{}
	last := map[string]int{}
	for _, d := range ds {
		k := kind(d)
		total[k] += 1 + d.More
		last[k] = d.Pos.Line
	}
	shown := map[string]int{}
	out := ds[:0:0]
	for _, d := range ds {
		k := kind(d)
		shown[k]++
		switch shown[k] {
		case maxAlike + 1:
			d.Msg = moreRE.ReplaceAllString(d.Msg, "")
			d.More = total[k] - maxAlike - 1
			if d.More > 0 {
				d.Msg += fmt.Sprintf(" (and %d more like it, to line %d)", d.More, last[k])
			}
			fallthrough
		default:
			if shown[k] <= maxAlike+1 {
				out = append(out, d)
			}
		}
	}
	return out
}

// moreRE matches what capAlike adds to a message.
var moreRE = regexp.MustCompile(` \(and \d+ more like it, to line \d+\)$`)

// Count returns how many diagnostics of severity sev the report holds,
// those left out as alike included.
func (ds Diagnostics) Count(sev Severity) int {
	n := 0
	for _, d := range ds {
		if d.Severity == sev {
			n += 1 + d.More
		}
	}
	return n
}
