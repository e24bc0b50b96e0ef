package skills

import (
	"os"
	"path/filepath"

	"github.com/lppctl/lppctl/internal/fsx"
)

// sweep removes the temporary files that a writer of the library killed
// before its rename left behind (".skills.json.tmp-*", and those of its run
// log), under the library's lock, so that the next command that opens the
// library cleans them even when it writes nothing. It costs a glob when
// there are none.
func (l *Library) sweep() {
	if !hasStaleTemps(l.path) && !hasStaleTemps(l.runsPath) {
		return
	}
	_ = l.withLock(func(*os.File) error { return nil }) // withLock removes them
}

// hasStaleTemps reports whether temporary files of path's atomic writes exist.
func hasStaleTemps(path string) bool {
	m, _ := filepath.Glob(filepath.Join(filepath.Dir(path), fsx.TempPattern(path)))
	return len(m) > 0
}
