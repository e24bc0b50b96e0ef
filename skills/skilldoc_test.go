package skills

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata")

var t0 = time.Date(2025, 3, 14, 15, 9, 26, 0, time.FixedZone("CET", 3600))

// copySkill copies testdata/skilldoc/<in> to a fresh skill folder and
// returns the path of its skills.md.
func copySkill(t *testing.T, in string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "skilldoc", in))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "report_skill")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, DocFile)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// checkGolden compares got with testdata/skilldoc/<name>.golden, rewriting it with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "skilldoc", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from golden file:\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

// isInsertion reports whether out is in with bytes inserted at one place.
func isInsertion(in, out string) bool {
	p := 0
	for p < len(in) && p < len(out) && in[p] == out[p] {
		p++
	}
	s := 0
	for s < len(in)-p && s < len(out)-p && in[len(in)-1-s] == out[len(out)-1-s] {
		s++
	}
	return p+s == len(in)
}

var sampleSuccess = SuccessCase{
	Step:        2,
	Instruction: "Aggregate sales by region.\n## Not a heading: continuation lines are indented",
	ToolCalls: []ToolCallSummary{
		{Tool: "read_file", Args: `{"path":"data/sales.csv"}`},
		{Tool: "safe_py_runner", Args: `{"script":"skills/report_skill/aggregate.py","args":["--by","region"],"stdin":"` + strings.Repeat("x", 200) + `"}`},
		{Tool: "list_files", Args: ``},
	},
	KeyOutputs: map[string]string{"TOTAL": "1234.50", "REPORT_PATH": "out/report.md", "BY_REGION": "north=1\nsouth=2"},
}

var sampleFailure = FailureCase{Step: 3, Instruction: "Write the report.", Feedback: "The report misses the totals row.\nAdd it and re-run."}

func TestAppendPlacesEntriesAndKeepsTheRestOfTheFile(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		append func(path string) error
	}{
		{"success_creates_section_at_end", "prose_only.md", func(p string) error {
			return AppendSuccess(p, "run1/2", t0, sampleSuccess)
		}},
		{"success_lands_before_next_section", "sections_followed.md", func(p string) error {
			return AppendSuccess(p, "run1/2", t0, sampleSuccess)
		}},
		{"failure_lands_in_empty_section_before_notes", "sections_followed.md", func(p string) error {
			return AppendFailure(p, "run1/3", t0, sampleFailure)
		}},
		{"feedback_creates_section_after_others", "sections_followed.md", func(p string) error {
			return AppendFeedback(p, "run1/feedback", t0, "Use the EU date format next time.\nThanks!")
		}},
		{"feedback_appends_to_file_without_final_newline", "no_trailing_newline.md", func(p string) error {
			return AppendFeedback(p, "run1/feedback", t0, "second feedback")
		}},
		{"heading_inside_code_fence_is_ignored", "fenced_heading.md", func(p string) error {
			return AppendFailure(p, "run1/3", t0, sampleFailure)
		}},
		{"success_into_empty_file", "empty.md", func(p string) error {
			return AppendSuccess(p, "run1/1", t0, SuccessCase{Step: 1, Instruction: "Do it."})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := copySkill(t, tt.in)
			before := readFile(t, path)
			if err := tt.append(path); err != nil {
				t.Fatal(err)
			}
			after := readFile(t, path)
			if !isInsertion(before, after) {
				t.Errorf("the append changed bytes outside the inserted entry")
			}
			checkGolden(t, tt.name, after)
		})
	}
}

func TestAppendWithAnIDAlreadyPresentIsANoOp(t *testing.T) {
	path := copySkill(t, "sections_followed.md")
	if err := AppendSuccess(path, "run1/2", t0, sampleSuccess); err != nil {
		t.Fatal(err)
	}
	once := readFile(t, path)
	// Redo after a "crash": same ID, even with another time and content.
	if err := AppendSuccess(path, "run1/2", t0.Add(time.Hour), SuccessCase{Step: 9}); err != nil {
		t.Fatal(err)
	}
	if err := AppendSuccess(path, "old/1", t0, sampleSuccess); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); got != once {
		t.Errorf("re-appending existing IDs changed the file:\n%s", got)
	}
	if err := AppendFailure(path, "run1/3", t0, sampleFailure); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(readFile(t, path), "<!-- lppctl:entry "); got != 3 {
		t.Errorf("file holds %d entries, want 3", got)
	}
}

func TestAppendLeavesNoTempFileAndTheOriginalOnFailure(t *testing.T) {
	path := copySkill(t, "sections_followed.md")
	before := readFile(t, path)
	testHookBeforeRename = func(string) error { return errors.New("disk on fire") }
	defer func() { testHookBeforeRename = nil }()

	err := AppendSuccess(path, "run1/2", t0, sampleSuccess)
	if err == nil || !strings.HasSuffix(err.Error(), ": disk on fire") || !strings.HasPrefix(err.Error(), "cannot append to ") {
		t.Fatalf("err = %v, want cannot append to ...: disk on fire", err)
	}
	if got := readFile(t, path); got != before {
		t.Errorf("the original changed after a failed write")
	}
	testHookBeforeRename = nil
	if err := AppendSuccess(path, "run1/2", t0, sampleSuccess); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != DocFile {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("skill folder holds %v, want only %s", names, DocFile)
	}
}

