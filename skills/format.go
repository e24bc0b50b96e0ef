package skills

import (
	"fmt"
	"strings"

	"github.com/lppctl/lppctl/internal/textx"
)

// RelevantHeading opens the section FormatRelevant produces.
const RelevantHeading = "## Relevant Skills (learned from past experience)"

// FormatRelevant renders skills for a prompt: the RelevantHeading, then one
// numbered item per skill (name, principle, when to apply), then
// "Consider these skills when planning your approach.". No skills give ""
// so that a prompt without skills stays byte-identical.
func FormatRelevant(skills []Skill) string {
	if len(skills) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(RelevantHeading + "\n\n")
	for i, s := range skills {
		fmt.Fprintf(&b, "%d. **%s**\n", i+1, strings.ReplaceAll(textx.OneLine(s.Name), "*", `\*`))
		fmt.Fprintf(&b, "   - Principle: %s\n", promptText(s.Principle))
		fmt.Fprintf(&b, "   - When to apply: %s\n", promptText(s.WhenToApply))
	}
	b.WriteString("\nConsider these skills when planning your approach.\n")
	return b.String()
}

// promptText is a skill's principle or when_to_apply as the prompts show
// it. Skills come from the teacher (a model that read tool outputs) and from
// any MCP client, so their text is data, never prompt structure: as in a
// skills.md entry (entryText) a line that looks like a heading, a fence, a
// comment or a Setext underline is escaped with a backslash, and so is a
// line that opens with a tag (</skill>, <tools>, <primary_directive>...),
// the prompts' own delimiters; continuation lines are indented under the
// item.
func promptText(text string) string {
	lines := strings.Split(entryText(text, ""), "\n")
	for i, l := range lines {
		t := strings.TrimLeft(l, " \t")
		if opensWithTag(t) {
			l = l[:len(l)-len(t)] + "\\" + t
		}
		if i > 0 {
			l = "     " + l
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

// opensWithTag reports whether s starts with an XML-like tag (see
// textx.OpensWithTag).
func opensWithTag(s string) bool { return textx.OpensWithTag(s) }
