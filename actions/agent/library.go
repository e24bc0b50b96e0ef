package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"strings"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/skills"
)

// maxRelevantSkills bounds the relevant_skills parameter.
const maxRelevantSkills = 20

// libraryPath is the skill library the prompts draw on and skill.teacher
// updates: --skills-library (or $LPPCTL_SKILLS, read by the CLI), else
// ROOT/.lppctl/skills.json. Relative paths are against the project root.
func (d *Deps) libraryPath() string {
	p := d.SkillsLibrary
	if p == "" {
		p = skills.DefaultLibraryPath
	}
	return d.RootPath(p)
}

// exprInt reads an expr parameter that must be a whole number (absent: 0).
func exprInt(c *machine.Call, name string) (int, error) {
	switch v := c.Param(name).(type) {
	case nil:
		return 0, nil
	case int:
		return v, nil
	case int64:
		return int(v), nil
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<31 {
			return int(v), nil
		}
	}
	return 0, fmt.Errorf("parameter %q of %s must be a whole number, got %v (%T)", name, c.Action, c.Param(name), c.Param(name))
}

// exprBool reads an expr parameter that must be a bool (absent: false).
func exprBool(c *machine.Call, name string) (bool, error) {
	switch v := c.Param(name).(type) {
	case nil:
		return false, nil
	case bool:
		return v, nil
	}
	return false, fmt.Errorf("parameter %q of %s must be true or false, got %v (%T)", name, c.Action, c.Param(name), c.Param(name))
}

// openLibrary opens the skill library at path for this run: the run is one
// iteration of the library (skills.WithRun), so the skills the teacher adds
// get the run's iteration as created_iteration, and the skills its prompts
// use get it as last_used_iteration. A resumed run keeps its iteration.
func (d *Deps) openLibrary(c *machine.Call, path string) (*skills.Library, error) {
	return skills.Open(path, skills.WithRun(d.ResolveRunID(c.RunID)))
}

// relevantSkills renders the "Relevant Skills" section for a prompt: at
// most relevant_skills (the action's parameter; 0 or absent: off) library
// skills ranked against query by skills.Library.SearchHits, the ranking of
// `lppctl skills search` and the MCP server, recording their use once. With
// embeddings (Deps.Embeddings) the k nearest skills always go in; with
// BM25 the skills that share no term with the query (score 0) are never
// injected, so an unrelated library leaves the prompt as it was. An
// embedder that fails only warns, once, and BM25 ranks from then on. A
// missing library is empty (and the run is not counted as an iteration); a
// broken one only adds a warning note. The error is for a bad parameter
// only. The hits are the skills injected, with their scores (for the
// step's outcome, see outcome.go).
func (d *Deps) relevantSkills(ctx context.Context, c *machine.Call, query string) (string, []skills.Hit, error) {
	k, err := exprInt(c, "relevant_skills")
	if err != nil {
		return "", nil, err
	}
	k = min(k, maxRelevantSkills)
	if k <= 0 || strings.TrimSpace(query) == "" {
		return "", nil, nil
	}
	path := d.libraryPath()
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return "", nil, nil
	}
	lib, err := skills.Open(path, d.libraryOptions(c)...)
	if err != nil {
		d.embedWarn(c)
		c.Warnf("no relevant skills in the prompt: %v", err)
		return "", nil, nil
	}
	hits, err := lib.SearchHits(ctx, query, k)
	d.embedWarn(c)
	if err != nil {
		ranked, rerr := lib.Rank(ctx, query, k)
		if rerr != nil {
			c.Warnf("no relevant skills in the prompt: %v", rerr)
			return "", nil, nil
		}
		c.Warnf("the use of relevant skills was not recorded: %v", err)
		hits = ranked
		if lib.Embedder() == nil {
			hits = ranked[:scored(ranked)]
		}
	}
	if len(hits) == 0 {
		return "", nil, nil
	}
	names := make([]string, len(hits))
	for i, h := range hits {
		names[i] = h.Name
	}
	how := ""
	if r := lib.Ranker(); r != "bm25" {
		how = " (" + r + ")"
	}
	c.Notef("relevant skills from %s%s: %s", d.RelToRoot(path), how, strings.Join(names, ", "))
	return skills.FormatRelevant(skills.SkillsOf(hits)), hits, nil
}

// skillQuery is what the planner's relevant skills are ranked against: the
// skill's text without its Success and Failure Cases, whose tool calls and
// outputs would drown the goal's words.
func skillQuery(text string) string {
	doc := &skills.SkillDoc{Text: text}
	for _, sec := range []string{skills.SectionSuccess, skills.SectionFailure} {
		if body := doc.Section(sec); body != "" {
			text = strings.Replace(text, body, "", 1)
		}
	}
	return text
}

// scored is the number of leading hits with a positive score (hits come best first).
func scored(hits []skills.Hit) int {
	for i, h := range hits {
		if h.Score <= 0 {
			return i
		}
	}
	return len(hits)
}

// runEntries keeps the entries of a skills.md section that this run wrote
// (their marker holds an id starting with prefix), in file order.
func runEntries(section, prefix string) string {
	var out []string
	for _, e := range splitEntries(section) {
		if strings.Contains("\n"+e, "\n<!-- lppctl:entry "+prefix) { // the marker line, not a quote of it
			out = append(out, e)
		}
	}
	return strings.Join(out, "\n\n")
}

// splitEntries cuts a section body at its "### " headings; text before the
// first heading is dropped.
func splitEntries(section string) []string {
	var (
		out []string
		cur []string
	)
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.TrimSpace(strings.Join(cur, "\n")))
		}
		cur = nil
	}
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "### ") {
			flush()
			cur = []string{line}
			continue
		}
		if cur != nil {
			cur = append(cur, line)
		}
	}
	flush()
	return out
}
