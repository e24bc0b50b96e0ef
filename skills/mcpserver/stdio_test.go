package mcpserver

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"
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
