// Package testenv keeps tests from reading the configuration a person set
// for lppctl in their shell (a model provider's key, LPPCTL_MAX_BYTES,
// LPPCTL_LOG_LEVEL, ...): go test ./... gives the same result with or
// without it, and never calls a real model with the person's key.
package testenv

import (
	"os"
	"strings"
)

// Config are the environment variables lppctl reads as its configuration
// (README, "Configuration"). The variables that steer the tests themselves
// (LPPCTL_FULL_TESTS, LPPCTL_REQUIRE_*, docs/testing.md) are not among them.
var Config = []string{
	"OPENAI_API_KEY", "OPENAI_API_BASE", "OPENAI_BASE_URL", "OPENAI_MODEL",
	"ANTHROPIC_API_KEY", "ANTHROPIC_MODEL", "ANTHROPIC_BASE_URL",
	"OLLAMA_HOST", "OLLAMA_MODEL",
	"LPPCTL_LLM", "LPPCTL_RUN_DIR", "LPPCTL_SKILLS", "LPPCTL_MAX_BYTES",
	"LPPCTL_LLM_RETRIES", "LPPCTL_LLM_BACKOFF", "LPPCTL_LLM_TIMEOUT",
	"LPPCTL_NOW", "LPPCTL_EMBEDDINGS", "LPPCTL_TEMPORAL", "LPPCTL_BLOBS",
	"LPPCTL_TRACE_CONTENT", "LPPCTL_LOG_FORMAT", "LPPCTL_LOG_LEVEL",
	"EVAL_THRESHOLD", "MAX_ITERATIONS", "TRANSCRIPT_API_URL", "TRANSCRIPT_API_TOKEN",
}

// Scrub unsets Config and every OTEL_* variable (a collector to trace to)
// in this process, which the processes it starts inherit. A test that needs
// one sets it (t.Setenv). Call it from TestMain, before the tests run.
func Scrub() {
	for _, name := range Config {
		os.Unsetenv(name)
	}
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "OTEL_") {
			os.Unsetenv(name)
		}
	}
}
