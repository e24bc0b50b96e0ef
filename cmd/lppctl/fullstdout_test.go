package main

import (
	"bytes"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
)

// fullWriter is a stdout that cannot be written, as /dev/full.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// TestAReportThatCannotBeWrittenIsAFailure: version and validate exited 0
// when their output could not be written (lppctl validate SPEC >/dev/full),
// where runs, schema, actions and export exit 1 saying so: a script that
// reads the report got nothing and was told all was well.
func TestAReportThatCannotBeWrittenIsAFailure(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"version", []string{"version"}, "lppctl: cannot write the version: no space left on device\n"},
		{"--version", []string{"--version"}, "lppctl: cannot write the version: no space left on device\n"},
		{"validate", []string{"validate", goodSpec}, "lppctl: cannot write the report: no space left on device\n"},
		{"validate --json", []string{"validate", "--json", goodSpec}, "lppctl: cannot write JSON: no space left on device\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var errOut bytes.Buffer
			inProcess.Lock()
			code := run(append([]string{"lppctl"}, tc.args...), strings.NewReader(""), fullWriter{}, &errOut)
			inProcess.Unlock()
			assert.Equal(t, exitFailed, code)
			assert.Equal(t, tc.want, errOut.String())
		})
	}
}
