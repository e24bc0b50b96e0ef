package main

import (
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUIOnABusyPortSaysSoAndHowToChooseAnother: lppctl ui on a port that
// something listens on already names the address and the flag to change.
func TestUIOnABusyPortSaysSoAndHowToChooseAnother(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	code, _, errOut := lppctlCLI(t, "ui", "--root", t.TempDir(), "--addr", ln.Addr().String())
	assert.Equal(t, 1, code)
	assert.Equal(t, "lppctl: cannot serve the UI on "+ln.Addr().String()+": the port is in use (another lppctl ui?); give another with --addr, e.g. --addr 127.0.0.1:0 for any free one\n", errOut)
}
