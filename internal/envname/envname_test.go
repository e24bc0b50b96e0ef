package envname

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCredentialNamesAreRecognisedAndOrdinaryNamesAreNot(t *testing.T) {
	for _, name := range []string{
		"PGPASSWORD", "GITHUB_PAT", "MYTOKEN", "SECRETKEY", "OTEL_EXPORTER_OTLP_HEADERS", "OPENAI_API_KEY_2",
		"OPENAI_API_KEY", "OPENAIKEY", "AWS_SECRET_ACCESS_KEY", "TRANSCRIPT_API_TOKEN", "DB_PASS", "SSH_AUTH_SOCK",
		"HTTP_AUTHORIZATION", "SENTRY_DSN", "SLACK_WEBHOOK", "GPG_PASSPHRASE", "GOOGLE_APPLICATION_CREDENTIALS",
		"session_cookie", "github_pat", "my_token",
	} {
		assert.True(t, Credential(name), name)
	}
	for _, name := range []string{
		"PATH", "MANPATH", "PWD", "OLDPWD", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR", "NAME", "VERBOSE",
		"TRANSCRIPT_API_URL", "GIT_AUTHOR_NAME", "PATCH_LEVEL", "PASSAGE_COUNT", "XDG_SESSION_ID", "EVAL_THRESHOLD",
		"OPENAI_MODEL", "path",
	} {
		assert.False(t, Credential(name), name)
	}
}

func TestOwnAndProviderVariables(t *testing.T) {
	for _, name := range []string{"OPENAI_API_BASE", "ANTHROPIC_BASE_URL", "OLLAMA_HOST", "LPPCTL_LLM", "lppctl_llm", "openai_model"} {
		assert.True(t, Own(name), name)
	}
	for _, name := range []string{"OPENAIKEY", "AWS_REGION", "TRANSCRIPT_API_URL", "PATH"} {
		assert.False(t, Own(name), name)
	}
	for _, name := range []string{"OPENAI_API_BASE", "AWS_REGION", "GH_HOST", "hf_home"} {
		assert.True(t, Provider(name), name)
	}
	for _, name := range []string{"LPPCTL_READ_ONLY", "LPPCTL_PROTECTED", "PATH", "GHOST"} {
		assert.False(t, Provider(name), name)
	}
}

func TestValuesHoldingAPasswordAreRecognisedAndOrdinaryValuesAreNot(t *testing.T) {
	for v, want := range map[string]string{
		"postgres://u:pw@h/db":                   "a URL with a user name or password (scheme://user:password@host)",
		"http://a:b@proxy:8080":                  "a URL with a user name or password (scheme://user:password@host)",
		"redis://:pw@h":                          "a URL with a user name or password (scheme://user:password@host)",
		"https://ghp_abc@github.com/o/r.git":     "a URL with a user name or password (scheme://user:password@host)",
		"mongodb+srv://u:p@c/x?authSource=admin": "a URL with a user name or password (scheme://user:password@host)",
		"x,https://u:p@h":                        "a URL with a user name or password (scheme://user:password@host)",
		"u:pw@h:5432/db":                         "a user name and password (user:password@host)",
		"host=h user=u password=pw":              "a password= setting",
		"Server=s;Database=d;Pwd=pw":             "a Pwd= setting",
		"https://h/x?token=abc":                  "a token= setting",
		"https://h/x?a=1&api-key=abc":            "a api-key= setting",
		"https://s.blob/c?sv=2020&sig=abc":       "a sig= setting",
	} {
		assert.Equal(t, want, CredentialValue(v), v)
	}
	for _, v := range []string{
		"", "/usr/bin:/bin", "C.UTF-8", "https://transcripts.example/api", "http://proxy:8080",
		"localhost,127.0.0.1,.internal", "user@example.com", "git@github.com:o/r.git", "10:30", "a=b c=d",
		"postgres://h:5432/db?sslmode=require", "Europe/Paris",
	} {
		assert.Empty(t, CredentialValue(v), v)
	}
}
