package agent

import (
	"fmt"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/skills"
)

// teacherStats are the statistics of the library's skills from its outcome
// log, for the teacher's prompt; a log that cannot be read only warns.
func (d *Deps) teacherStats(c *machine.Call, lib *skills.Library, existing []skills.Skill) []skills.SkillStats {
	outs, err := lib.Outcomes()
	if err != nil {
		c.Warnf("the teacher gets no skill statistics: %v", err)
		return nil
	}
	names := make([]string, len(existing))
	for i, s := range existing {
		names[i] = s.Name
	}
	stats := skills.ComputeStats(outs, names)
	if n := injectedSkills(stats); n > 0 {
		c.Notef("the teacher gets the statistics of %d skill(s) from %s", n, d.RelToRoot(skills.OutcomesPath(lib.Path())))
	}
	return stats
}

// injectedSkills counts the skills that were injected at least once.
func injectedSkills(stats []skills.SkillStats) int {
	n := 0
	for _, s := range stats {
		if s.Injected > 0 {
			n++
		}
	}
	return n
}

// statsNote is what the statistics said of the skill an applied update or
// remove acted on: " (stats: hurts; injected into 2 step(s))", or "".
func statsNote(stats []skills.SkillStats, p skills.Proposal) string {
	if p.Action == skills.ActionAdd {
		return ""
	}
	name := p.SkillName
	if p.Action == skills.ActionUpdate && p.OldSkillName != "" {
		name = p.OldSkillName
	}
	for _, s := range stats {
		if s.Name == name && s.Injected > 0 {
			return fmt.Sprintf(" (stats: %s; injected into %d step(s))", s.Verdict, s.Injected)
		}
	}
	return ""
}
