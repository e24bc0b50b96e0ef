package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/lppctl/lppctl/machine/runstore"
)

// TestAStoreThatCannotBeWrittenSaysWhereToKeepTheRuns: a run in a read-only
// checkout (or a folder of another user) failed with only
// "cannot create run directory: mkdir .lppctl: read-only file system"; it
// now says which folder and how to keep the runs elsewhere. Other errors
// are left as they are. (The tests run as root, for whom a folder's mode
// does not stop a write, so the error is made here.)
func TestAStoreThatCannotBeWrittenSaysWhereToKeepTheRuns(t *testing.T) {
	store := runstore.New(".lppctl/runs")
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"a read-only file system",
			fmt.Errorf("cannot create run directory: %w", &os.PathError{Op: "mkdir", Path: ".lppctl", Err: syscall.EROFS}),
			"cannot create run directory: mkdir .lppctl: read-only file system: .lppctl/runs cannot be written; keep the runs in a folder that can with --run-dir DIR or LPPCTL_RUN_DIR=DIR"},
		{"a folder without write permission",
			fmt.Errorf("cannot create run directory: %w", &os.PathError{Op: "mkdir", Path: ".lppctl", Err: fs.ErrPermission}),
			"cannot create run directory: mkdir .lppctl: permission denied: .lppctl/runs cannot be written; keep the runs in a folder that can with --run-dir DIR or LPPCTL_RUN_DIR=DIR"},
		{"another error", errors.New("cannot save spec copy: disk full"), "cannot save spec copy: disk full"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := storeNotWritable(store, tc.err)
			assert.Equal(t, tc.want, err.Error())
			assert.ErrorIs(t, err, tc.err)
		})
	}
}
