//go:build unix

package ui

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSpecsPagesReadOnlyRegularFilesUpToTheCap: a FIFO named like a spec
// (nothing ever writes it) neither hangs the specs list nor a spec page, a
// file over the cap (LPPCTL_MAX_BYTES, as the CLI's) is left out of the list
// and refused on its page with the cap, and the list still shows the rest.
func TestSpecsPagesReadOnlyRegularFilesUpToTheCap(t *testing.T) {
	t.Setenv("LPPCTL_MAX_BYTES", "4KiB")
	f := newFixture(t, Options{})
	require.NoError(t, os.MkdirAll(filepath.Join(f.root, "specs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(f.root, "specs", "loop.yaml"), []byte(loopSpec), 0o644))
	require.NoError(t, syscall.Mkfifo(filepath.Join(f.root, "specs", "fifo.yaml"), 0o644))
	require.NoError(t, os.Symlink("fifo.yaml", filepath.Join(f.root, "specs", "link.yaml")))
	big := "lpp: 1\nname: big\ninitial: a\nstates:\n  a: {final: true}\n# " + string(make([]byte, 5000)) + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(f.root, "specs", "big.yaml"), []byte(big), 0o644))

	type page struct {
		code int
		body string
	}
	get := func(path string) page {
		done := make(chan page, 1)
		go func() {
			w := f.do("GET", path, "")
			done <- page{w.Code, w.Body.String()}
		}()
		select {
		case p := <-done:
			return p
		case <-time.After(time.Minute): // a hang, not a slow machine: the read never ends
			t.Fatalf("GET %s hangs", path)
			return page{}
		}
	}
	list := get("/specs")
	assert.Equal(t, 200, list.code)
	assert.Contains(t, list.body, `<tr data-spec="specs/loop.yaml">`)
	assert.NotContains(t, list.body, "fifo.yaml")
	assert.NotContains(t, list.body, "link.yaml")
	assert.NotContains(t, list.body, "big.yaml")

	fifo := get("/spec?path=specs/fifo.yaml")
	assert.Equal(t, 400, fifo.code)
	assert.Contains(t, fifo.body, "cannot read spec: specs/fifo.yaml is not a regular file")
	link := get("/spec?path=specs/link.yaml")
	assert.Equal(t, 400, link.code)
	assert.Contains(t, link.body, "cannot read spec: specs/link.yaml is not a regular file")
	large := get("/spec?path=specs/big.yaml")
	assert.Equal(t, 400, large.code)
	assert.Contains(t, large.body, "cannot read spec: specs/big.yaml is 5058 bytes, over the limit of 4096 bytes (4 KiB); raise the limit with LPPCTL_MAX_BYTES=SIZE")
}
