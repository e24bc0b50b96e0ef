package gateway

import (
	"os"
	"path/filepath"
	"strings"
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
		{"an absolute path glued to a short option", "-o/etc/passwd",
			`[SECURITY BLOCKED] arg-path: args[0] "-o/etc/passwd" holds the absolute path "/etc/passwd" after "-o" (a script may read the letters after "-" as options and the rest as the last one's value, and @FILE as a file of arguments); paths are relative to the project root: give an option's value as the next arg`},
		{"an absolute path after a group of short options", "-vo/etc/passwd",
			`[SECURITY BLOCKED] arg-path: args[0] "-vo/etc/passwd" holds the absolute path "/etc/passwd" after "-vo" (a script may read the letters after "-" as options and the rest as the last one's value, and @FILE as a file of arguments); paths are relative to the project root: give an option's value as the next arg`},
		{"a climb glued to a short option", "-o../secret.txt",
			`[SECURITY BLOCKED] arg-path: args[0] "-o../secret.txt" contains ".."; paths must stay inside the project root`},
		{"a climb after a long group of letters", "-" + strings.Repeat("v", 40) + "../x",
			`[SECURITY BLOCKED] arg-path: args[0] "-` + strings.Repeat("v", 40) + `../x" contains ".."; paths must stay inside the project root`},
		{"a file of arguments", "@/etc/passwd",
			`[SECURITY BLOCKED] arg-path: args[0] "@/etc/passwd" holds the absolute path "/etc/passwd" after "@" (a script may read the letters after "-" as options and the rest as the last one's value, and @FILE as a file of arguments); paths are relative to the project root: give an option's value as the next arg`},
		{"a long option takes no glued value", "--out/x", ""},
		{"a short option with a relative name", "-odocs", ""},
		{"a short option glued to a path in a project folder", "-odocs/readme.md", ""},
		{"a short option glued to a new file in a project folder", "-odocs/new/out.md", ""},
		{"a short option glued to a path in a folder of digits and capitals", "-iScripts2/x", ""},
		{"a glued path whose first folder is not the project's", "-vs/etc/passwd",
			`[SECURITY BLOCKED] arg-path: args[0] "-vs/etc/passwd" holds the absolute path "/etc/passwd" after "-vs" (a script may read the letters after "-" as options and the rest as the last one's value, and @FILE as a file of arguments); paths are relative to the project root: give an option's value as the next arg`},
		{"a glued path in a project folder that climbs", "-odocs/../../x",
			`[SECURITY BLOCKED] arg-path: args[0] "-odocs/../../x" contains ".."; paths must stay inside the project root`},
		{"a glued path in a project folder with a second slash", "-odocs//etc/passwd",
			`[SECURITY BLOCKED] arg-path: args[0] "-odocs//etc/passwd" holds the absolute path "//etc/passwd" after "-odocs" (a script may read the letters after "-" as options and the rest as the last one's value, and @FILE as a file of arguments); paths are relative to the project root: give an option's value as the next arg`},
		{"a glued path in a project folder that is absolute later", "-odocs/x.md,/etc/passwd",
			`[SECURITY BLOCKED] arg-path: args[0] "-odocs/x.md,/etc/passwd" holds the absolute path "/etc/passwd" (an arg is read as pieces split on blanks, "=", "," and ":"); paths are relative to the project root`},
		{"a URL", "--url=https://example.com:8080/a/../b", ""},
		{"a URL after :", "src:s3://bucket/key", ""},
		{"a time", "10:30", ""},
		{"a negative number", "-5", ""},
		{"a range", "--lines=1..5", ""},
		{"a relative path after =", "--in=docs/readme.md", ""},
	}
	sb := newSandbox(t)
	require.NoError(t, os.MkdirAll(filepath.Join(sb.root, "Scripts2"), 0o755))
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
