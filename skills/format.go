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
		fmt.Fprintf(&b, "%d. **%s**\n", i+1, textx.OneLine(s.Name))
		fmt.Fprintf(&b, "   - Principle: %s\n", indentContinuation(s.Principle, "     "))
		fmt.Fprintf(&b, "   - When to apply: %s\n", indentContinuation(s.WhenToApply, "     "))
	}
	b.WriteString("\nConsider these skills when planning your approach.\n")
	return b.String()
}
