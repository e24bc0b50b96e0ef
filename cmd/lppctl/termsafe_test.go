package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTerminalSafeEscapesWhatDrivesATerminal(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain text with newlines and tabs", "a\tb\nc\n", "a\tb\nc\n"},
		{"a colour and a title", "ok\x1b[31mred\x1b]0;title\x07", `ok\x1b[31mred\x1b]0;title\x07`},
		{"NUL, CR and DEL", "a\x00b\rc\x7f", `a\x00b\x0dc\x7f`},
		{"a C1 control", "a\u009bb", `a\u009bb`},
		{"a bidi override", "x\u202ey", `x\u202ey`},
		{"bytes that are not UTF-8", "ok\xff\xfe", `ok\xff\xfe`},
		{"other text is kept", "héllo ✓ 日本", "héllo ✓ 日本"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, terminalSafe(tt.in))
		})
	}
}

// `lppctl tool` escapes a result on a terminal and keeps its bytes exactly
// when its stdout is a pipe or a file.
func TestToolEscapesControlCharactersOnATerminalOnly(t *testing.T) {
	root := toolRoot(t)
	require.NoError(t, os.WriteFile(filepath.Join(root, "out.txt"), []byte("ok\x1b[31mred\x1b]0;title\x07\r\n"), 0o644))
	for _, tc := range []struct {
		name     string
		terminal bool
		want     string
	}{
		{"a terminal", true, "ok\\x1b[31mred\\x1b]0;title\\x07\\x0d\n"},
		{"a pipe", false, "ok\x1b[31mred\x1b]0;title\x07\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := toolOutIsTerminal
			toolOutIsTerminal = func(io.Writer) bool { return tc.terminal }
			t.Cleanup(func() { toolOutIsTerminal = old })
			var out, errb bytes.Buffer
			code := run([]string{"lppctl", "tool", "--root", root, "safe_cli_executor", "read_file", "path=out.txt"}, strings.NewReader(""), &out, &errb)
			require.Equal(t, 0, code, errb.String())
			require.Equal(t, tc.want, out.String())
		})
	}
}
