package agent

import (
	"testing"

	"github.com/lppctl/lppctl/actions/llm"
)

func TestToolCallWrittenAsText(t *testing.T) {
	tools := []llm.Tool{{Name: "safe_cli_executor"}, {Name: "safe_py_runner"}}
	for text, want := range map[string]string{
		`{"name": "safe_py_runner", "arguments": {"script_name": "x.py"}}`:                 "safe_py_runner",
		"```json\n{\"name\": \"safe_cli_executor\", \"parameters\": {}}\n```":              "safe_cli_executor",
		`{"name": "rm_rf", "arguments": {}}`:                                               "",
		`{"goal": "g", "steps": []}`:                                                       "",
		`[ATTEMPTS_COMPLETE] {"name": "safe_py_runner", "arguments": {}}`:                  "",
		`{"verdict": "PASS", "feedback": "", "key_outputs": {}, "name": "safe_py_runner"}`: "",
	} {
		if got := toolCallInText(text, tools); got != want {
			t.Errorf("toolCallInText(%q) = %q, want %q", text, got, want)
		}
	}
}
