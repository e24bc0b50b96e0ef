package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lppctl/lppctl/skills"
)

func newLibrary(t *testing.T) *skills.Library {
	t.Helper()
	lib, err := skills.Open(filepath.Join(t.TempDir(), "skills.json"))
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

// connect runs New(lib) in-process and returns a client session to it.
func connect(t *testing.T, lib *skills.Library) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := New(lib, "test").Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and returns its text content and whether it is an error.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool, *mcp.CallToolResult) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", tool, err)
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return strings.Join(texts, "\n"), res.IsError, res
}

func TestToolsAreListedWithSchemas(t *testing.T) {
	cs := connect(t, newLibrary(t))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	required := map[string][]string{}
	for _, tool := range res.Tools {
		data, _ := json.Marshal(tool.InputSchema)
		var schema struct {
			Type     string   `json:"type"`
			Required []string `json:"required"`
		}
		json.Unmarshal(data, &schema)
		if schema.Type != "object" {
			t.Errorf("%s: schema type %q", tool.Name, schema.Type)
		}
		slices.Sort(schema.Required)
		required[tool.Name] = schema.Required
	}
	want := map[string][]string{
		"add_skill":     {"name", "principle", "when_to_apply"},
		"update_skill":  {"name"},
		"remove_skill":  {"name"},
		"search_skills": {"query"},
		"list_skills":   nil,
	}
	for name, req := range want {
		got, ok := required[name]
		if !ok || !slices.Equal(got, req) {
			t.Errorf("%s: required %v (listed %v), want %v", name, got, ok, req)
		}
	}
	if len(required) != len(want) {
		t.Errorf("tools = %v", required)
	}
	// Clients convert arguments by a property's "type" (the MCP Inspector's
	// --tool-arg top_k=2 sent "2" for ["null","integer"]).
	props := map[string]string{
		"search_skills": "top_k",
		"add_skill":     "iteration",
	}
	wantProp := map[string]string{
		"search_skills": `{"default":5,"description":"how many skills to return, at least 1 (default 5)","type":"integer"}`,
		"add_skill":     `{"description":"the iteration (agent run) the skill was learned in, recorded as its created_iteration and last_used_iteration; at least 1 (default: the library's current iteration)","type":"integer"}`,
	}
	for _, tool := range res.Tools {
		prop, ok := props[tool.Name]
		if !ok {
			continue
		}
		data, _ := json.Marshal(tool.InputSchema)
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		json.Unmarshal(data, &schema)
		if got, want := string(schema.Properties[prop]), wantProp[tool.Name]; got != want {
			t.Errorf("%s: %s schema = %s, want %s", tool.Name, prop, got, want)
		}
	}
}

// add_skill records the iteration it is given as the skill's created and
// last used iteration (it always recorded the library's current one).
func TestAddSkillTakesAnIteration(t *testing.T) {
	lib := newLibrary(t)
	cs := connect(t, lib)
	const bad = `cannot add skill: iteration must be a whole number from 1 to 2147483647, got `
	tests := []struct {
		name      string
		iteration any // nil: omitted
		want      string
		isError   bool
		stored    int
	}{
		{"given", 7, `added skill "s"`, false, 7},
		{"omitted: the current iteration", nil, `added skill "s"`, false, 7}, // the latest in the library
		{"one", 1, `added skill "s"`, false, 1},
		{"largest", 2147483647, `added skill "s"`, false, 2147483647},
		{"zero", 0, bad + `0: invalid`, true, 0},
		{"negative", -3, bad + `-3: invalid`, true, 0},
		{"too large", 1e30, bad + `1000000000000000000000000000000: invalid`, true, 0},
		{"not whole", 2.5, `validating "arguments": validating root: validating /properties/iteration: type: 2.5 has type "number", want "integer"`, true, 0},
		{"a string", "3", `validating /properties/iteration: type: 3 has type "string", want "integer"`, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := map[string]any{"name": "s", "principle": "p", "when_to_apply": "w"}
			if tt.iteration != nil {
				args["iteration"] = tt.iteration
			}
			if tt.name == "omitted: the current iteration" {
				call(t, cs, "add_skill", map[string]any{"name": "other", "principle": "p", "when_to_apply": "w", "iteration": 7})
			}
			got, isErr, _ := call(t, cs, "add_skill", args)
			if isErr != tt.isError || !strings.Contains(got, tt.want) {
				t.Fatalf("got %q (error %v), want %q (error %v)", got, isErr, tt.want, tt.isError)
			}
			if tt.isError {
				return
			}
			s, err := lib.Get("s")
			if err != nil || s.CreatedIteration != tt.stored || s.LastUsedIteration != tt.stored {
				t.Errorf("library holds %+v, %v; want iteration %d", s, err, tt.stored)
			}
		})
	}
}

