package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestManPageShowsEachFlagsValueNotAnEmptyDefault(t *testing.T) {
	t.Parallel()
	code, out, errOut := lppctlCLI(t, "man")
	require.Equal(t, exitOK, code, errOut)
	assert.NotContains(t, out, `=""`)
	assert.Contains(t, out, `\fB--log-format\fP=\fItext\fP: write logs (stderr) as \fBtext\fR for people or json for machines (default: "text")`)
	assert.Contains(t, out, `\fB--library, -l\fP=\fIFILE\fP: the skill library \fBFILE\fR`)
}

func TestManFlagValues(t *testing.T) {
	tests := []struct{ in, want string }{
		{`\fB--root\fP="": the project root \fBDIR\fR (default: the current directory)`, `\fB--root\fP=\fIDIR\fP: the project root \fBDIR\fR (default: the current directory)`},
		{`\fB--x\fP="": no placeholder`, `\fB--x\fP=\fIvalue\fP: no placeholder`},
		{`\fB--quiet, -q\fP: print nothing`, `\fB--quiet, -q\fP: print nothing`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, manFlagValues(tt.in))
	}
}
