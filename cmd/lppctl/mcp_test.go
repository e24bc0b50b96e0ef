package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lppctl/lppctl/skills"
)

// callTool calls a tool and returns its text and error flag.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return strings.Join(texts, "\n"), res.IsError
}

// exerciseServer runs the same tool calls against any connected server.
func exerciseServer(t *testing.T, cs *mcp.ClientSession, lib string) {
	t.Helper()
	if got, isErr := callTool(t, cs, "add_skill", map[string]any{"name": "retry_with_backoff", "principle": "Retry transient errors.", "when_to_apply": "HTTP 429."}); isErr || got != `added skill "retry_with_backoff"` {
		t.Errorf("add_skill = %q, %v", got, isErr)
	}
	if got, isErr := callTool(t, cs, "search_skills", map[string]any{"query": "transient errors", "top_k": 3}); isErr || !strings.Contains(got, `"name":"retry_with_backoff"`) {
		t.Errorf("search_skills = %q, %v", got, isErr)
	}
	if got, isErr := callTool(t, cs, "remove_skill", map[string]any{"name": "ghost"}); !isErr || got != `cannot remove skill "ghost": not found` {
		t.Errorf("remove_skill ghost = %q, %v", got, isErr)
	}
	l, err := skills.Open(lib)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := l.Get("retry_with_backoff"); err != nil || s.UsageCount != 1 {
		t.Errorf("library holds %+v, %v", s, err)
	}
}

func TestMCPServeStdioInProcess(t *testing.T) {
	lib := filepath.Join(t.TempDir(), "skills.json")
	clientR, serverW := io.Pipe()
	serverR, clientW := io.Pipe()
	done := make(chan int, 1)
	var stderr strings.Builder
	go func() {
		done <- run([]string{"lppctl", "mcp", "serve", "--library", lib}, serverR, serverW, &stderr)
		serverW.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).
		Connect(context.Background(), &mcp.IOTransport{Reader: clientR, Writer: clientW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	exerciseServer(t, cs, lib)
	cs.Close()
	clientW.Close()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d, stderr %q", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server did not exit after the client closed stdin")
	}
}

func TestMCPServeWithoutStdinExitsCleanly(t *testing.T) {
	t.Setenv("CI", "true")
	code, stdout, stderr := lppctl(t, "", "mcp", "serve", "--library", filepath.Join(t.TempDir(), "s.json"))
	if code != 0 || stdout != "" || stderr != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestMCPServeRefusesNonLoopbackHTTP(t *testing.T) {
	code, _, stderr := lppctl(t, "", "mcp", "serve", "--http", "0.0.0.0:8765")
	want := "lppctl: cannot listen on \"0.0.0.0:8765\": the MCP server only listens on a loopback address (127.0.0.1, ::1 or localhost); to listen there anyway, add --allow-non-loopback (the server has no authentication: anyone who can connect can change the library)\n"
	if code != 2 || stderr != want {
		t.Errorf("exit %d, stderr %q; want 2, %q", code, stderr, want)
	}
	// Allowed, the address reaches net.Listen (which refuses this port).
	code, _, stderr = lppctl(t, "", "mcp", "serve", "--library", filepath.Join(t.TempDir(), "s.json"), "--http", "0.0.0.0:99999", "--allow-non-loopback")
	if want := "lppctl: cannot listen on \"0.0.0.0:99999\": listen tcp: address 99999: invalid port\n"; code != 1 || stderr != want {
		t.Errorf("exit %d, stderr %q; want 1, %q", code, stderr, want)
	}
	code, _, stderr = lppctl(t, "", "mcp", "serve", "--allow-non-loopback")
	if want := "lppctl: --allow-non-loopback goes with --http ADDR\n"; code != 2 || !strings.HasPrefix(stderr, want) {
		t.Errorf("exit %d, stderr %q; want 2, %q", code, stderr, want)
	}
}

// TestMCPServeSubprocess builds lppctl and talks MCP to `lppctl mcp serve`
// over the stdio of a real process.
func TestMCPServeSubprocess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool")
	}
	dir := t.TempDir()
	bin := buildLppctl(t)
	lib := filepath.Join(dir, "skills.json")
	cmd := exec.Command(bin, "mcp", "serve", "--library", lib)
	cmd.Env = append(os.Environ(), "CI=true")
	cmd.Stderr = os.Stderr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	exerciseServer(t, cs, lib)
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
		t.Errorf("server process ended with %v", cmd.ProcessState)
	}
}

