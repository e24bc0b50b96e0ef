package skills

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

func usageOf(t *testing.T, path, name string) (count, lastUsed int) {
	t.Helper()
	s, err := mustOpen(t, path).Get(name)
	if err != nil {
		t.Fatal(err)
	}
	return s.UsageCount, s.LastUsedIteration
}

// useLog makes searches append to the usage log whatever the library's size.
func useLog(t *testing.T) {
	t.Helper()
	old := directBytes
	directBytes = -1
	t.Cleanup(func() { directBytes = old })
}

func TestSearchOnASmallLibraryWritesTheCountsIntoTheFile(t *testing.T) {
	ctx := context.Background()
	path := libPath(t)
	lib := mustOpen(t, path, WithIteration(3))
	mustAdd(t, lib, corpus...)
	for range 2 {
		if _, err := lib.Search(ctx, "network backoff", 1); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(path + ".usage.jsonl"); !os.IsNotExist(err) {
		t.Errorf("a search on a small library wrote a usage log: %v", err)
	}
	// Another program reading the plain JSON file sees the counters.
	var m map[string]Skill
	if err := json.Unmarshal([]byte(readFile(t, path)), &m); err != nil {
		t.Fatal(err)
	}
	if got := m["retry_flaky_network_calls"]; got.UsageCount != 2 || got.LastUsedIteration != 3 {
		t.Errorf("file holds usage_count %d, last_used_iteration %d; want 2 and 3", got.UsageCount, got.LastUsedIteration)
	}
}

func TestSearchAppendsToTheUsageLogAndSavesCompactIt(t *testing.T) {
	useLog(t)
	ctx := context.Background()
	path := libPath(t)
	lib := mustOpen(t, path, WithIteration(4))
	mustAdd(t, lib, corpus...)
	before := readFile(t, path)
	for range 2 {
		if _, err := lib.Search(ctx, "network backoff", 2); err != nil {
			t.Fatal(err)
		}
	}
	if readFile(t, path) != before {
		t.Error("a search rewrote the library file")
	}
	id := contentID([]byte(before))
	line := `{"base":"` + id + `","iteration":4,"used":["retry_flaky_network_calls"]}` + "\n"
	header, lines, _ := strings.Cut(readFile(t, path+".usage.jsonl"), "\n")
	if !regexp.MustCompile(`^\{"log":"[0-9a-f]{16}"\}$`).MatchString(header) || lines != line+line {
		t.Errorf("usage log =\n%s\n%s\nwant a header and\n%s", header, lines, line+line)
	}
	if n, it := usageOf(t, path, "retry_flaky_network_calls"); n != 2 || it != 4 {
		t.Errorf("a fresh Library reads usage %d at iteration %d, want 2 at 4", n, it)
	}
	// A full save writes the counters into the file and removes the log.
	mustAdd(t, lib, Skill{Name: "new_one", Principle: "p", WhenToApply: "w"})
	if _, err := os.Stat(path + ".usage.jsonl"); !os.IsNotExist(err) {
		t.Errorf("the log survived a save: %v", err)
	}
	if !strings.Contains(readFile(t, path), `"last_used_iteration": 4,
    "usage_count": 2`) {
		t.Errorf("file lacks the merged counters:\n%s", readFile(t, path))
	}
	if n, _ := usageOf(t, path, "retry_flaky_network_calls"); n != 2 {
		t.Errorf("usage after compaction = %d, want 2", n)
	}
}

func TestUsageLogIsCompactedWhenLong(t *testing.T) {
	useLog(t)
	defer func(n int) { compactLines = n }(compactLines)
	compactLines = 3
	path := libPath(t)
	lib := mustOpen(t, path)
	mustAdd(t, lib, corpus...)
	logLines := func() int {
		data, err := os.ReadFile(path + ".usage.jsonl")
		if os.IsNotExist(err) {
			return 0
		}
		return strings.Count(string(data), "\n") - 1 // the header
	}
	var got []int
	for range 5 {
		if _, err := lib.Search(context.Background(), "csv", 1); err != nil {
			t.Fatal(err)
		}
		got = append(got, logLines())
	}
	if fmt.Sprint(got) != "[1 2 0 1 2]" {
		t.Errorf("log lines after each search = %v, want [1 2 0 1 2]", got)
	}
	if n, _ := usageOf(t, path, "read_csv_with_explicit_encoding"); n != 5 {
		t.Errorf("usage = %d, want 5", n)
	}
}

func TestUsageLogTornAndStaleLines(t *testing.T) {
	useLog(t)
	ctx := context.Background()
	path := libPath(t)
	lib := mustOpen(t, path, WithIteration(2))
	mustAdd(t, lib, corpus...)
	if _, err := lib.Search(ctx, "csv", 1); err != nil {
		t.Fatal(err)
	}
	logPath := path + ".usage.jsonl"
	good := readFile(t, logPath)

	// A writer killed mid-append left half a line: it is ignored...
	torn := good + `{"base":"` + contentID([]byte(readFile(t, path))) + `","iteration":2,"used":["read_csv`
	os.WriteFile(logPath, []byte(torn), 0o644)
	if n, _ := usageOf(t, path, "read_csv_with_explicit_encoding"); n != 1 {
		t.Errorf("usage with a torn line = %d, want 1", n)
	}
	// ...and cut off by the next append.
	if _, err := lib.Search(ctx, "csv", 1); err != nil {
		t.Fatal(err)
	}
	_, line, _ := strings.Cut(good, "\n") // after the header
	if got := readFile(t, logPath); got != good+line {
		t.Errorf("log after repair =\n%s\nwant\n%s", got, good+line)
	}
	if n, _ := usageOf(t, path, "read_csv_with_explicit_encoding"); n != 2 {
		t.Errorf("usage after repair = %d, want 2", n)
	}

	// A save that crashed after writing the file but before removing the
	// log: the log's lines name the old content and are not counted twice.
	stale := readFile(t, logPath)
	mustAdd(t, lib, Skill{Name: "x", Principle: "p", WhenToApply: "w"})
	os.WriteFile(logPath, []byte(stale+"not json\n"), 0o644)
	if n, _ := usageOf(t, path, "read_csv_with_explicit_encoding"); n != 2 {
		t.Errorf("usage with a stale log = %d, want 2", n)
	}
	// New lines after the stale ones count.
	if _, err := lib.Search(ctx, "csv", 1); err != nil {
		t.Fatal(err)
	}
	if n, _ := usageOf(t, path, "read_csv_with_explicit_encoding"); n != 3 {
		t.Errorf("usage after a stale log = %d, want 3", n)
	}
}

func TestFileWithoutUsageLogLoads(t *testing.T) {
	// A file written by an older lppctl (usage counted in the file, no log).
	path := libPath(t)
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(`{"a": {"principle": "alpha", "when_to_apply": "w", "usage_count": 7, "last_used_iteration": 3}}`), 0o644)
	lib := mustOpen(t, path)
	hits, err := lib.Search(context.Background(), "alpha", 1)
	if err != nil || len(hits) != 1 || hits[0].UsageCount != 8 || hits[0].LastUsedIteration != 3 {
		t.Errorf("Search = %+v, %v", hits, err)
	}
}

