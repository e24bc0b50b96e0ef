package gateway

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Every piece of a script argument (split on blanks, "=", "," and ":") is
// checked as a path: absolute pieces and ".." components are refused wherever
// they sit in the argument; URLs, times and numbers are not paths.
func TestScriptArgPiecesThatAreAbsoluteOrClimbAreRefused(t *testing.T) {
	needPython(t)
	tests := []struct {
		name, arg, want string // want "" means the script runs
	}{
		{"a climb after =", "--in=../secret.txt",
			`[SECURITY BLOCKED] arg-path: args[0] "--in=../secret.txt" contains ".."; paths must stay inside the project root`},
		{"an absolute path after =", "--in=/etc/passwd",
			`[SECURITY BLOCKED] arg-path: args[0] "--in=/etc/passwd" holds the absolute path "/etc/passwd" (an arg is read as pieces split on blanks, "=", "," and ":"); paths are relative to the project root`},
		{"an absolute path after :", "x:/etc/passwd",
			`[SECURITY BLOCKED] arg-path: args[0] "x:/etc/passwd" holds the absolute path "/etc/passwd" (an arg is read as pieces split on blanks, "=", "," and ":"); paths are relative to the project root`},
		{"a climb after ,", "a,../secret.txt",
			`[SECURITY BLOCKED] arg-path: args[0] "a,../secret.txt" contains ".."; paths must stay inside the project root`},
		{"a climb after a blank", "notes ..",
			`[SECURITY BLOCKED] arg-path: args[0] "notes .." contains ".."; paths must stay inside the project root`},
		{"a file URL", "file:///etc/passwd",
			`[SECURITY BLOCKED] arg-path: args[0] "file:///etc/passwd" holds the absolute path "///etc/passwd" (an arg is read as pieces split on blanks, "=", "," and ":"); paths are relative to the project root`},
		{"a one-letter scheme is a drive", "C://x",
			`[SECURITY BLOCKED] arg-path: args[0] "C://x" holds the absolute path "//x" (an arg is read as pieces split on blanks, "=", "," and ":"); paths are relative to the project root`},
		{"a path after a URL", "https://example.com/x,/etc/passwd",
			`[SECURITY BLOCKED] arg-path: args[0] "https://example.com/x,/etc/passwd" holds the absolute path "/etc/passwd" (an arg is read as pieces split on blanks, "=", "," and ":"); paths are relative to the project root`},
		{"a whole absolute path", "/etc/passwd",
			`[SECURITY BLOCKED] arg-path: args[0] "/etc/passwd" is an absolute path; paths are relative to the project root`},
		{"a URL", "--url=https://example.com:8080/a/../b", ""},
		{"a URL after :", "src:s3://bucket/key", ""},
		{"a time", "10:30", ""},
		{"a negative number", "-5", ""},
		{"a range", "--lines=1..5", ""},
		{"a relative path after =", "--in=docs/readme.md", ""},
	}
	sb := newSandbox(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := sb.run(map[string]any{"script_name": "scripts/echo.py", "args": []any{tt.arg}})
			if tt.want == "" {
				require.Equal(t, DecisionAllow, res.Decision, res.Text)
				require.Equal(t, "args ['"+tt.arg+"']", res.Text)
				return
			}
			require.Equal(t, tt.want, res.Text)
			require.Equal(t, ruleArgPath, res.Rule)
		})
	}
}
