package actions

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lppctl/lppctl/actions/llm"
)

func TestModelChoiceOrder(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(root, "s.yaml")
	if err := os.WriteFile(script, []byte("replies: [{role: planner, text: x}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"OPENAI_API_KEY": "k"}
	getenv := func(k string) string { return env[k] }

	// the environment's key when nothing else is said
	d := &Deps{Root: root, Getenv: getenv}
	c, err := d.Client()
	if err != nil || !strings.HasPrefix(c.Name(), "openai:") {
		t.Fatalf("env: %v %v", c, err)
	}
	// the config file beats provider keys
	if err := os.WriteFile(filepath.Join(root, "config", "lppctl.yaml"), []byte("llm: script:"+script+"\nother: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	d = &Deps{Root: root, Getenv: getenv, Out: &out}
	if c, err = d.Client(); err != nil || c.Name() != "script:"+script {
		t.Fatalf("config: %v %v", c, err)
	}
	if !strings.Contains(out.String(), "LLM replies are SCRIPTED") {
		t.Fatalf("not announced: %q", out.String())
	}
	// LPPCTL_LLM beats the config file, --llm beats everything
	env["LPPCTL_LLM"] = "anthropic:claude-x"
	env["ANTHROPIC_API_KEY"] = "k"
	d = &Deps{Root: root, Getenv: getenv}
	if c, err = d.Client(); err != nil || c.Name() != "anthropic:claude-x" {
		t.Fatalf("LPPCTL_LLM: %v %v", c, err)
	}
	d = &Deps{Root: root, Getenv: getenv, LLM: "ollama:qwen"}
	if c, err = d.Client(); err != nil || c.Name() != "ollama:qwen" {
		t.Fatalf("--llm: %v %v", c, err)
	}
	// nothing at all, no demo: the options are listed
	d = &Deps{Root: t.TempDir(), Getenv: func(string) string { return "" }}
	if _, err := d.Client(); !errors.Is(err, llm.ErrNoProvider) || !strings.Contains(err.Error(), "--llm openai") {
		t.Fatalf("none: %v", err)
	}
}

func TestRetryPolicyFromTheEnvironment(t *testing.T) {
	for _, tt := range []struct {
		env      map[string]string
		attempts int
		timeout  time.Duration
	}{
		{env: map[string]string{}, attempts: 0, timeout: 0},
		{env: map[string]string{"LPPCTL_LLM_TIMEOUT": "30s", "LPPCTL_LLM_RETRIES": "2"}, attempts: 2, timeout: 30 * time.Second},
		{env: map[string]string{"LPPCTL_LLM_TIMEOUT": "45"}, timeout: 45 * time.Second},
		{env: map[string]string{"LPPCTL_LLM_TIMEOUT": "soon"}, timeout: 0},
	} {
		d := &Deps{Getenv: func(k string) string { return tt.env[k] }}
		p := d.RetryPolicy()
		if p.Attempts != tt.attempts || p.Timeout != tt.timeout {
			t.Errorf("%v: attempts %d timeout %v", tt.env, p.Attempts, p.Timeout)
		}
		if p.OnRetry == nil {
			t.Errorf("%v: retries are not announced", tt.env)
		}
	}
	var out strings.Builder
	d := &Deps{Getenv: func(string) string { return "" }, Out: &out}
	d.RetryPolicy().OnRetry("openai:m at http://h/v1: timeout (no complete answer within 2s)", 2, 4, 1234*time.Millisecond)
	if want := "  llm: openai:m at http://h/v1: timeout (no complete answer within 2s); attempt 2 of 4 in 1.2s\n"; out.String() != want {
		t.Fatalf("announced %q, want %q", out.String(), want)
	}
}