func TestToolsRoundTrip(t *testing.T) {
	lib := newLibrary(t)
	cs := connect(t, lib)
	steps := []struct {
		name    string
		tool    string
		args    map[string]any
		want    string // substring of the text content
		isError bool
	}{
		{"add", "add_skill", map[string]any{"name": "retry_with_backoff", "principle": "Retry transient errors with backoff.", "when_to_apply": "HTTP 429 or 5xx."}, `added skill "retry_with_backoff"`, false},
		{"add another", "add_skill", map[string]any{"name": "verify_output_paths", "principle": "Check every output file exists.", "when_to_apply": "Before reporting success."}, `added skill "verify_output_paths"`, false},
		{"list", "list_skills", map[string]any{}, `"name":"retry_with_backoff"`, false},
		{"search", "search_skills", map[string]any{"query": "output file", "top_k": 1}, `"name":"verify_output_paths"`, false},
		{"update", "update_skill", map[string]any{"name": "verify_output_paths", "when_to_apply": "At the end of every step."}, `updated skill "verify_output_paths"`, false},
		{"update unknown", "update_skill", map[string]any{"name": "ghost", "principle": "x"}, `cannot update skill "ghost": not found`, true},
		{"update empty name", "update_skill", map[string]any{"name": "", "principle": "x"}, `cannot update skill: skill name is empty: invalid`, true},
		{"update nothing", "update_skill", map[string]any{"name": "verify_output_paths"}, `cannot update skill "verify_output_paths": no field to change: invalid`, true},
		{"add invalid name", "add_skill", map[string]any{"name": "bad\u0007name", "principle": "p", "when_to_apply": "w"}, `cannot add skill: skill name "bad\aname" contains the control character U+0007: invalid`, true},
		{"add missing field", "add_skill", map[string]any{"name": "x", "principle": "p"}, `when_to_apply`, true},
		{"search top_k 0", "search_skills", map[string]any{"query": "output", "top_k": 0}, `cannot search skills: top_k must be at least 1, got 0: invalid`, true},
		{"search top_k -1", "search_skills", map[string]any{"query": "output", "top_k": -1}, `cannot search skills: top_k must be at least 1, got -1: invalid`, true},
		{"search top_k 2.5", "search_skills", map[string]any{"query": "output", "top_k": 2.5}, `validating "arguments": validating root: validating /properties/top_k: type: 2.5 has type "number", want "integer"`, true},
		{"search top_k 1e30", "search_skills", map[string]any{"query": "output", "top_k": 1e30}, `"name":"verify_output_paths"`, false},
		{"search top_k omitted", "search_skills", map[string]any{"query": "output"}, `"name":"verify_output_paths"`, false},
		{"search empty query", "search_skills", map[string]any{"query": " "}, `cannot search skills: query is empty: invalid`, true},
		{"remove", "remove_skill", map[string]any{"name": "retry_with_backoff"}, `removed skill "retry_with_backoff"`, false},
		{"remove blank name", "remove_skill", map[string]any{"name": " "}, `cannot remove skill: skill name is empty: invalid`, true},
		{"remove unknown", "remove_skill", map[string]any{"name": "retry_with_backoff"}, `cannot remove skill "retry_with_backoff": not found`, true},
	}
	for _, st := range steps {
		got, isErr, _ := call(t, cs, st.tool, st.args)
		if isErr != st.isError || !strings.Contains(got, st.want) {
			t.Errorf("%s: got %q (error %v), want %q (error %v)", st.name, got, isErr, st.want, st.isError)
		}
	}
	s, err := lib.Get("verify_output_paths")
	if err != nil || s.WhenToApply != "At the end of every step." || s.UsageCount != 3 {
		t.Errorf("library holds %+v, %v", s, err)
	}
	if n, _ := lib.Count(); n != 1 {
		t.Errorf("Count = %d, want 1", n)
	}
}

