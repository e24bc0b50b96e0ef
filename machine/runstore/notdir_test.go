package runstore

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A store whose path is a file (LPPCTL_RUN_DIR=FILE) is refused saying so
// and how to go on; it read "open FILE: not a directory" and named neither
// the store nor the flag.
func TestAStoreThatIsAFileSaysSo(t *testing.T) {
	file := filepath.Join(t.TempDir(), "runs")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	hint := ": the run store %[1]s is a file, or lies under one, not a folder; keep the runs in a folder with --run-dir DIR or LPPCTL_RUN_DIR=DIR"
	for _, tc := range []struct {
		name, dir, want string
		do              func(*Store) error
	}{
		{"list", file, "cannot list runs: open %[1]s: not a directory" + hint,
			func(s *Store) error { _, err := s.List(); return err }},
		{"open", file, `cannot open run "2026": open %[1]s: not a directory` + hint,
			func(s *Store) error { _, err := s.Open("2026"); return err }},
		{"create", filepath.Join(file, "sub"), "cannot create run directory: mkdir %[1]s: not a directory" + hint,
			func(s *Store) error { _, err := s.Create(Meta{}, nil); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.do(New(tc.dir))
			require.Error(t, err)
			want := tc.want
			if tc.name == "create" {
				want = "cannot create run directory: mkdir %[1]s: not a directory: the run store %[2]s is a file, or lies under one, not a folder; keep the runs in a folder with --run-dir DIR or LPPCTL_RUN_DIR=DIR"
			}
			require.Equal(t, fmt.Sprintf(want, file, tc.dir), err.Error())
		})
	}
}
