package check_test

import (
	"context"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/internal/spectest"
)

// TestModelCheckPutsBackTheCollectorsTarget: a large check lowers the
// garbage collector's target while it runs (check_gc.go; here "large" is
// any size) and leaves it as it found it: a higher one, the default, a lower
// one, or GOGC=off.
func TestModelCheckPutsBackTheCollectorsTarget(t *testing.T) {
	m := spectest.Compile(t, genCheckSpec(5, 2, 3), spectest.Registry())
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	at := *check.GCLowerAt
	*check.GCLowerAt = 0
	defer func() { *check.GCLowerAt = at }()
	for _, percent := range []int{300, 100, 5, -1} {
		debug.SetGCPercent(percent)
		check.ModelCheck(context.Background(), m, check.CheckOptions{})
		assert.Equal(t, percent, debug.SetGCPercent(percent), "the target after a check")
	}
}
