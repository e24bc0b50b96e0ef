package skills

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// totalUses returns the sum of the usage counts lib sees.
func totalUses(t *testing.T, lib *Library) int {
	t.Helper()
	list, err := lib.List()
	require.NoError(t, err)
	n := 0
	for _, s := range list {
		n += s.UsageCount
	}
	return n
}

// search runs Search for query n times on lib, each returning one hit.
func search(t *testing.T, lib *Library, query string, n int) {
	t.Helper()
	for range n {
		hits, err := lib.Search(context.Background(), query, 1)
		require.NoError(t, err)
		require.Len(t, hits, 1)
	}
}

// TestLogRecreatedInPlaceIsMergedFromTheStart reproduces the lost update of
// TestConcurrentProcessesLoseNoUpdates deterministically. A reader loading
// between a save's rename and its removal of the usage log merges the old
// log (its lines name the old content id: none counts) and remembers its
// inode and length. The log is then removed and a new one is started, which
// gets the same inode back (the file system reuses the freed one; here the
// log is truncated in place, the same inode for certain). Resuming from the
// remembered offset skipped the new log's first lines, and the reader's
// next save wrote the undercount into the file: usages were lost for good.
func TestLogRecreatedInPlaceIsMergedFromTheStart(t *testing.T) {
	defer func(d int64) { directBytes = d }(directBytes)
	directBytes = -1 // every search appends to the log
	path := libPath(t)
	logPath := path + ".usage.jsonl"
	writer := mustOpen(t, path)
	mustAdd(t, writer, Skill{Name: "s1", Principle: "shared principle", WhenToApply: "always"})
	search(t, writer, "shared", 3) // the old log: 3 lines naming the first content

	// A save half done: the new file is in place, the old log not yet removed.
	list, err := mustOpen(t, path).List()
	require.NoError(t, err)
	m := map[string]Skill{"s2": {Name: "s2", Principle: "other principle", WhenToApply: "never"}}
	for _, s := range list {
		m[s.Name] = s
	}
	data, err := encodeLibrary(m, nil)
	require.NoError(t, err)
	require.NoError(t, writeFileAtomic(path, data, 0o644))

	reader := mustOpen(t, path) // merges the old log, ignoring its lines
	require.Equal(t, 3, totalUses(t, reader))

	// The save removes the old log; the next search starts a new one that
	// reuses its inode.
	require.NoError(t, os.Truncate(logPath, 0))
	search(t, writer, "shared", 3)
	require.Equal(t, 6, totalUses(t, mustOpen(t, path)), "a fresh reader")

	require.Equal(t, 6, totalUses(t, reader), "the reader that saw the old log")
	mustAdd(t, reader, Skill{Name: "s3", Principle: "third principle", WhenToApply: "later"})
	require.Equal(t, 6, totalUses(t, mustOpen(t, path)), "after the reader's save")
}

// TestWriterDoesNotTrustAReusedInode: a save replaces the file by rename,
// and the file system may give a later version the inode of an earlier one,
// with the same size (a counter 3 → 4) and the same mtime (its granularity
// is a clock tick). A writer that trusted (inode, size, mtime) under the
// lock then saved its stale copy over the other writers' changes. Here the
// stat is faked to always match.
func TestWriterDoesNotTrustAReusedInode(t *testing.T) {
	defer func(f func(a, b os.FileInfo) bool) { sameVersion = f }(sameVersion)
	path := libPath(t)
	a := mustOpen(t, path)
	mustAdd(t, a, Skill{Name: "s1", Principle: "shared principle", WhenToApply: "always"})
	b := mustOpen(t, path)
	require.Equal(t, 0, totalUses(t, a)) // a caches this version

	sameVersion = func(a, b os.FileInfo) bool { return true } // every version looks like a's
	search(t, b, "shared", 2)                                 // small file: each search rewrites it (count 1, 2)
	mustAdd(t, a, Skill{Name: "s2", Principle: "other principle", WhenToApply: "never"})
	list, err := mustOpen(t, path).List()
	require.NoError(t, err)
	require.Equal(t, "s1,s2", names(list))
	require.Equal(t, 2, list[0].UsageCount, "b's searches")
}

