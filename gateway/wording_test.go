package gateway

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Small refusals and errors name what is wrong: a blank path is blank (not
// a traversal), a parameter given under two names names both.
func TestRefusalsNameWhatIsWrong(t *testing.T) {
	sb := newSandbox(t)
	tests := []struct {
		name   string
		sub    string
		params map[string]any
		want   string
	}{
		{"a blank path", "read_file", map[string]any{"path": "   "},
			`[SECURITY BLOCKED] path-blank: read_file.path "   " is blank; give a path relative to the project root`},
		{"a blank component", "read_file", map[string]any{"path": "docs/ /readme.md"},
			`[SECURITY BLOCKED] path-blank: read_file.path "docs/ /readme.md" has a component made only of blanks (" "); give the path without it`},
		{"a dotted component is still a traversal", "read_file", map[string]any{"path": "docs/. ./x"},
			`[SECURITY BLOCKED] path-traversal: read_file.path "docs/. ./x" contains ". ."; paths must stay inside the project root`},
		{"a parameter under its alias and its name", "read_file", map[string]any{"path": "a", "file": "b"},
			`[ERROR] read_file: parameter "path" given twice, as "file" and as "path"; send it once`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, sb.cli(tt.sub, tt.params).Text)
		})
	}
}

// protected_paths and script_dirs are literal paths: a glob character or a
// leading "~" is a policy error instead of a name that matches nothing.
func TestPolicyPathsRefuseGlobsAndHomeDirectories(t *testing.T) {
	base, err := os.ReadFile(policyFile)
	require.NoError(t, err)
	const dirs = `; script_dirs are literal directories where "*" may stand for one whole component (skills/*)`
	tests := []struct {
		name, old, new, value, want string // value: the entry as written, where the problem is
	}{
		{"a glob in protected_paths", "  - .lppctl\n", "  - '*.md'\n", "'*.md'",
			`protected_paths[2]: "*.md" holds the glob character "*"; protected_paths are literal paths (a directory protects everything below it), not globs`},
		{"a home directory in protected_paths", "  - .lppctl\n", "  - ~/notes\n", "~/notes",
			`protected_paths[2]: "~/notes" must be relative to the project root ("~" is not a home directory here)`},
		{"a bracket in script_dirs", "    - skills/*\n", "    - skills/*\n    - '[a-z]*'\n", "'[a-z]*'",
			`safe_py_runner.script_dirs[2]: "[a-z]*" holds the glob character "["` + dirs},
		{"a question mark in script_dirs", "    - skills/*\n", "    - skills/*\n    - 'tools/?'\n", "'tools/?'",
			`safe_py_runner.script_dirs[2]: "tools/?" holds the glob character "?"` + dirs},
		{"a partial star in script_dirs", "    - skills/*\n", "    - skills/*\n    - 'tools/x*'\n", "'tools/x*'",
			`safe_py_runner.script_dirs[2]: "tools/x*" holds the glob character "*"` + dirs},
		{"a home directory in script_dirs", "    - skills/*\n", "    - skills/*\n    - ~/bin\n", "~/bin",
			`safe_py_runner.script_dirs[2]: "~/bin" must be relative to the project root ("~" is not a home directory here)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := strings.Replace(string(base), tt.old, tt.new, 1)
			require.NotEqual(t, string(base), s)
			_, err := ParsePolicy(strings.NewReader(s), "p.yaml")
			require.EqualError(t, err, "cannot load policy p.yaml: invalid policy: "+at(t, s, "- "+tt.value, 2)+tt.want)
		})
	}
}

// The blocked-pattern speed bump also catches os.posix_spawn and asyncio's
// subprocess creation in a script's source.
func TestScriptsStartingProcessesThroughPosixSpawnOrAsyncioAreBlocked(t *testing.T) {
	sb := newSandbox(t)
	tests := []struct {
		name, src, want string
	}{
		{"os.posix_spawn", "import os\nos.posix_spawn('/bin/sh', ['sh'], {})\n",
			`[SECURITY BLOCKED] blocked-pattern:posix-spawn: script scripts/spawn.py matches the blocked pattern "posix-spawn" (starting processes from Python (os.posix_spawn)) at "posix_spawn"`},
		{"posix_spawnp imported by name", "from os import posix_spawnp\n",
			`[SECURITY BLOCKED] blocked-pattern:posix-spawn: script scripts/spawn.py matches the blocked pattern "posix-spawn" (starting processes from Python (os.posix_spawn)) at "posix_spawnp"`},
		{"asyncio", "import asyncio\nasyncio.run(asyncio.create_subprocess_exec('sh'))\n",
			`[SECURITY BLOCKED] blocked-pattern:asyncio-subprocess: script scripts/spawn.py matches the blocked pattern "asyncio-subprocess" (starting processes from Python (asyncio)) at "create_subprocess_exec"`},
		{"asyncio through a shell", "import asyncio\nasyncio.create_subprocess_shell('id')\n",
			`[SECURITY BLOCKED] blocked-pattern:asyncio-subprocess: script scripts/spawn.py matches the blocked pattern "asyncio-subprocess" (starting processes from Python (asyncio)) at "create_subprocess_shell"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb.write(t, "scripts/spawn.py", tt.src)
			require.Equal(t, tt.want, sb.run(map[string]any{"script_name": "scripts/spawn.py"}).Text)
		})
	}
}