func TestSearchReturnsStructuredHits(t *testing.T) {
	lib := newLibrary(t)
	cs := connect(t, lib)
	call(t, cs, "add_skill", map[string]any{"name": "a_skill", "principle": "alpha beta", "when_to_apply": "w"})
	call(t, cs, "add_skill", map[string]any{"name": "b_skill", "principle": "gamma", "when_to_apply": "w"})
	_, isErr, res := call(t, cs, "search_skills", map[string]any{"query": "gamma"})
	if isErr {
		t.Fatal("search failed")
	}
	data, _ := json.Marshal(res.StructuredContent)
	var out SkillsOutput
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	// a_skill shares no word with "gamma", so it is left out.
	if len(out.Skills) != 1 || out.Skills[0].Name != "b_skill" || out.Skills[0].Score == nil || *out.Skills[0].Score <= 0 {
		t.Errorf("structured content = %s", data)
	}
	// An empty library lists an empty array, not null.
	_, _, res = call(t, connect(t, newLibrary(t)), "list_skills", nil)
	if data, _ := json.Marshal(res.StructuredContent); string(data) != `{"skills":[]}` {
		t.Errorf("empty list = %s", data)
	}
}

func TestCheckLoopback(t *testing.T) {
	tests := []struct{ addr, want string }{
		{"127.0.0.1:8080", ""},
		{"[::1]:0", ""},
		{"localhost:9000", ""},
		{"127.0.0.2:1", ""},
		{"0.0.0.0:8080", `cannot listen on "0.0.0.0:8080": the MCP server only listens on a loopback address (127.0.0.1, ::1 or localhost)`},
		{":8080", `cannot listen on ":8080": the MCP server only listens on a loopback address (127.0.0.1, ::1 or localhost)`},
		{"192.168.1.10:80", `cannot listen on "192.168.1.10:80": the MCP server only listens on a loopback address (127.0.0.1, ::1 or localhost)`},
		{"example.com:80", `cannot listen on "example.com:80": the MCP server only listens on a loopback address (127.0.0.1, ::1 or localhost)`},
		{"8080", `cannot listen on "8080": address 8080: missing port in address`},
		{"127.0.0.1:99999", `cannot listen on "127.0.0.1:99999": the port "99999" is not a number from 0 to 65535 (write HOST:PORT, e.g. 127.0.0.1:8765; port 0: any free one)`},
		{"127.0.0.1:http", `cannot listen on "127.0.0.1:http": the port "http" is not a number from 0 to 65535 (write HOST:PORT, e.g. 127.0.0.1:8765; port 0: any free one)`},
	}
	for _, tt := range tests {
		err := CheckLoopback(tt.addr)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("CheckLoopback(%q) = %q, want %q", tt.addr, got, tt.want)
		}
		if strings.Contains(tt.want, "loopback") && !errors.Is(err, ErrNotLoopback) {
			t.Errorf("CheckLoopback(%q) does not wrap ErrNotLoopback", tt.addr)
		}
	}
}

