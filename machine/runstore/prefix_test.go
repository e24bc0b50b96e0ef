package runstore

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A folder of the store in which nothing ran (kill -9 as lppctl made it:
// neither run.json nor a journal) is no run for a prefix either: alone it
// is not found (it was opened and failed reading run.json: a 500 in the
// UI), beside a run it does not make the prefix ambiguous.
func TestAPrefixSkipsAFolderInWhichNothingRan(t *testing.T) {
	s := New(t.TempDir())
	run := journaledRun(t, s, 1)
	id := filepath.Base(run.Dir)

	empty := id[:len(id)-1] + "x" // shares all but the last letter with the run
	if empty == id {
		empty = id[:len(id)-1] + "y"
	}
	require.NoError(t, os.Mkdir(filepath.Join(s.Dir, empty), 0o755))

	got, err := s.Open(id[:len(id)-1])
	require.NoError(t, err, "the prefix names the one run")
	require.Equal(t, run.Dir, got.Dir)

	require.NoError(t, os.Mkdir(filepath.Join(s.Dir, "zz-nothing-ran"), 0o755))
	_, err = s.Open("zz-")
	require.True(t, errors.Is(err, ErrNotFound), "%v", err)

	// Named whole, it says what it is.
	_, err = s.Open("zz-nothing-ran")
	require.True(t, errors.Is(err, ErrNotFound), "%v", err)
	require.EqualError(t, err, `cannot open run "zz-nothing-ran": nothing ran in it: its folder `+filepath.Join(s.Dir, "zz-nothing-ran")+` holds neither run.json nor a journal (lppctl stopped as it made it, or the folder was made by hand); remove it`)
}
