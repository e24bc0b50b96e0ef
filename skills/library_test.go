package skills

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestMain doubles as a helper process for the cross-process tests.
func TestMain(m *testing.M) {
	if path := os.Getenv("LPPCTL_SKILLS_HELPER_LIB"); path != "" {
		os.Exit(helperProcess(path))
	}
	os.Exit(m.Run())
}

// helperProcess adds LPPCTL_SKILLS_HELPER_N skills named <prefix>_<i> and
// searches once after each add (for LPPCTL_SKILLS_HELPER_K skills, default
// 1), so that writers interleave. LPPCTL_SKILLS_HELPER_COMPACT sets the
// usage log's compaction threshold, LPPCTL_SKILLS_HELPER_DIRECT the size up
// to which searches rewrite the file instead (-1: always use the log).
func helperProcess(path string) int {
	n, _ := strconv.Atoi(os.Getenv("LPPCTL_SKILLS_HELPER_N"))
	prefix := os.Getenv("LPPCTL_SKILLS_HELPER_PREFIX")
	k := 1
	if v, err := strconv.Atoi(os.Getenv("LPPCTL_SKILLS_HELPER_K")); err == nil {
		k = v
	}
	if v, err := strconv.Atoi(os.Getenv("LPPCTL_SKILLS_HELPER_COMPACT")); err == nil {
		compactLines = v
	}
	if v, err := strconv.ParseInt(os.Getenv("LPPCTL_SKILLS_HELPER_DIRECT"), 10, 64); err == nil {
		directBytes = v
	}
	lib, err := Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for i := range n {
		s := Skill{Name: fmt.Sprintf("%s_%d", prefix, i), Principle: "shared principle", WhenToApply: "always"}
		if err := lib.Add(s); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if hits, err := lib.Search(context.Background(), "shared", k); err != nil || len(hits) != k {
			fmt.Fprintln(os.Stderr, "search:", len(hits), err)
			return 1
		}
	}
	return 0
}

func libPath(t *testing.T) string {
	t.Helper()
	return filepath.Join(t.TempDir(), ".lppctl", "skills.json")
}

