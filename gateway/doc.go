// Package gateway is the agent's only way to act on the project: the security
// gateway behind the safe_cli_executor and safe_py_runner tools.
//
// A Gateway enforces a Policy (config/tools_config.yaml, loaded strictly and
// failing closed) on one project root opened as an os.Root. File sub-commands
// (list_files, read_file, make_directory, tree, copy_file, move_file) are
// implemented in Go on that root, never through a shell. Python scripts under
// the policy's script directories run with python3 from an argv list, a
// minimal environment, a timeout that kills the whole process group and capped
// output. Paths matching the policy's hidden_paths (secrets, .git, the run
// directory) are refused by every sub-command and left out of listings, also
// through symbolic links. Parameter regexes and blocked patterns are early
// filters; os.Root is the boundary. Every refusal comes back to the model as a tool result starting
// "[SECURITY BLOCKED] <rule>:", every ordinary failure as "[ERROR] ...", and
// every call is written to the audit log as one JSON line.
//
// See docs/gateway.md for the policy format and the rules.
package gateway
