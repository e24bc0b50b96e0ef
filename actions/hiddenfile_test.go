package actions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A prompt template is read by lppctl and sent to the model, so a spec (a
// model may have written it) cannot name a file the gateway hides: a
// read_file of it is refused, and so is the template, as named, through a
// link, or by the policy's own hidden_paths; without a policy the default
// hidden_paths apply.
func TestAPromptTemplateTheGatewayHidesIsRefused(t *testing.T) {
	const secret = "OPENAI_API_KEY=sk-SECRETENV\n"
	for _, tc := range []struct {
		name     string
		policy   string // "": the project's; "none": no policy file; else hidden_paths replaced by it
		template string
		want     string // "": found
	}{
		{name: "a .env file named by climbing out of specs", template: "../.env",
			want: `cannot use prompt template: file "../.env" is hidden from the model: it matches the hidden path pattern ".env" (hidden_paths in the gateway policy), and a file a spec names is sent to the model`},
		{name: "a private key below output", template: "../output/keys/id_ed25519",
			want: `cannot use prompt template: file "../output/keys/id_ed25519" is hidden from the model: it matches the hidden path pattern "id_ed25519*" (hidden_paths in the gateway policy), and a file a spec names is sent to the model`},
		{name: "a link to .env", template: "notes.md",
			want: `cannot use prompt template: file "notes.md" is hidden from the model: it matches the hidden path pattern ".env" (hidden_paths in the gateway policy), and a file a spec names is sent to the model`},
		{name: "the run directory", template: "../.lppctl/runs/r1/llm.jsonl",
			want: `cannot use prompt template: file "../.lppctl/runs/r1/llm.jsonl" is hidden from the model: it matches the hidden path pattern ".lppctl" (hidden_paths in the gateway policy), and a file a spec names is sent to the model`},
		{name: "a .env file with no policy file: the defaults", policy: "none", template: "../.env",
			want: `cannot use prompt template: file "../.env" is hidden from the model: it matches the hidden path pattern ".env" (hidden_paths in the gateway policy), and a file a spec names is sent to the model`},
		{name: "a file the policy's own hidden_paths name", policy: "[private]", template: "../private/plan.md",
			want: `cannot use prompt template: file "../private/plan.md" is hidden from the model: it matches the hidden path pattern "private" (hidden_paths in the gateway policy), and a file a spec names is sent to the model`},
		{name: "an ordinary prompt", template: "plan.md"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProject(t, map[string]string{
				".env":                      secret,
				"output/keys/id_ed25519":    secret,
				".lppctl/runs/r1/llm.jsonl": secret,
				"private/plan.md":           secret,
				"specs/plan.md":             "Plan {{.task}}\n",
			})
			require.NoError(t, os.Symlink("../.env", filepath.Join(p.root, "specs", "notes.md"))) // relative: it stays inside the root
			switch tc.policy {
			case "":
			case "none":
				require.NoError(t, os.Remove(filepath.Join(p.root, "config", "tools_config.yaml")))
			default:
				b, err := os.ReadFile(filepath.Join(p.root, "config", "tools_config.yaml"))
				require.NoError(t, err)
				i := strings.Index(string(b), "\nhidden_paths:")
				require.Positive(t, i)
				j := strings.Index(string(b)[i+1:], "\n\n")
				p.write("config/tools_config.yaml", string(b)[:i+1]+"hidden_paths: "+tc.policy+string(b)[i+1+j:])
			}
			d := p.deps("specs", "")
			path, err := d.FindTemplate(tc.template)
			if tc.want != "" {
				require.EqualError(t, err, tc.want)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, filepath.Join(p.root, "specs", "plan.md"), path)
		})
	}
}