func mustOpen(t *testing.T, path string, opts ...Option) *Library {
	t.Helper()
	lib, err := Open(path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

func mustAdd(t *testing.T, lib *Library, skills ...Skill) {
	t.Helper()
	for _, s := range skills {
		if err := lib.Add(s); err != nil {
			t.Fatal(err)
		}
	}
}

func names(skills []Skill) string {
	var out []string
	for _, s := range skills {
		out = append(out, s.Name)
	}
	return strings.Join(out, ",")
}

func ptr(s string) *string { return &s }

func TestOpenMissingFileIsAnEmptyLibrary(t *testing.T) {
	path := libPath(t)
	lib := mustOpen(t, path)
	n, err := lib.Count()
	if err != nil || n != 0 {
		t.Fatalf("Count = %d, %v", n, err)
	}
	list, err := lib.List()
	if err != nil || len(list) != 0 {
		t.Fatalf("List = %v, %v", list, err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("opening created the file: %v", err)
	}
}

func TestOpenLoadsThePlainFormat(t *testing.T) {
	// The plain format: one JSON object keyed by name; "name" inside may be
	// missing, unknown fields are ignored.
	path := libPath(t)
	os.MkdirAll(filepath.Dir(path), 0o755)
	data := `{
  "verify_output_paths": {"name": "verify_output_paths", "principle": "Check that every promised file exists.", "when_to_apply": "Before reporting success.", "created_iteration": 2, "last_used_iteration": 5, "usage_count": 3},
  "retry_with_backoff": {"principle": "Retry transient failures with backoff.", "when_to_apply": "Network calls fail with 5xx.", "created_iteration": 1, "extra": true}
}`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	lib := mustOpen(t, path)
	list, err := lib.List()
	if err != nil {
		t.Fatal(err)
	}
	want := []Skill{
		{Name: "retry_with_backoff", Principle: "Retry transient failures with backoff.", WhenToApply: "Network calls fail with 5xx.", CreatedIteration: 1},
		{Name: "verify_output_paths", Principle: "Check that every promised file exists.", WhenToApply: "Before reporting success.", CreatedIteration: 2, LastUsedIteration: 5, UsageCount: 3},
	}
	if fmt.Sprint(list) != fmt.Sprint(want) {
		t.Errorf("List = %+v\nwant   %+v", list, want)
	}
	if it, _ := lib.Iteration(); it != 5 {
		t.Errorf("Iteration = %d, want 5", it)
	}
}

func TestOpenRejectsABrokenFile(t *testing.T) {
	// Every error names the file, the line and column, and the skill and
	// field when there is one; the file is left as it is.
	path := libPath(t)
	os.MkdirAll(filepath.Dir(path), 0o755)
	for _, c := range []struct{ data, want string }{
		{`["not", "an object"]`, "line 1, column 1: the library must be a JSON object keyed by skill name, not an array"},
		{`{"a": {"principle": "p"`, "line 1, column 24: unexpected end of JSON input"},
		{"{\n  \"a\": {\"principle\": \"p\"},\n}", "line 3, column 1: invalid character '}' looking for beginning of object key string"},
		{`{"a": {"principle": "p"}} trailing`, "line 1, column 27: invalid character 't' after top-level value"},
		{`{"a": "text"}`, `line 1, column 7: skill "a": a skill must be a JSON object, not a string`},
		{"{\"a\": {\"principle\": \"p\",\n  \"usage_count\": 3.5}}", `line 2, column 18: skill "a": usage_count: 3.5 is not a whole number`},
		{`{"a": {"usage_count": 1e20}}`, `line 1, column 23: skill "a": usage_count: 1e20 is out of range`},
		{`{"a": {"created_iteration": "3"}}`, `line 1, column 29: skill "a": created_iteration: "3" is a string, not a whole number`},
		{`{"a": {"principle": 5}}`, `line 1, column 21: skill "a": principle: 5 is a number, not a string`},
	} {
		os.WriteFile(path, []byte(c.data), 0o644)
		_, err := Open(path)
		want := "cannot load skill library " + path + ": " + c.want
		if err == nil || err.Error() != want {
			t.Errorf("%s:\nerr = %v\nwant %s", c.data, err, want)
		}
		if err := (&Library{path: path, lockPath: path + ".lock", logPath: path + ".usage.jsonl", runsPath: path + ".runs.json"}).Add(Skill{Name: "b", Principle: "p", WhenToApply: "w"}); err == nil {
			t.Errorf("%s: Add succeeded on a broken file", c.data)
		}
		if got, _ := os.ReadFile(path); string(got) != c.data {
			t.Errorf("%s: the file was rewritten: %s", c.data, got)
		}
	}
}

func TestOpenLoadsFilesOfOtherTools(t *testing.T) {
	// Written by other tools: a byte order mark, keys in any order, counters
	// as floats, nulls, missing fields, an inner name differing from the key.
	path := libPath(t)
	os.MkdirAll(filepath.Dir(path), 0o755)
	data := "\ufeff" + `{"b": {"usage_count": 3.0, "when_to_apply": null, "tags": ["x"], "principle": "P", "name": "other", "created_iteration": 1e0, "last_used_iteration": null},
"a": null, "c": {"principle": "Q", "when_to_apply": "W", "usage_count": 2}}`
	os.WriteFile(path, []byte(data), 0o644)
	lib := mustOpen(t, path)
	list, err := lib.List()
	if err != nil {
		t.Fatal(err)
	}
	want := []Skill{{Name: "a"}, {Name: "b", Principle: "P", UsageCount: 3, CreatedIteration: 1}, {Name: "c", Principle: "Q", WhenToApply: "W", UsageCount: 2}}
	if fmt.Sprint(list) != fmt.Sprint(want) {
		t.Errorf("List = %+v\nwant   %+v", list, want)
	}
}

func TestAddUpdateRemove(t *testing.T) {
	path := libPath(t)
	lib := mustOpen(t, path)
	a := Skill{Name: "verify_output_paths", Principle: "p1", WhenToApply: "w1", CreatedIteration: 1}
	mustAdd(t, lib, a, Skill{Name: "other", Principle: "p", WhenToApply: "w"})

	// Add overwrites by name.
	a.Principle = "p2"
	mustAdd(t, lib, a)
	if got, _ := lib.Get(a.Name); got.Principle != "p2" {
		t.Errorf("after overwrite principle = %q", got.Principle)
	}

	// Update changes the named fields only.
	got, err := lib.Update(a.Name, Update{WhenToApply: ptr("w2")})
	if err != nil {
		t.Fatal(err)
	}
	want := Skill{Name: a.Name, Principle: "p2", WhenToApply: "w2", CreatedIteration: 1}
	if got != want {
		t.Errorf("Update = %+v, want %+v", got, want)
	}
	// A rename keeps the counters.
	if _, err := lib.Update(a.Name, Update{Name: ptr("check_outputs")}); err != nil {
		t.Fatal(err)
	}
	if s, err := lib.Get("check_outputs"); err != nil || s.CreatedIteration != 1 || s.WhenToApply != "w2" {
		t.Errorf("renamed skill = %+v, %v", s, err)
	}

	// A second Library on the same file sees every change.
	other := mustOpen(t, path)
	if l, _ := other.List(); names(l) != "check_outputs,other" {
		t.Errorf("other library lists %s", names(l))
	}
	if err := other.Remove("other"); err != nil {
		t.Fatal(err)
	}
	if n, _ := lib.Count(); n != 1 {
		t.Errorf("Count = %d after removal, want 1", n)
	}
}

func TestLibraryErrors(t *testing.T) {
	lib := mustOpen(t, libPath(t))
	mustAdd(t, lib, Skill{Name: "a", Principle: "p", WhenToApply: "w"}, Skill{Name: "b", Principle: "p", WhenToApply: "w"})
	tests := []struct {
		name string
		do   func() error
		want string
		is   error
	}{
		{"update unknown", func() error { _, err := lib.Update("nope", Update{Principle: ptr("x")}); return err },
			`cannot update skill "nope": not found`, ErrNotFound},
		{"update nothing", func() error { _, err := lib.Update("a", Update{}); return err },
			`cannot update skill "a": no field to change: invalid`, ErrInvalid},
		{"update to empty principle", func() error { _, err := lib.Update("a", Update{Principle: ptr(" ")}); return err },
			`cannot update skill "a": principle is empty: invalid`, ErrInvalid},
		{"rename onto another", func() error { _, err := lib.Update("a", Update{Name: ptr("b")}); return err },
			`cannot update skill "a": a skill named "b" already exists: invalid`, ErrInvalid},
		{"remove unknown", func() error { return lib.Remove("nope") },
			`cannot remove skill "nope": not found`, ErrNotFound},
		{"get unknown", func() error { _, err := lib.Get("nope"); return err },
			`cannot get skill "nope": not found`, ErrNotFound},
		{"empty name", func() error { return lib.Add(Skill{Principle: "p", WhenToApply: "w"}) },
			`cannot add skill: skill name is empty: invalid`, ErrInvalid},
		{"long name", func() error { return lib.Add(Skill{Name: strings.Repeat("n", 81), Principle: "p", WhenToApply: "w"}) },
			`cannot add skill: skill name is 81 characters long; the limit is 80: invalid`, ErrInvalid},
		{"control character in name", func() error { return lib.Add(Skill{Name: "a\x07b", Principle: "p", WhenToApply: "w"}) },
			`cannot add skill: skill name "a\ab" contains the control character U+0007: invalid`, ErrInvalid},
		{"a text-direction override in a name", func() error { return lib.Add(Skill{Name: "greet_\u202eeman", Principle: "p", WhenToApply: "w"}) },
			`cannot add skill: skill name "greet_\u202eeman" contains the invisible character U+202E (a zero-width or text-direction mark), so it would look like "greet_eman"; leave it out: invalid`, ErrInvalid},
		{"a zero-width space in a name", func() error { return lib.Add(Skill{Name: "gree\u200bt", Principle: "p", WhenToApply: "w"}) },
			`cannot add skill: skill name "gree\u200bt" contains the invisible character U+200B (a zero-width or text-direction mark), so it would look like "greet"; leave it out: invalid`, ErrInvalid},
		{"a renaming to a name with a byte order mark", func() error { _, err := lib.Update("a", Update{Name: ptr("\ufeffa2")}); return err },
			`cannot update skill "a": skill name "\ufeffa2" contains the invisible character U+FEFF (a zero-width or text-direction mark), so it would look like "a2"; leave it out: invalid`, ErrInvalid},
		{"newline in name", func() error { return lib.Add(Skill{Name: "a\nb", Principle: "p", WhenToApply: "w"}) },
			`cannot add skill: skill name "a\nb" contains the control character U+000A: invalid`, ErrInvalid},
		{"padded name", func() error { return lib.Add(Skill{Name: " a", Principle: "p", WhenToApply: "w"}) },
			`cannot add skill: skill name " a" has leading or trailing spaces: invalid`, ErrInvalid},
		{"empty when_to_apply", func() error { return lib.Add(Skill{Name: "c", Principle: "p"}) },
			`cannot add skill: when_to_apply is empty: invalid`, ErrInvalid},
		{"long principle", func() error { return lib.Add(Skill{Name: "c", Principle: strings.Repeat("p", 2001), WhenToApply: "w"}) },
			`cannot add skill: principle is 2001 characters long; the limit is 2000: invalid`, ErrInvalid},
		{"escape in principle", func() error { return lib.Add(Skill{Name: "c", Principle: "p\x1b[31m", WhenToApply: "w"}) },
			`cannot add skill: principle contains the control character U+001B: invalid`, ErrInvalid},
		{"negative counter", func() error { return lib.Add(Skill{Name: "c", Principle: "p", WhenToApply: "w", UsageCount: -1}) },
			`cannot add skill: skill "c" has a negative counter: invalid`, ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.do()
			if err == nil || err.Error() != tt.want || !errors.Is(err, tt.is) {
				t.Errorf("err = %v\nwant %s (wrapping %v)", err, tt.want, tt.is)
			}
		})
	}
	// Multi-line fields are fine.
	if err := lib.Add(Skill{Name: "c", Principle: "line 1\nline 2\twith tab", WhenToApply: "w"}); err != nil {
		t.Error(err)
	}
}

func TestSavesAreAtomicAndLeaveNoTempFiles(t *testing.T) {
	path := libPath(t)
	lib := mustOpen(t, path)
	mustAdd(t, lib, Skill{Name: "a", Principle: "p", WhenToApply: "w"})
	before := readFile(t, path)

	testHookBeforeRename = func(string) error { return errors.New("disk full") }
	err := lib.Add(Skill{Name: "b", Principle: "p", WhenToApply: "w"})
	testHookBeforeRename = nil
	if err == nil || err.Error() != `cannot add skill "b": disk full` {
		t.Fatalf("err = %v", err)
	}
	if got := readFile(t, path); got != before {
		t.Errorf("file changed after a failed save")
	}
	if n, _ := lib.Count(); n != 1 {
		t.Errorf("Count = %d after a failed save, want 1", n)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != "skills.json skills.json.lock" {
		t.Errorf("library dir holds %v", got)
	}
	want := "{\n  \"a\": {\n    \"name\": \"a\",\n    \"principle\": \"p\",\n    \"when_to_apply\": \"w\",\n    \"created_iteration\": 0,\n    \"last_used_iteration\": 0,\n    \"usage_count\": 0\n  }\n}\n"
	if before != want {
		t.Errorf("file =\n%s\nwant\n%s", before, want)
	}
}

func TestConcurrentWritersLoseNoUpdates(t *testing.T) {
	path := libPath(t)
	const writers, each = 8, 15
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lib, err := Open(path) // one Library per goroutine, like separate processes
			if err != nil {
				errs <- err
				return
			}
			for i := range each {
				if err := lib.Add(Skill{Name: fmt.Sprintf("w%d_%d", w, i), Principle: "shared principle", WhenToApply: "always"}); err != nil {
					errs <- err
					return
				}
				if _, err := lib.Search(context.Background(), "shared", 1); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	checkCounts(t, path, writers*each, writers*each)
}

// runHelperProcesses runs procs helper processes (see helperProcess) on the
// library at path, each adding each skills named p<N>_<i>, and waits for them.
func runHelperProcesses(t *testing.T, path string, procs, each int, env ...string) {
	t.Helper()
	var cmds []*exec.Cmd
	for p := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(),
			"LPPCTL_SKILLS_HELPER_LIB="+path,
			"LPPCTL_SKILLS_HELPER_N="+strconv.Itoa(each),
			"LPPCTL_SKILLS_HELPER_PREFIX=p"+strconv.Itoa(p))
		cmd.Env = append(cmd.Env, env...)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
	}
}

// checkCounts asserts the number of skills and the sum of usage counts.
func checkCounts(t *testing.T, path string, skills, uses int) {
	t.Helper()
	list, err := mustOpen(t, path).List()
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, s := range list {
		total += s.UsageCount
	}
	if len(list) != skills || total != uses {
		t.Errorf("library holds %d skills used %d times, want %d and %d", len(list), total, skills, uses)
	}
}

func TestConcurrentProcessesLoseNoUpdates(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	for _, mode := range []struct{ name, direct string }{
		{"searches rewrite the small file", strconv.FormatInt(directBytes, 10)},
		{"searches append to the usage log", "-1"},
	} {
		t.Run(mode.name, func(t *testing.T) {
			path := libPath(t)
			const procs, each = 4, 15
			runHelperProcesses(t, path, procs, each, "LPPCTL_SKILLS_HELPER_DIRECT="+mode.direct)
			checkCounts(t, path, procs*each, procs*each)
		})
	}
}

func TestEncodeLibraryMatchesEncodingJSON(t *testing.T) {
	tricky := "quote \" backslash \\ nl \n cr \r tab \t bell \a bs \b ff \f del \x7f <html> & é 日本 \u2028 \u2029 bad \xff end"
	m := map[string]Skill{
		"b": {Name: "b", Principle: tricky, WhenToApply: "w", CreatedIteration: 3, LastUsedIteration: -1, UsageCount: 12345},
		"a": {Name: "a", Principle: "p", WhenToApply: tricky},
	}
	got, err := encodeLibrary(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		t.Fatal(err)
	}
	if string(got) != want.String() {
		t.Errorf("encodeLibrary =\n%s\nencoding/json =\n%s", got, want.String())
	}
	if got, _ := encodeLibrary(map[string]Skill{}, nil); string(got) != "{}\n" {
		t.Errorf("empty = %q", got)
	}
}

// TestSavingKeepsUnknownFields: fields lppctl does not know (written by
// other tools) survive adds, updates, renames and searches; they go with
// their skill when it is renamed and away when it is removed.
func TestSavingKeepsUnknownFields(t *testing.T) {
	path := libPath(t)
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(`{
  "retry_backoff": {"tags": ["net", "http"], "principle": "Retry with backoff.", "when_to_apply": "On 429.", "usage_count": 2.0, "meta": {"source":  "other-tool"}},
  "verify_outputs": {"principle": "Check outputs.", "when_to_apply": "Before success.", "embedding": null}
}`), 0o644)
	lib := mustOpen(t, path)
	mustAdd(t, lib, Skill{Name: "new_skill", Principle: "p", WhenToApply: "w"})
	if _, err := lib.Update("retry_backoff", Update{Principle: ptr("Retry transient errors with backoff.")}); err != nil {
		t.Fatal(err)
	}
	if _, err := lib.Search(context.Background(), "outputs", 1); err != nil { // a small library: rewritten with the counts
		t.Fatal(err)
	}
	want := `{
  "new_skill": {
    "name": "new_skill",
    "principle": "p",
    "when_to_apply": "w",
    "created_iteration": 0,
    "last_used_iteration": 0,
    "usage_count": 0
  },
  "retry_backoff": {
    "name": "retry_backoff",
    "principle": "Retry transient errors with backoff.",
    "when_to_apply": "On 429.",
    "created_iteration": 0,
    "last_used_iteration": 0,
    "usage_count": 2,
    "tags": ["net","http"],
    "meta": {"source":"other-tool"}
  },
  "verify_outputs": {
    "name": "verify_outputs",
    "principle": "Check outputs.",
    "when_to_apply": "Before success.",
    "created_iteration": 0,
    "last_used_iteration": 0,
    "usage_count": 1,
    "embedding": null
  }
}
`
	if got, _ := os.ReadFile(path); string(got) != want {
		t.Errorf("file:\n%s\nwant:\n%s", got, want)
	}
	if _, err := lib.Update("retry_backoff", Update{Name: ptr("retry_with_backoff")}); err != nil {
		t.Fatal(err)
	}
	rep, err := lib.Apply([]Proposal{{Action: ActionUpdate, OldSkillName: "verify_outputs", SkillName: "check_outputs"}}, 1)
	if err != nil || len(rep.Applied) != 1 {
		t.Fatalf("Apply: %v %v", rep, err)
	}
	got, _ := os.ReadFile(path)
	if !strings.Contains(string(got), "\"usage_count\": 2,\n    \"tags\": [\"net\",\"http\"],\n    \"meta\": {\"source\":\"other-tool\"}\n  }") ||
		!strings.Contains(string(got), "\"check_outputs\": {") || strings.Count(string(got), `"embedding": null`) != 1 {
		t.Errorf("after renames:\n%s", got)
	}
	if err := lib.Remove("retry_with_backoff"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); strings.Contains(string(got), "tags") {
		t.Errorf("a removed skill's fields stayed:\n%s", got)
	}
	// What lppctl writes is still valid JSON of the plain format.
	var m map[string]map[string]any
	if got, _ := os.ReadFile(path); json.Unmarshal(got, &m) != nil || len(m) != 2 {
		t.Errorf("not the plain format:\n%s", got)
	}
}

// Names may be in any script and hold emoji; only invisible characters
// (Unicode format characters) are refused.
func TestNamesInAnyScriptAreAccepted(t *testing.T) {
	lib := mustOpen(t, libPath(t))
	for _, name := range []string{"grüße_senden", "挨拶する", "приветствие", "wave_👋"} {
		if err := lib.Add(Skill{Name: name, Principle: "p", WhenToApply: "w"}); err != nil {
			t.Fatalf("add %s: %v", name, err)
		}
		if _, err := lib.Get(name); err != nil {
			t.Fatalf("get %s: %v", name, err)
		}
	}
}