func TestRunIterations(t *testing.T) {
	ctx := context.Background()
	path := libPath(t)
	// Run 1 adds a skill (as the teacher does), run 2 uses nothing, run 3 uses it.
	run1 := mustOpen(t, path, WithRun("run-1"))
	it, _ := run1.Iteration()
	if it != 1 {
		t.Fatalf("run 1 is iteration %d", it)
	}
	if _, err := run1.Apply([]Proposal{{Action: ActionAdd, SkillName: "check_outputs", Principle: "Check outputs.", WhenToApply: "Before reporting."}}, it); err != nil {
		t.Fatal(err)
	}
	run2 := mustOpen(t, path, WithRun("run-2"))
	if hits, _ := run2.Search(ctx, "unrelated", 1); len(hits) != 0 {
		t.Fatalf("run 2 hits %v", hits)
	}
	run3 := mustOpen(t, path, WithRun("run-3"))
	hits, err := run3.Search(ctx, "check the outputs", 1)
	if err != nil || len(hits) != 1 {
		t.Fatalf("run 3: %v, %v", hits, err)
	}
	s, _ := mustOpen(t, path).Get("check_outputs")
	if s.CreatedIteration != 1 || s.LastUsedIteration != 3 || s.UsageCount != 1 {
		t.Errorf("skill = %+v, want created 1, last used 3, used once", s)
	}
	// Opening again for run 3 (a later step, a resumed run) keeps iteration
	// 3; the CLI (no run) uses the latest iteration.
	for _, lib := range []*Library{mustOpen(t, path, WithRun("run-3")), mustOpen(t, path), run3} {
		if it, err := lib.Iteration(); err != nil || it != 3 {
			t.Errorf("Iteration = %d, %v, want 3", it, err)
		}
	}
	if it, _ := mustOpen(t, path, WithRun("run-4")).Iteration(); it != 4 {
		t.Errorf("run 4 is iteration %d", it)
	}
	// The runs file is separate; the library file stays the plain format.
	if !strings.Contains(readFile(t, path+".runs.json"), `"run-4": 4`) {
		t.Errorf("runs file:\n%s", readFile(t, path+".runs.json"))
	}
}

