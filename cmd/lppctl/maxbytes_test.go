package main

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/lppctl/lppctl/internal/fsx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sizedFile makes a file of size bytes in dir (sparse: nothing is written).
func sizedFile(t *testing.T, dir, name string, size int64) string {
	t.Helper()
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(size))
	require.NoError(t, f.Close())
	return path
}

// TestCommandsRefuseFilesOverTheReadCap: import lpp, validate, check and
// export read a spec or blueprint of at most 16 MiB (--max-bytes or
// LPPCTL_MAX_BYTES raise it), and the refusal says the size, the cap and how
// to raise it.
func TestCommandsRefuseFilesOverTheReadCap(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	sizedFile(t, dir, "big.json", fsx.DefaultMaxBytes+1)
	small := `{"$schema": "lpp/v0.2.0", "id": "bp", "description": "0123456789012345678901234567890123456789",
 "context_schema": {"properties": {}}, "states": {"x": {"description": "x"}, "y": {"description": "y"}},
 "entry_state": "x", "terminal_states": {"y": {}}, "gates": {}, "actions": {},
 "transitions": [{"id": "xy", "from": "x", "to": "y", "on_event": "GO"}], "name": "x", "version": "1"}`
	require.NoError(t, os.WriteFile("small.json", []byte(small), 0o644))
	// human is the limit in a larger unit, "" for a limit under 1 KiB
	tooBig := func(what, file string, size, limit int64, human string) string {
		if human != "" {
			human = " (" + human + ")"
		}
		return "lppctl: cannot read " + what + ": " + file + " is " + strconv.FormatInt(size, 10) + " bytes, over the limit of " + strconv.FormatInt(limit, 10) +
			" bytes" + human + "; raise the limit with --max-bytes SIZE or LPPCTL_MAX_BYTES=SIZE\n"
	}
	tests := []struct {
		name    string
		env     string
		args    []string
		code    int
		wantErr string
	}{
		{"import refuses a blueprint over 16 MiB", "", []string{"import", "lpp", "big.json"}, exitInvalidSpec,
			tooBig("blueprint", "big.json", fsx.DefaultMaxBytes+1, fsx.DefaultMaxBytes, "16 MiB")},
		{"validate refuses a file over 16 MiB", "", []string{"validate", "big.json"}, exitInvalidSpec,
			tooBig("spec", "big.json", fsx.DefaultMaxBytes+1, fsx.DefaultMaxBytes, "16 MiB")},
		{"check refuses a file over 16 MiB", "", []string{"check", "big.json"}, exitInvalidSpec, ""},
		{"run refuses a file over 16 MiB", "", []string{"run", "--spec", "big.json", "--yes"}, exitInvalidSpec,
			tooBig("spec", "big.json", fsx.DefaultMaxBytes+1, fsx.DefaultMaxBytes, "16 MiB")},
		{"LPPCTL_MAX_BYTES lowers run's cap", "200", []string{"run", "--spec", "small.json", "--yes"}, exitInvalidSpec,
			tooBig("spec", "small.json", int64(len(small)), 200, "")},
		{"export refuses a file over 16 MiB", "", []string{"export", "big.json"}, exitInvalidSpec,
			tooBig("spec", "big.json", fsx.DefaultMaxBytes+1, fsx.DefaultMaxBytes, "16 MiB")},
		{"--max-bytes lowers the cap", "", []string{"import", "lpp", "--max-bytes", "100", "small.json"}, exitInvalidSpec,
			tooBig("blueprint", "small.json", int64(len(small)), 100, "")},
		{"LPPCTL_MAX_BYTES lowers the cap", "1K", []string{"validate", "small.json"}, 0, ""},
		{"LPPCTL_MAX_BYTES under the size refuses", "200", []string{"validate", "small.json"}, exitInvalidSpec,
			tooBig("spec", "small.json", int64(len(small)), 200, "")},
		{"--max-bytes wins over LPPCTL_MAX_BYTES", "100", []string{"validate", "--max-bytes", "1KiB", "small.json"}, 0, ""},
		{"a bad --max-bytes is a usage error", "", []string{"validate", "--max-bytes", "lots", "small.json"}, exitUsage,
			"lppctl: cannot read size \"lots\": write a number of bytes, or one with a KiB, MiB or GiB suffix (16MiB)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(fsx.MaxBytesEnv, tt.env)
			code, out, errOut := runCLI(t, tt.args...)
			assert.Equal(t, tt.code, code, "%s%s", out, errOut)
			if tt.wantErr != "" {
				assert.Equal(t, tt.wantErr, errOut)
			}
		})
	}
}

// TestValidateRaisedCapReadsALargeBlueprint: with the cap raised, a
// blueprint over 16 MiB is read and decoded (here: refused as the JSON it
// is not, past the size check).
func TestValidateRaisedCapReadsALargeFile(t *testing.T) {
	dir := t.TempDir()
	path := sizedFile(t, dir, "big.json", fsx.DefaultMaxBytes+1)
	code, out, errOut := runCLI(t, "validate", "--max-bytes", "17MiB", path)
	assert.Equal(t, exitInvalidSpec, code)
	assert.NotContains(t, out+errOut, "over the limit")
}

// TestAnLPPCTL_MAX_BYTESThatCannotBeReadIsAUsageErrorInEveryCommand: run,
// resume and ui refuse it as validate does (exit 2, the same words). run
// and resume exited 3 (an invalid spec), and ui served a Specs page that
// listed no spec at all.
func TestAnLPPCTL_MAX_BYTESThatCannotBeReadIsAUsageErrorInEveryCommand(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	require.NoError(t, os.WriteFile("wait.yaml", []byte("lpp: 1\nname: w\ninitial: a\nstates:\n  a:\n    on: {GO: done}\n  done: {final: true}\n"), 0o644))
	code, out, errOut := runCLI(t, "run", "-q", "wait.yaml")
	require.Equal(t, exitPaused, code, out+errOut)
	ln, err := net.Listen("tcp", "127.0.0.1:0") // ui would serve on it; it must not get that far
	require.NoError(t, err)
	defer ln.Close()

	const want = "lppctl: LPPCTL_MAX_BYTES: cannot read size \"12x\": write a number of bytes, or one with a KiB, MiB or GiB suffix (16MiB)\n"
	t.Setenv(fsx.MaxBytesEnv, "12x")
	for _, args := range [][]string{
		{"validate", "wait.yaml"},
		{"run", "-q", "wait.yaml"},
		{"resume", "2", "-q", "--event", "GO"},
		{"ui", "--addr", ln.Addr().String()},
	} {
		t.Run(args[0], func(t *testing.T) {
			code, out, errOut := runCLI(t, args...)
			assert.Equal(t, exitUsage, code, out+errOut)
			assert.Equal(t, want, errOut)
		})
	}
}
