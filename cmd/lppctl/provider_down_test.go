package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const providerDownSpec = `lpp: 1
name: ask
context:
  text: {type: string, default: ""}
  error: {type: string, default: ""}
initial: ask
states:
  ask:
    do: llm.generate
    with: {prompt: ask.md, output: text}
    next: done
    on_error: {to: broken, set: {error: last_error}}
  done: {final: true}
  broken: {final: true}
`

// A provider that stays down (5xx through every retry) stops the run in
// place with exit 1, whatever the state's on_error says (it is not the
// model's answer), `runs show` says why, and resume makes the call again
// once the provider is back.
func TestAProviderThatStaysDownStopsTheRunInPlaceNotThroughOnError(t *testing.T) {
	var down atomic.Bool
	down.Store(true)
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if down.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"error":{"message":"overloaded"}}`)
			return
		}
		fmt.Fprint(w, `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hello"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`)
	}))
	defer srv.Close()
	root := newProject(t, "hello_skill")
	require.NoError(t, os.WriteFile(filepath.Join(root, "ask.yaml"), []byte(providerDownSpec), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "ask.md"), []byte("Say hello.\n"), 0o644))
	for k, v := range map[string]string{"OPENAI_API_BASE": srv.URL + "/v1", "OPENAI_API_KEY": "x", "LPPCTL_LLM": "", "LPPCTL_LLM_RETRIES": "2", "LPPCTL_LLM_BACKOFF": "1ms"} {
		t.Setenv(k, v)
	}
	dir := filepath.Join(root, "runs")
	code, out, errOut := lppctlCLI(t, "run", "-q", "--root", root, "--spec", filepath.Join(root, "ask.yaml"), "--llm", "openai:m", "--run-dir", dir)
	require.Equal(t, exitFailed, code, "run:\n%s%s", out, errOut)
	id := onlyRun(t, dir)
	want := `action failed: llm.generate in state "ask": cannot get the model's reply in state "ask": cannot call openai:m at ` + srv.URL + `/v1: gave up after 2 attempts, the last one failed with HTTP 503 (server error): the server said: overloaded`
	assert.Contains(t, errOut, want)
	assert.Contains(t, errOut, "run "+id+" stopped in ask; after fixing the cause, retry the state with: lppctl resume "+id)
	assert.NotContains(t, out+errOut, "broken")
	assert.Equal(t, int32(2), requests.Load())

	code, out, errOut = lppctlCLI(t, "runs", "show", "--run-dir", dir, id)
	require.Equal(t, 0, code, "runs show:\n%s%s", out, errOut)
	assert.Contains(t, out, "status:   failed\n")
	assert.Contains(t, out, "state:    ask\n")
	assert.Contains(t, out, "error:    "+want+"\n")

	down.Store(false)
	code, out, errOut = lppctlCLI(t, "resume", "--run-dir", dir, id)
	require.Equal(t, 0, code, "resume:\n%s%s", out, errOut)
	assert.Contains(t, out, "completed in done")
	assert.Contains(t, out, "[1] ask → done  next[0]\n")
}

// A provider that refuses the key (401) or does not know the model (404)
// stops the run in place at once, like one that stays down: the state's
// on_error route is not spent on it (the contractor spent its iterations and
// ended in error as "did not pass"), and resume makes the call again once
// the key or the model is fixed.
func TestAProviderThatRefusesTheKeyStopsTheRunInPlaceNotThroughOnError(t *testing.T) {
	tests := []struct {
		name   string
		status int
		said   string
		want   string
	}{
		{"a refused key", http.StatusUnauthorized, "Incorrect API key provided", "HTTP 401 (check the API key): the server said: Incorrect API key provided"},
		{"an unknown model", http.StatusNotFound, "The model `m` does not exist", "HTTP 404 (check the model name and the base URL): the server said: The model `m` does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var refuse atomic.Bool
			refuse.Store(true)
			var requests atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				if refuse.Load() {
					w.WriteHeader(tt.status)
					fmt.Fprintf(w, `{"error":{"message":%q}}`, tt.said)
					return
				}
				fmt.Fprint(w, `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hello"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`)
			}))
			defer srv.Close()
			root := newProject(t, "hello_skill")
			require.NoError(t, os.WriteFile(filepath.Join(root, "ask.yaml"), []byte(providerDownSpec), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(root, "ask.md"), []byte("Say hello.\n"), 0o644))
			for k, v := range map[string]string{"OPENAI_API_BASE": srv.URL + "/v1", "OPENAI_API_KEY": "x", "LPPCTL_LLM": "", "LPPCTL_LLM_RETRIES": "2", "LPPCTL_LLM_BACKOFF": "1ms"} {
				t.Setenv(k, v)
			}
			dir := filepath.Join(root, "runs")
			code, out, errOut := lppctlCLI(t, "run", "-q", "--root", root, "--spec", filepath.Join(root, "ask.yaml"), "--llm", "openai:m", "--run-dir", dir)
			require.Equal(t, exitFailed, code, "run:\n%s%s", out, errOut)
			id := onlyRun(t, dir)
			assert.Contains(t, errOut, `action failed: llm.generate in state "ask": cannot get the model's reply in state "ask": cannot call openai:m at `+srv.URL+`/v1: `+tt.want)
			assert.Contains(t, errOut, "run "+id+" stopped in ask; after fixing the cause, retry the state with: lppctl resume "+id)
			assert.NotContains(t, out+errOut, "broken")

			refuse.Store(false)
			code, out, errOut = lppctlCLI(t, "resume", "--run-dir", dir, id)
			require.Equal(t, 0, code, "resume:\n%s%s", out, errOut)
			assert.Contains(t, out, "[1] ask → done  next[0]\n")
		})
	}
}
