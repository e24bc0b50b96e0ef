// Package envname says what an environment variable's name suggests it
// holds: a credential, or a setting of lppctl's own or of a model or cloud
// provider. The gateway (env.inherit, env.inherit_for), the OS sandbox (the
// variables it drops) and env.read share these answers.
//
// A name looks like a credential when, compared case-insensitively, it
// contains KEY, TOKEN, SECRET, PASSWORD, PASSWD, PASSPHRASE, CREDENTIAL or
// COOKIE anywhere (PGPASSWORD, MYTOKEN, SECRETKEY, OPENAI_API_KEY_2), or has
// PAT, PASS, AUTH, AUTHORIZATION, HEADER, HEADERS, DSN or WEBHOOK as one of
// its "_"-separated words (GITHUB_PAT, SSH_AUTH_SOCK,
// OTEL_EXPORTER_OTLP_HEADERS, SENTRY_DSN, SLACK_WEBHOOK_URL). Words keep
// PATH, PWD, GIT_AUTHOR_NAME and the like out; a word that merely contains
// one of them ("PATCH", "PASSAGE") does not count either.
package envname

import "strings"

// credentialParts are matched anywhere in the upper-cased name.
var credentialParts = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "COOKIE"}

// credentialWords are matched as whole "_"-separated words.
var credentialWords = map[string]bool{
	"PAT": true, "PASS": true, "AUTH": true, "AUTHORIZATION": true,
	"HEADER": true, "HEADERS": true, "DSN": true, "WEBHOOK": true,
}

// Credential reports whether a variable named name looks like it holds a
// credential (a key, token, password, or headers and URLs that carry one).
func Credential(name string) bool {
	u := strings.ToUpper(name)
	for _, p := range credentialParts {
		if strings.Contains(u, p) {
			return true
		}
	}
	for w := range strings.SplitSeq(u, "_") {
		if credentialWords[w] {
			return true
		}
	}
	return false
}

// ownPrefixes are lppctl's own variables: its model providers' and its own.
var ownPrefixes = []string{"OPENAI_", "ANTHROPIC_", "OLLAMA_", "LPPCTL_"}

// providerPrefixes are model and cloud providers' variables (settings that
// pick an endpoint or an account, besides their keys).
var providerPrefixes = []string{"OPENAI_", "ANTHROPIC_", "OLLAMA_", "AZURE_", "AWS_", "GOOGLE_", "GEMINI_", "MISTRAL_", "COHERE_", "GITHUB_", "GH_", "HF_", "HUGGINGFACE_"}

// Own reports whether name is one of lppctl's own variables (OPENAI_*,
// ANTHROPIC_*, OLLAMA_*, LPPCTL_*, in any case): no script receives them.
func Own(name string) bool { return hasPrefix(name, ownPrefixes) }

// Provider reports whether name is a model or cloud provider's variable
// (OPENAI_*, ANTHROPIC_*, OLLAMA_*, AZURE_*, AWS_*, GOOGLE_*, GEMINI_*,
// MISTRAL_*, COHERE_*, GITHUB_*, GH_*, HF_*, HUGGINGFACE_*, in any case).
func Provider(name string) bool { return hasPrefix(name, providerPrefixes) }

func hasPrefix(name string, prefixes []string) bool {
	u := strings.ToUpper(name)
	for _, p := range prefixes {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	return false
}
