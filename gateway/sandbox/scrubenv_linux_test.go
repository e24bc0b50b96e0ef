package sandbox

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The sandbox drops what envname calls a credential or a provider's
// variable or holds a password in its value, and keeps ordinary names and the gateway's own LPPCTL_* settings.
func TestScrubEnvDropsCredentialsAndProviderVariables(t *testing.T) {
	env := []string{
		"PATH=/usr/bin", "PWD=/x", "NAME=Ada", "LPPCTL_READ_ONLY=1", "LPPCTL_PROTECTED=.git",
		"PGPASSWORD=p", "GITHUB_PAT=g", "MYTOKEN=t", "SECRETKEY=s", "OTEL_EXPORTER_OTLP_HEADERS=h",
		"OPENAI_API_KEY_2=k", "AWS_REGION=r", "HOME=/root", "TMPDIR=/tmp",
		"DATABASE_URL=postgres://u:pw@h/db", "HTTPS_PROXY=http://a:b@p:8080", "CONN=host=h password=pw",
		"SITE_URL=https://example.com/a",
	}
	require.Equal(t, []string{
		"PATH=/usr/bin", "PWD=/x", "NAME=Ada", "LPPCTL_READ_ONLY=1", "LPPCTL_PROTECTED=.git",
		"SITE_URL=https://example.com/a", "HOME=/box", "TMPDIR=/box",
	}, scrubEnv(env, "/box"))
}