// TestMCPServeAnswersAPipedSession pipes a whole session and closes stdin at
// once, as `printf ... | lppctl mcp serve` does: every request still gets its
// answer before the server exits.
func TestMCPServeAnswersAPipedSession(t *testing.T) {
	lib := filepath.Join(t.TempDir(), "skills.json")
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	for i := 0; i < 5; i++ {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add_skill","arguments":{"name":"skill_%d","principle":"p","when_to_apply":"w"}}}`+"\n", 10+i, i)
	}
	in.WriteString(`{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"list_skills","arguments":{}}}` + "\n")
	for round := 0; round < 5; round++ {
		code, out, errOut := lppctl(t, in.String(), "mcp", "serve", "--library", lib)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		ids := map[float64]bool{}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var m struct {
				ID any `json:"id"`
			}
			if err := json.Unmarshal([]byte(line), &m); err == nil {
				if id, ok := m.ID.(float64); ok {
					ids[id] = true
				}
			}
		}
		if len(ids) != 7 {
			t.Fatalf("round %d: answers for %d of 7 requests:\n%s", round, len(ids), out)
		}
	}
}

// TestMCPServeAnswersBadBatches: the SDK ended the session (exit 1) for a
// batch repeating an id, and for any batch once 2025-06-18 or later was
// negotiated ("JSON-RPC batching is not supported ..."): both are answered
// with -32600 now, and 2025-03-26 keeps its batches.
func TestMCPServeAnswersBadBatches(t *testing.T) {
	initFor := func(v string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + v + `","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
	}
	batch := `[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]` + "\n"
	after := `{"jsonrpc":"2.0","id":9,"method":"ping"}` + "\n"
	for _, c := range []struct{ name, in, want string }{
		{"duplicate id", initFor("2025-03-26") + `[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]` + "\n" + after,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: batch element 2: id 2 is used twice"}}`},
		{"2025-06-18", initFor("2025-06-18") + batch + after,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: JSON-RPC batches are not part of MCP 2025-06-18 and later; send the messages one by one"}}`},
		{"unknown version", initFor("2099-01-01") + `[{"jsonrpc":"2.0","method":"notifications/initialized"}]` + "\n" + after,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: JSON-RPC batches are not part of MCP 2025-06-18 and later; send the messages one by one"}}`},
		{"no version", strings.Replace(initFor(""), `"protocolVersion":"",`, "", 1) + batch + after,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: JSON-RPC batches are not part of MCP 2025-06-18 and later; send the messages one by one"}}`},
		{"refused initialize first", `{"jsonrpc":"2.0","id":7,"method":"initialize","params":null}` + "\n" + initFor("2025-06-18") + batch + after,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: JSON-RPC batches are not part of MCP 2025-06-18 and later; send the messages one by one"}}`},
		{"2025-03-26", initFor("2025-03-26") + batch + after,
			`[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":3,"result":{}}]`},
	} {
		code, out, errOut := lppctl(t, c.in, "mcp", "serve", "--library", filepath.Join(t.TempDir(), "s.json"))
		if code != 0 || !strings.Contains(out, c.want+"\n") || !strings.Contains(out, `{"jsonrpc":"2.0","id":9,"result":{}}`) {
			t.Errorf("%s: exit %d, stdout:\n%s\nstderr:\n%s", c.name, code, out, errOut)
		}
	}
}

// TestMCPServeAnswersReusedIDs: a request reusing the id of a request in
// progress was dropped by the SDK without an answer, and the end of stdin
// then waited a minute for it; a batch doing so ended the session. Every
// request gets an answer now, and the server exits at once.
func TestMCPServeAnswersReusedIDs(t *testing.T) {
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	for i := 0; i < 3; i++ {
		in.WriteString(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_skills","arguments":{}}}` + "\n")
		in.WriteString(`[{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"list_skills","arguments":{}}}]` + "\n")
	}
	in.WriteString(`{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n")
	start := time.Now()
	code, out, errOut := lppctl(t, in.String(), "mcp", "serve", "--library", filepath.Join(t.TempDir(), "s.json"))
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %v", d)
	}
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	answers := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var batch []struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal([]byte(line), &batch) != nil {
			var one struct {
				ID json.RawMessage `json:"id"`
			}
			json.Unmarshal([]byte(line), &one)
			batch = append(batch, one)
		}
		for _, m := range batch {
			answers[string(m.ID)]++
		}
	}
	// A batch refused for its reused id is answered with id null.
	if answers["2"] != 3 || answers[`"b"`]+answers["null"] != 3 || answers["3"] != 1 {
		t.Errorf("answers by id %v:\n%s", answers, out)
	}
	if strings.Contains(out, "is the id of a request in progress") != strings.Contains(errOut, "is the id of a request in progress") {
		t.Errorf("stdout and stderr disagree:\n%s\n%s", out, errOut)
	}
}

// TestMCPServeStartsWithABrokenLibrary: a broken library file made the
// server exit 1 at start (an MCP client shows only "server disconnected").
// It starts, warns on stderr, reports the error (file, line, column) in
// every tool result, and serves the file once it is fixed.
func TestMCPServeStartsWithABrokenLibrary(t *testing.T) {
	lib := filepath.Join(t.TempDir(), "skills.json")
	os.WriteFile(lib, []byte(`{"a": {"principle": "p",}}`), 0o644)
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_skills","arguments":{}}}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add_skill","arguments":{"name":"b","principle":"p","when_to_apply":"w"}}}` + "\n"
	code, out, errOut := lppctl(t, in, "mcp", "serve", "--library", lib)
	loadErr := "cannot load skill library " + lib + ": line 1, column 25: invalid character '}' looking for beginning of object key string"
	if code != 0 || errOut != "lppctl: warning: "+loadErr+" (the tools report this until the file is fixed)\n" {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	for _, id := range []string{"2", "3"} {
		if want := `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":` + strconv.Quote(loadErr); !strings.Contains(out, want) {
			t.Errorf("no tool error for id %s:\n%s", id, out)
		}
	}
	if data, _ := os.ReadFile(lib); string(data) != `{"a": {"principle": "p",}}` {
		t.Errorf("the broken file was rewritten: %s", data)
	}
	os.WriteFile(lib, []byte(`{"a": {"principle": "p", "when_to_apply": "w"}}`), 0o644)
	code, out, errOut = lppctl(t, in, "mcp", "serve", "--library", lib)
	if code != 0 || errOut != "" || !strings.Contains(out, `added skill \"b\"`) {
		t.Errorf("fixed: exit %d, stderr %q\n%s", code, errOut, out)
	}
}

// TestMCPServeAnswersACutMessageBeforeTheLast: a message cut short before
// the last line, which has no newline, gets its parse error and the last
// line its answer (the last line was lost).
func TestMCPServeAnswersACutMessageBeforeTheLast(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,` + "\n" + `{"jsonrpc":"2.0","id":3,"method":"ping"}`
	code, out, errOut := lppctl(t, in, "mcp", "serve", "--library", filepath.Join(t.TempDir(), "s.json"))
	if code != 0 || !strings.Contains(out, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: a message is cut short (the next line is a message of its own)"}}`) ||
		!strings.Contains(out, `{"jsonrpc":"2.0","id":3,"result":{}}`) {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestMCPServeAnswersMalformedInput: the SDK's stdio transport ends the
// session at the first line it cannot decode (lppctl exited 1 with "cannot
// serve MCP: invalid character ..."). Every malformed message now gets its
// JSON-RPC error answer, the session goes on, and the server exits 0.
func TestMCPServeAnswersMalformedInput(t *testing.T) {
	lib := filepath.Join(t.TempDir(), "skills.json")
	initReq := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	in := strings.Join([]string{
		"\ufeff" + initReq, // as piped by a Windows shell
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{not json`,
		`[]`,
		`[1]`,
		`{}`,
		`"str"`,
		`{"jsonrpc":"1.0","id":7,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":8,"method":"ping"} {"x":1}`,
		`{"jsonrpc":"2.0","id":9,`, // cut short, followed by a whole message
		`{"jsonrpc":"2.0","id":10,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":11,`, // pretty-printed over two lines
		`"method":"ping"}`,
		fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(`{"jsonrpc":"2.0","id":12,"method":"ping"}`), `{"jsonrpc":"2.0","id":12,"method":"ping"}`),
		`[{"jsonrpc":"2.0","id":13,"method":"ping"},{"jsonrpc":"2.0","id":14,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"list_skills","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":16,"method":"pi`, // stdin closes mid-request
	}, "\n")
	code, out, errOut := lppctl(t, in, "mcp", "serve", "--library", lib)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("stdout line is not JSON: %q", line)
		}
		got[line] = true
	}
	for _, want := range []string{
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: invalid character 'n' looking for beginning of object key string"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: empty batch"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: batch element 1: a message is a JSON object, not a number"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: \"jsonrpc\": \"2.0\" is missing"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a message is a JSON object, not a string"}}`,
		`{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request: \"jsonrpc\" must be \"2.0\", not \"1.0\""}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: invalid character '{' after top-level value"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the input ended inside a message"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: a message is cut short (the next line is a message of its own)"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: id must be a string or an integer, not null"}}`,
		`{"jsonrpc":"2.0","id":1.5,"error":{"code":-32600,"message":"Invalid Request: id must be a string or an integer, not 1.5"}}`,
		`{"jsonrpc":"2.0","id":10,"result":{}}`,
		`{"jsonrpc":"2.0","id":11,"result":{}}`,
		`{"jsonrpc":"2.0","id":12,"result":{}}`,
		`[{"jsonrpc":"2.0","id":13,"result":{}},{"jsonrpc":"2.0","id":14,"result":{}}]`,
		`{"jsonrpc":"2.0","id":15,"result":{"content":[{"type":"text","text":"{\"skills\":[]}"}],"structuredContent":{"skills":[]}}}`,
	} {
		if !got[want] {
			t.Errorf("no answer %s in\n%s", want, out)
		}
	}
	// {not json; the two values on id 8's line; id 9 cut short; id 16 at EOF.
	if n := strings.Count(out, `"error":{"code":-32700`); n != 4 {
		t.Errorf("%d parse errors, want 4:\n%s", n, out)
	}
	if !strings.Contains(errOut, "lppctl: the client frames messages with Content-Length headers; MCP over stdio is one JSON message per line (reading the body, answering on lines)\n") {
		t.Errorf("stderr lacks the Content-Length warning:\n%s", errOut)
	}
}
