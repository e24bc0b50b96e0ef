package actions

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestRunEntriesKeepsThisRunsEntries(t *testing.T) {
	section := "intro text\n\n" +
		"### [2025-01-01 00:00 UTC]\n<!-- lppctl:entry old/3 -->\n- **Step:** 1\n\n" +
		"### [2025-01-02 00:00 UTC]\n<!-- lppctl:entry run-1/5 -->\n- **Step:** 1\n  more\n\n" +
		"### [2025-01-02 00:01 UTC]\n<!-- lppctl:entry run-10/6 -->\n- **Step:** 9\n\n" +
		"### [2025-01-02 00:02 UTC]\n<!-- lppctl:entry run-1/9 -->\n- **Step:** 2"
	got := runEntries(section, "run-1/")
	want := "### [2025-01-02 00:00 UTC]\n<!-- lppctl:entry run-1/5 -->\n- **Step:** 1\n  more\n\n" +
		"### [2025-01-02 00:02 UTC]\n<!-- lppctl:entry run-1/9 -->\n- **Step:** 2"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if runEntries(section, "nobody/") != "" || runEntries("", "run-1/") != "" {
		t.Fatal("no entries expected")
	}
}

func TestSkillQueryLeavesOutTheCases(t *testing.T) {
	text := "# s\n\n## Goal\n\nGreet Ada.\n\n## Success Cases\n\n### [x]\n- `safe_py_runner` {\"args\":[]}\n\n## Failure Cases\n\n### [y]\n- boom\n\n## Human Feedback\n\nbe brief\n"
	q := skillQuery(text)
	for _, gone := range []string{"safe_py_runner", "boom"} {
		if strings.Contains(q, gone) {
			t.Errorf("query keeps %q:\n%s", gone, q)
		}
	}
	for _, kept := range []string{"Greet Ada.", "be brief"} {
		if !strings.Contains(q, kept) {
			t.Errorf("query lacks %q:\n%s", kept, q)
		}
	}
}

func TestLibraryPathDefaultsUnderTheRoot(t *testing.T) {
	d := &Deps{Root: "/p"}
	if got := d.libraryPath(); got != filepath.FromSlash("/p/.lppctl/skills.json") {
		t.Errorf("default = %s", got)
	}
	d.SkillsLibrary = "lib/x.json"
	if got := d.libraryPath(); got != filepath.FromSlash("/p/lib/x.json") {
		t.Errorf("relative = %s", got)
	}
	d.SkillsLibrary = "/abs/x.json"
	if got := d.libraryPath(); got != "/abs/x.json" {
		t.Errorf("absolute = %s", got)
	}
}