// TestReadLogID: only a whole header line of the expected form is an id;
// anything else (a log of an older lppctl, a header still being written)
// has none and is merged from the start.
func TestReadLogID(t *testing.T) {
	tests := []struct{ name, log, want string }{
		{"header", `{"log":"0123456789abcdef"}` + "\n" + `{"base":"x","iteration":1,"used":["a"]}` + "\n", "0123456789abcdef"},
		{"header alone", `{"log":"0123456789abcdef"}` + "\n", "0123456789abcdef"},
		{"log of an older lppctl", `{"base":"0123456789abcdef","iteration":1,"used":["a"]}` + "\n", ""},
		{"header being written", `{"log":"0123456789abcdef"}`, ""},
		{"short id", `{"log":"0123"}` + "\n", ""},
		{"quote in the id", `{"log":"0123456789abcd"e"}` + "\n", ""},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "log")
			require.NoError(t, os.WriteFile(path, []byte(tt.log), 0o644))
			f, err := os.Open(path)
			require.NoError(t, err)
			defer f.Close()
			require.Equal(t, tt.want, readLogID(f))
		})
	}
}

// TestSaveKilledAfterItsTokenLeavesNoCacheTrusted: a save writes its token
// and is killed before its rename; a later save (another process) replaces
// the file; a writer whose cached version looks the same by stat still
// reads the file again, since the lock file's token is none it was read
// under.
func TestSaveKilledAfterItsTokenLeavesNoCacheTrusted(t *testing.T) {
	defer func(f func(a, b os.FileInfo) bool) { sameVersion = f }(sameVersion)
	path := libPath(t)
	a := mustOpen(t, path)
	mustAdd(t, a, Skill{Name: "s1", Principle: "shared principle", WhenToApply: "always"})
	tok := readLockToken(t, path)
	require.Regexp(t, `^[0-9a-f]{16} c$`, tok, "a save leaves a committed token")

	b := mustOpen(t, path)
	testHookBeforeRename = func(string) error { return errors.New("killed") }
	err := b.Add(Skill{Name: "lost", Principle: "p", WhenToApply: "w"})
	testHookBeforeRename = nil
	require.EqualError(t, err, `cannot add skill "lost": killed`)
	killed := readLockToken(t, path)
	require.Regexp(t, `^[0-9a-f]{16} p$`, killed, "the token is written before the rename")
	require.NotEqual(t, tok[:saveTokenLen], killed[:saveTokenLen])
	list, err := b.List() // a reader does not trust a pending token, and still reads
	require.NoError(t, err)
	require.Equal(t, "s1", names(list))

	sameVersion = func(a, b os.FileInfo) bool { return true }
	search(t, b, "shared", 1) // rewrites the small file: usage 1
	mustAdd(t, a, Skill{Name: "s2", Principle: "other principle", WhenToApply: "never"})
	got, err := mustOpen(t, path).Get("s1")
	require.NoError(t, err)
	require.Equal(t, 1, got.UsageCount)
}

// TestLockFileWithoutTokenGetsOne: a lock file left by an older lppctl
// (empty) gets a committed token from the first writer that reads the file under the
// lock, so later writers can reuse their cached version.
func TestLockFileWithoutTokenGetsOne(t *testing.T) {
	defer func(d int64) { directBytes = d }(directBytes)
	directBytes = -1 // the search appends to the log: no save
	path := libPath(t)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(`{"a": {"principle": "alpha", "when_to_apply": "w"}}`), 0o644))
	require.NoError(t, os.WriteFile(path+".lock", nil, 0o644))
	search(t, mustOpen(t, path), "alpha", 1)
	require.FileExists(t, path+".usage.jsonl")
	require.Regexp(t, `^[0-9a-f]{16} c$`, readLockToken(t, path))
}

func readLockToken(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path + ".lock")
	require.NoError(t, err)
	return strings.TrimSuffix(string(data), "\n")
}

// TestReaderDoesNotTrustAReusedInode: a reader (no lock) whose cached
// version looks the same by stat as a later one (see
// TestWriterDoesNotTrustAReusedInode) still sees the later one.
func TestReaderDoesNotTrustAReusedInode(t *testing.T) {
	defer func(f func(a, b os.FileInfo) bool) { sameVersion = f }(sameVersion)
	path := libPath(t)
	a := mustOpen(t, path)
	mustAdd(t, a, Skill{Name: "s1", Principle: "shared principle", WhenToApply: "always"})
	reader := mustOpen(t, path)
	list, err := reader.List()
	require.NoError(t, err)
	require.Equal(t, "s1", names(list))

	sameVersion = func(a, b os.FileInfo) bool { return true }
	mustAdd(t, a, Skill{Name: "s2", Principle: "other principle", WhenToApply: "never"})
	list, err = reader.List()
	require.NoError(t, err)
	require.Equal(t, "s1,s2", names(list))
	got, err := reader.Get("s2")
	require.NoError(t, err)
	require.Equal(t, "other principle", got.Principle)
}
