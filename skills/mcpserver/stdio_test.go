package mcpserver

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ServeStdio answers a line the SDK's transport would end the session on
// (go-sdk issue 1209) and keeps serving; a piped session gets every answer.
func TestServeStdioSurvivesMalformedLines(t *testing.T) {
	in := strings.Join([]string{
		`{bad json`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`"just a string"`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_skills","arguments":{}}}`,
	}, "\n") + "\n"
	var out, log bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := ServeStdio(ctx, New(newLibrary(t), "test"), strings.NewReader(in), &out, &log); err != nil {
		t.Fatalf("ServeStdio: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: invalid character 'b' looking for beginning of object key string"}}`,
		`"id":1,"result"`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a message is a JSON object, not a string"}}`,
		`"id":2,"result"`,
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d answers, want %d:\n%s", len(lines), len(want), out.String())
	}
	// The filter answers at once, the SDK in its own time: any order.
	for _, w := range want {
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, w) }) {
			t.Errorf("no answer contains %s:\n%s", w, out.String())
		}
	}
	if !strings.Contains(log.String(), "lppctl: answered a malformed message from the client: Parse error") {
		t.Errorf("log = %q", log.String())
	}
}

// serveLines serves a piped session of lines and returns the answers.
func serveLines(t *testing.T, lines ...string) []string {
	t.Helper()
	var out, log bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := ServeStdio(ctx, New(newLibrary(t), "test"), strings.NewReader(strings.Join(lines, "\n")+"\n"), &out, &log)
	require.NoError(t, err, "the session ended: %s", log.String())
	return strings.Split(strings.TrimSpace(out.String()), "\n")
}

// containsAnswer reports whether an answer holds every part.
func containsAnswer(answers []string, parts ...string) bool {
	return slices.ContainsFunc(answers, func(a string) bool {
		for _, p := range parts {
			if !strings.Contains(a, p) {
				return false
			}
		}
		return true
	})
}

// Whether a batch is allowed is the version the SDK agreed to in its answer
// to a successful initialize, not the one a failed initialize asked for,
// nor an initialize inside a batch left unread: the SDK ends the session for
// a batch in 2025-06-18 or later.
func TestABatchFollowsTheVersionOfTheSuccessfulInitialize(t *testing.T) {
	const (
		init2025 = `{"jsonrpc":"2.0","id":100,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
		init2024 = `{"jsonrpc":"2.0","id":100,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
		failed   = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"%s","capabilities":5,"clientInfo":{"name":"t","version":"1"}}}`
		inited   = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
		batch    = `[{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_skills","arguments":{}}},{"jsonrpc":"2.0","id":3,"method":"ping"}]`
		after    = `{"jsonrpc":"2.0","id":4,"method":"ping"}`
		refused  = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: JSON-RPC batches are not part of MCP 2025-06-18 and later; send the messages one by one"}}`
	)
	tests := []struct {
		name       string
		lines      []string
		batchTaken bool
	}{
		{"a failed 2024-11-05 initialize, then 2025-06-18", []string{fmt.Sprintf(failed, "2024-11-05"), init2025, inited, batch, after}, false},
		{"a failed 2025-06-18 initialize, then 2024-11-05", []string{fmt.Sprintf(failed, "2025-06-18"), init2024, inited, batch, after}, true},
		{"a 2025-06-18 initialize inside a batch", []string{"[" + init2025 + "]", inited, batch, after}, false},
		{"a 2024-11-05 initialize inside a batch", []string{"[" + init2024 + "]", inited, batch, after}, true},
		{"an unknown version, answered with the latest", []string{strings.Replace(init2024, "2024-11-05", "2099-01-01", 1), inited, batch, after}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			answers := serveLines(t, tt.lines...)
			assert.True(t, containsAnswer(answers, `"id":100,"result"`), "the initialize failed:\n%s", strings.Join(answers, "\n"))
			assert.True(t, containsAnswer(answers, `{"jsonrpc":"2.0","id":4,"result":{}}`), "the session ended:\n%s", strings.Join(answers, "\n"))
			if tt.batchTaken {
				assert.True(t, containsAnswer(answers, `"id":2,"result"`, `"id":3,"result"`), "the batch was not answered:\n%s", strings.Join(answers, "\n"))
			} else {
				assert.Contains(t, answers, refused)
			}
		})
	}
}

// A message pretty-printed over many lines is read in time linear in its
// length: it was parsed again at every line joined, and one of 100,000
// lines (1 MiB) kept the server busy for minutes, answering nothing else.
func TestAMessageOfManyLinesIsReadInLinearTime(t *testing.T) {
	var b strings.Builder
	b.WriteString("{\n\"jsonrpc\": \"2.0\",\n\"id\": 2,\n\"method\": \"ping\",\n\"params\": {\"_meta\": {\"junk\": [\n0")
	for i := 1; i < 50000; i++ {
		fmt.Fprintf(&b, ",\n%d", i)
	}
	b.WriteString("\n]}}\n}")
	answers := make(chan []string, 1)
	go func() {
		answers <- serveLines(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, b.String(), `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	}()
	select {
	case got := <-answers:
		assert.ElementsMatch(t, []string{
			`{"jsonrpc":"2.0","id":1,"result":{}}`,
			`{"jsonrpc":"2.0","id":2,"result":{}}`,
			`{"jsonrpc":"2.0","id":3,"result":{}}`,
		}, got)
	case <-time.After(15 * time.Second):
		t.Fatal("a message of 50,000 lines was not answered within 15 s")
	}
}
