package gateway

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHiddenByMatchesThePolicysHiddenPathsOrTheDefaults(t *testing.T) {
	base, err := os.ReadFile(policyFile)
	require.NoError(t, err)
	src := withoutKeys(t, string(base), "hidden_paths") + "hidden_paths: [secrets, '*.tok']\n"
	custom, err := ParsePolicy(strings.NewReader(src), "custom.yaml")
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		policy *Policy
		rel    string
		want   string
	}{
		{name: "a .env file at the root, by default", rel: ".env", want: ".env"},
		{name: "a .env file below, by default", rel: "specs/h/.env", want: ".env"},
		{name: "a private key, by default, in another case", rel: "output/keys/ID_ED25519", want: "id_ed25519*"},
		{name: "a key file, by default", rel: "output/tmpl.key", want: "*.key"},
		{name: "a file in the run directory, by default", rel: ".lppctl/runs/x/llm.jsonl", want: ".lppctl"},
		{name: "a path with a backslash-free dot segment", rel: "specs/./../.env", want: ".env"},
		{name: "a prompt, by default", rel: "specs/prompts/plan.md"},
		{name: "the root", rel: "."},
		{name: "a policy's own pattern", policy: custom, rel: "a/secrets/x.md", want: "secrets"},
		{name: "a policy that does not hide .env", policy: custom, rel: ".env"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, HiddenBy(tc.policy, tc.rel))
		})
	}
}
