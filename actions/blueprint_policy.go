package actions

import (
	"fmt"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"path"
	"slices"
	"strconv"
	"strings"
)

// blueprintPolicyName names BlueprintPolicy in messages.
const blueprintPolicyName = "the default policy of a blueprint's run (docs/lpp.md)"

// BlueprintPolicy is the gateway policy of a run of an imported L++
// blueprint in a folder that has no config/tools_config.yaml (an L++ user
// needs nothing but lppctl): the Python runner may run the .py files under
// scriptDirs (the folders of the compute mapping's scripts, relative to the
// folder the run starts in), with a minimal environment and no arguments
// or extra variables; no file sub-command but list_files. docs/lpp.md,
// "Running outside an lppctl project".
func BlueprintPolicy(scriptDirs []string) string {
	dirs := make([]string, 0, len(scriptDirs))
	for _, d := range scriptDirs {
		if q := strconv.Quote(d); !slices.Contains(dirs, q) {
			dirs = append(dirs, q)
		}
	}
	if len(dirs) == 0 {
		dirs = []string{`"scripts"`}
	}
	return fmt.Sprintf(`version: 1
protected_paths: [.git, .lppctl]
hidden_paths: [.git, .env, .env.*, '*.pem', '*.key', id_rsa*, id_ed25519*, .lppctl, .netrc, .npmrc, .pypirc, .ssh]
limits:
  max_output_bytes: 1048576
  read_file_max_bytes: 65536
  list_max_entries: 500
  tree_max_depth: 6
  tree_max_entries: 500
  copy_max_bytes: 33554432
  max_param_bytes: 4096
  max_stdin_bytes: 16777216
  max_script_bytes: 1048576
safe_cli_executor:
  description: the file sub-commands of a blueprint's run (none but list_files)
  sub_commands:
    list_files:
      description: List the entries of a directory.
      timeout: 10s
      params:
        path:
          description: directory to list
          pattern: '^[\p{L}\p{M}\p{N}_. @+=,#\-/\\]+$'
safe_py_runner:
  description: runs the blueprint's compute scripts
  python: python3
  timeout: 120s
  script_dirs: [%s]
  max_args: 1
  arg_pattern: '^$'
  env:
    inherit: [PATH, HOME, LANG, LC_ALL, LC_CTYPE, TZ, TMPDIR]
    set: {PYTHONDONTWRITEBYTECODE: "1", PYTHONIOENCODING: utf-8, PYTHONNOUSERSITE: "1", PYTHONUNBUFFERED: "1"}
    value_pattern: '^[^\x00-\x08\x0a-\x1f\x7f]*$'
    max_vars: 1
`, strings.Join(dirs, ", "))
}

// scriptDir is the folder of a script path as script.run takes it.
func scriptDir(script string) string {
	return path.Dir(strings.ReplaceAll(script, `\`, "/"))
}

// ScriptDirs are the folders of the scripts a spec's script.run states
// name (for BlueprintPolicy).
func ScriptDirs(spec *mspec.Spec) []string {
	var out []string
	for _, st := range spec.States {
		if st.Do != "script.run" {
			continue
		}
		for _, p := range st.With {
			if s, ok := p.Value.(string); ok && p.Name == "script" && !slices.Contains(out, scriptDir(s)) {
				out = append(out, scriptDir(s))
			}
		}
	}
	return out
}