func TestServeHTTP(t *testing.T) {
	lib := newLibrary(t)
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- ServeHTTP(ctx, New(lib, "test"), "127.0.0.1:0", func(a net.Addr) { addrc <- a }) }()
	var addr net.Addr
	select {
	case addr = <-addrc:
	case err := <-done:
		t.Fatal(err)
	case <-time.After(10 * time.Second):
		t.Fatal("server did not start")
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-client"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + addr.String()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, isErr, _ := call(t, cs, "add_skill", map[string]any{"name": "over_http", "principle": "p", "when_to_apply": "w"})
	if isErr || got != `added skill "over_http"` {
		t.Errorf("add over HTTP: %q, %v", got, isErr)
	}
	cs.Close()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("ServeHTTP returned %v", err)
	}
	if _, err := lib.Get("over_http"); err != nil {
		t.Error(err)
	}
	if err := ServeHTTP(context.Background(), nil, "0.0.0.0:0", nil); !errors.Is(err, ErrNotLoopback) {
		t.Errorf("non-loopback: %v", err)
	}
}

// TestServeHTTPAnyAddress: a non-loopback address can be allowed
// (lppctl mcp serve --allow-non-loopback), and a cross-origin browser
// request is refused.
func TestServeHTTPAnyAddress(t *testing.T) {
	lib := newLibrary(t)
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- ServeHTTPAnyAddress(ctx, New(lib, "test"), "0.0.0.0:0", func(a net.Addr) { addrc <- a })
	}()
	var addr net.Addr
	select {
	case addr = <-addrc:
	case err := <-done:
		t.Fatal(err)
	case <-time.After(10 * time.Second):
		t.Fatal("server did not start")
	}
	endpoint := fmt.Sprintf("http://127.0.0.1:%d", addr.(*net.TCPAddr).Port)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-client"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, isErr, _ := call(t, cs, "list_skills", nil); isErr || got != `{"skills":[]}` {
		t.Errorf("list over HTTP: %q, %v", got, isErr)
	}
	cs.Close()
	req, _ := http.NewRequest("POST", endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Origin", "http://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-origin request: %s", resp.Status)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("ServeHTTPAnyAddress returned %v", err)
	}
}

// TestServeHTTPSessions: a request without Mcp-Session-Id that is not an
// initialize is a 400 (the SDK answered 200 with a JSON-RPC error of code
// 0), and a client's open GET stream does not hold up the shutdown.
func TestServeHTTPSessions(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- ServeHTTP(ctx, New(newLibrary(t), "test"), "127.0.0.1:0", func(a net.Addr) { addrc <- a })
	}()
	endpoint := "http://" + (<-addrc).String()
	post := func(session, body string) (*http.Response, string) {
		req, _ := http.NewRequest("POST", endpoint, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp, string(data)
	}
	resp, body := post("", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if want := "Bad Request: the Mcp-Session-Id header is missing; start a session with an initialize request and send the Mcp-Session-Id it returns with every later request\n"; resp.StatusCode != 400 || body != want {
		t.Errorf("no session: %s %q", resp.Status, body)
	}
	resp, body = post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || session == "" || !strings.Contains(body, `"serverInfo":{"name":"lppctl-skills"`) {
		t.Fatalf("initialize: %s %q session %q", resp.Status, body, session)
	}
	if resp, _ := post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Errorf("initialized: %s", resp.Status)
	}
	if resp, body := post(session, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_skills","arguments":{}}}`); resp.StatusCode != 200 || !strings.Contains(body, `"structuredContent":{"skills":[]}`) {
		t.Errorf("list_skills: %s %q", resp.Status, body)
	}
	req, _ := http.NewRequest("GET", endpoint, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	stream, err := http.DefaultClient.Do(req)
	if err != nil || stream.StatusCode != 200 {
		t.Fatalf("GET: %v %v", stream, err)
	}
	defer stream.Body.Close()
	start := time.Now()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("ServeHTTP returned %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("shutdown with an open GET stream took %v", d)
	}
}