func TestAppendKeepsFileMode(t *testing.T) {
	path := copySkill(t, "prose_only.md")
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := AppendFeedback(path, "a", t0, "ok"); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
}

func TestAppendRejectsBadInput(t *testing.T) {
	path := copySkill(t, "prose_only.md")
	missing := filepath.Join(t.TempDir(), "nope", DocFile)
	tests := []struct {
		name, path, id, want string
		is                   error
	}{
		{"empty ID", path, "", "cannot append to " + path + ": entry ID is empty: invalid", ErrInvalid},
		{"ID with a space", path, "run 1", "cannot append to " + path + ": entry ID \"run 1\" contains whitespace: invalid", ErrInvalid},
		{"ID closing the comment", path, "run-->1", "cannot append to " + path + ": entry ID \"run-->1\" contains \"--\" or \">\": invalid", ErrInvalid},
		{"missing file", missing, "run/1", "cannot append to " + missing + ": not found", ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.path == missing {
				if err := os.MkdirAll(filepath.Dir(missing), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			err := AppendFeedback(tt.path, tt.id, t0, "x")
			if err == nil || err.Error() != tt.want || !errors.Is(err, tt.is) {
				t.Errorf("err = %v, want %q wrapping %v", err, tt.want, tt.is)
			}
		})
	}
}

func TestOpenSkillReadsSections(t *testing.T) {
	path := copySkill(t, "sections_followed.md")
	if err := AppendFailure(path, "r/3", t0, sampleFailure); err != nil {
		t.Fatal(err)
	}
	d, err := OpenSkill(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "report_skill" || d.Path != path {
		t.Errorf("Name, Path = %q, %q", d.Name, d.Path)
	}
	wantSuccess := "### [2025-01-01 09:00 UTC]\n<!-- lppctl:entry old/1 -->\n- **Step:** 1\n- **Instruction:** an older entry"
	if got := d.Section("Success Cases"); got != wantSuccess {
		t.Errorf("Success Cases = %q, want %q", got, wantSuccess)
	}
	if got := d.Section("failure cases"); !strings.Contains(got, "The report misses the totals row.") || strings.Contains(got, "Notes") {
		t.Errorf("Failure Cases = %q", got)
	}
	if got := d.Section(SectionFeedback); got != "" {
		t.Errorf("absent section = %q, want empty", got)
	}
	if !d.HasEntry("r/3") || d.HasEntry("r/4") {
		t.Errorf("HasEntry wrong")
	}
}

func TestOpenSkillWithoutSkillsMdIsNotFound(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ghost")
	_, err := OpenSkill(dir)
	want := `cannot open skill "ghost": no skills.md in ` + dir + `: not found`
	if err == nil || err.Error() != want || !errors.Is(err, ErrNotFound) {
		t.Errorf("err = %v, want %q", err, want)
	}
}

func TestShortenArgs(t *testing.T) {
	long := strings.Repeat("é", 100)
	tests := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"empty object", " {} ", ""},
		{"short values kept, keys sorted", `{"b":1,"a":"x<y"}`, `{"a":"x<y","b":1}`},
		{"long string cut at 60 with a count", `{"s":"` + long + `"}`, `{"s":"` + strings.Repeat("é", 60) + `…(+40 chars)"}`},
		{"80 characters kept", `{"s":"` + strings.Repeat("a", 80) + `"}`, `{"s":"` + strings.Repeat("a", 80) + `"}`},
		{"long array cut at 10", `[1,2,3,4,5,6,7,8,9,10,11,12]`, `[1,2,3,4,5,6,7,8,9,10,"…(+2 more)"]`},
		{"nested", `{"o":{"l":["` + long + `"]}}`, `{"o":{"l":["` + strings.Repeat("é", 60) + `…(+40 chars)"]}}`},
		{"big number kept exactly", `{"n":12345678901234567890}`, `{"n":12345678901234567890}`},
		{"not JSON collapsed", "python3  x.py\n--flag", "python3 x.py --flag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ShortenArgs(tt.in); got != tt.want {
				t.Errorf("ShortenArgs = %q, want %q", got, tt.want)
			}
		})
	}
	many := `{` + strings.Repeat(`"k":"`+strings.Repeat("z", 70)+`",`, 1) + `"l":[` + strings.Repeat(`"`+strings.Repeat("y", 70)+`",`, 9) + `"e"]}`
	if got := ShortenArgs(many); len([]rune(got)) != 400 || !strings.HasSuffix(got, "…") {
		t.Errorf("total cap: got %d runes %q", len([]rune(got)), got)
	}
}

func TestAppendRemovesTempFilesOfAKilledWriter(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "skills.md")
	if err := os.WriteFile(path, []byte("# Skill\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, ".skills.md.tmp-123")
	if err := os.WriteFile(stale, []byte("half a write"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := AppendFeedback(path, "run/1", time.Date(2025, 1, 2, 3, 4, 0, 0, time.UTC), "good"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("the stale temporary file is still there: %v", err)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), "good") {
		t.Fatalf("skills.md = %q", b)
	}
}
