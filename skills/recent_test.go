package skills

import (
	"fmt"
	"strings"
	"testing"
)

func TestRecentKeepsTheLatestEntriesOfEachSection(t *testing.T) {
	entry := func(i int, what string) string {
		return fmt.Sprintf("### [2025-01-0%d 10:00 UTC]\n<!-- lppctl:entry r/%s%d -->\n- %s %d\n\n", i, what, i, what, i)
	}
	var b strings.Builder
	b.WriteString("# Skill\n\nGoal: greet.\n\n## Success Cases\n\nWhat worked.\n\n")
	for i := 1; i <= 4; i++ {
		b.WriteString(entry(i, "ok"))
	}
	b.WriteString("## Failure Cases\n\n")
	b.WriteString(entry(1, "bad"))
	b.WriteString("## Notes\n\nKeep this.\n\n## Human Feedback\n\n")
	for i := 1; i <= 3; i++ {
		b.WriteString(entry(i, "fb"))
	}
	doc := &SkillDoc{Text: b.String()}

	want := "# Skill\n\nGoal: greet.\n\n## Success Cases\n\nWhat worked.\n\n" +
		"(2 older entries left out; the 2 most recent follow)\n\n" + entry(3, "ok") + entry(4, "ok") +
		"## Failure Cases\n\n" + entry(1, "bad") +
		"## Notes\n\nKeep this.\n\n## Human Feedback\n\n" +
		"(1 older entry left out; the 2 most recent follow)\n\n" + entry(2, "fb") + entry(3, "fb")
	if got := doc.Recent(2); got != want {
		t.Errorf("Recent(2) =\n%s\nwant\n%s", got, want)
	}
	for _, n := range []int{0, -1, 4, 100} {
		if got := doc.Recent(n); got != doc.Text {
			t.Errorf("Recent(%d) changed the text:\n%s", n, got)
		}
	}
}