func TestRunIterationsContinueAnExistingLibrary(t *testing.T) {
	path := libPath(t)
	lib := mustOpen(t, path)
	mustAdd(t, lib, Skill{Name: "old", Principle: "p", WhenToApply: "w", CreatedIteration: 5})
	if it, _ := mustOpen(t, path, WithRun("r")).Iteration(); it != 6 {
		t.Errorf("first run over a library at iteration 5 is %d, want 6", it)
	}
	// Many runs: the oldest are forgotten, the counter keeps going.
	for i := range maxRuns + 10 {
		mustOpen(t, path, WithRun(fmt.Sprintf("bulk-%d", i)))
	}
	r, err := readRuns(path + ".runs.json")
	if err != nil || len(r.Runs) != maxRuns || r.Iteration != 6+maxRuns+10 {
		t.Errorf("runs file holds %d runs at iteration %d, %v", len(r.Runs), r.Iteration, err)
	}
}

func TestConcurrentRunsGetDistinctIterations(t *testing.T) {
	path := libPath(t)
	const n = 12
	its := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lib, err := Open(path, WithRun(fmt.Sprintf("run-%d", i)))
			if err != nil {
				t.Error(err)
				return
			}
			its[i], _ = lib.Iteration()
		}()
	}
	wg.Wait()
	seen := map[int]bool{}
	for _, it := range its {
		if it < 1 || it > n || seen[it] {
			t.Fatalf("iterations %v are not 1..%d", its, n)
		}
		seen[it] = true
	}
}

// TestConcurrentSearchesAndAdds: searchers and writers in separate Library
// values, with a tiny compaction threshold so that appends, compactions and
// full saves interleave. No skill and no usage increment may be lost.
func TestConcurrentSearchesAndAdds(t *testing.T) {
	defer func(n int) { compactLines = n }(compactLines)
	compactLines = 7
	path := libPath(t)
	mustAdd(t, mustOpen(t, path), Skill{Name: "shared_seed", Principle: "shared principle", WhenToApply: "always"})
	const writers, searchers, each = 4, 4, 20
	var wg sync.WaitGroup
	var mu sync.Mutex
	recorded := 0
	for w := range writers + searchers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lib, err := Open(path)
			if err != nil {
				t.Error(err)
				return
			}
			for i := range each {
				if w < writers {
					if err := lib.Add(Skill{Name: fmt.Sprintf("w%d_%d", w, i), Principle: "shared principle", WhenToApply: "always"}); err != nil {
						t.Error(err)
						return
					}
					continue
				}
				hits, err := lib.Search(context.Background(), "shared", 3)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				recorded += len(hits)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	checkCounts(t, path, 1+writers*each, recorded)
}

func TestConcurrentProcessesSearchingAndAdding(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	path := libPath(t)
	for i := range 3 {
		mustAdd(t, mustOpen(t, path), Skill{Name: fmt.Sprintf("shared_seed_%d", i), Principle: "shared principle", WhenToApply: "always"})
	}
	const procs, each = 4, 15
	// The usage log, compacted every 5 lines, whatever the library's size.
	runHelperProcesses(t, path, procs, each, "LPPCTL_SKILLS_HELPER_COMPACT=5", "LPPCTL_SKILLS_HELPER_K=3", "LPPCTL_SKILLS_HELPER_DIRECT=-1")
	// Every search finds at least three skills (the seeds), so each records
	// exactly three uses.
	checkCounts(t, path, 3+procs*each, procs*each*3)
}
