package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lppctl/lppctl/machine/runstore"
)

// evalTempPrefix begins the name of the temporary copy of the project that
// each run of lppctl eval works in: lppctl-eval-PID-*, PID the eval's.
const evalTempPrefix = "lppctl-eval-"

// evalTempDir makes the temporary copy's folder in dir ("" = os.TempDir()).
func evalTempDir(dir string) (string, error) {
	return os.MkdirTemp(dir, fmt.Sprintf("%s%d-*", evalTempPrefix, os.Getpid()))
}

// sweepEvalTemps removes the copies that an eval killed before it removed
// them left in dir ("" = os.TempDir()): those whose process is gone. A copy
// named without a pid (an earlier version's) is left alone.
func sweepEvalTemps(dir string) {
	if dir == "" {
		dir = os.TempDir()
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), evalTempPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		p, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(p)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() || runstore.ProcessAlive(pid) {
			continue
		}
		_ = os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}
