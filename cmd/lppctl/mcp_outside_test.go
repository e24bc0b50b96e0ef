package main

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lppctl/lppctl/skills"
)

// nodeClientDir holds client.mjs, which drives `lppctl mcp serve` with the
// official TypeScript MCP SDK (install it with `npm ci` there).
const nodeClientDir = "../../skills/mcpserver/testdata/node-client"

// skipMCPClient skips a test that needs the outside MCP client, unless
// LPPCTL_REQUIRE_MCP_CLIENT is set (CI sets it after installing the client):
// then a missing client is a failure, so the check cannot silently vanish.
func skipMCPClient(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("LPPCTL_REQUIRE_MCP_CLIENT") != "" {
		t.Fatalf("%s (LPPCTL_REQUIRE_MCP_CLIENT is set)", why)
	}
	t.Skip(why)
}

// outsideSummary is what client.mjs prints.
type outsideSummary struct {
	SDKVersion            string   `json:"sdkVersion"`
	ClientProtocolVersion string   `json:"clientProtocolVersion"`
	ProtocolVersion       string   `json:"protocolVersion"`
	Errors                []string `json:"errors"`
	ServerInfo            struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"serverInfo"`
	Instructions string         `json:"instructions"`
	Capabilities map[string]any `json:"capabilities"`
	Tools        map[string]struct {
		Description     string   `json:"description"`
		InputType       string   `json:"inputType"`
		Properties      []string `json:"properties"`
		Required        []string `json:"required"`
		HasOutputSchema bool     `json:"hasOutputSchema"`
	} `json:"tools"`
	Calls map[string]outsideCall `json:"calls"`
	// stdio only
	Exit *struct {
		Code   *int    `json:"code"`
		Signal *string `json:"signal"`
	} `json:"exit"`
	// HTTP only
	SessionID  string `json:"sessionId"`
	Terminated any    `json:"terminated"`
}

type outsideCall struct {
	Tool          string          `json:"tool"`
	IsError       bool            `json:"isError"`
	Text          string          `json:"text"`
	Structured    json.RawMessage `json:"structured"`
	Wire          string          `json:"wire"`
	ProtocolError *struct {
		Code    any    `json:"code"`
		Message string `json:"message"`
	} `json:"protocolError"`
}

type outsideSkill struct {
	Name        string   `json:"name"`
	Principle   string   `json:"principle"`
	WhenToApply string   `json:"when_to_apply"`
	UsageCount  int      `json:"usage_count"`
	Score       *float64 `json:"score"`
}

// TestMCPServeOutsideClient talks to `lppctl mcp serve` with the official
// TypeScript SDK, over stdio and over streamable HTTP.
func TestMCPServeOutsideClient(t *testing.T) {
	if testing.Short() {
		skipMCPClient(t, "builds the binary and runs node")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		skipMCPClient(t, "node is not installed")
	}
	if _, err := os.Stat(filepath.Join(nodeClientDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		skipMCPClient(t, "the MCP TypeScript SDK is not installed (run npm ci in skills/mcpserver/testdata/node-client)")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool")
	}
	script, err := filepath.Abs(filepath.Join(nodeClientDir, "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	bin := buildLppctl(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	runClient := func(t *testing.T, args ...string) outsideSummary {
		t.Helper()
		cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("node client.mjs %s: %v\nstderr:\n%s", strings.Join(args, " "), err, stderr.String())
		}
		if stderr.Len() > 0 {
			t.Logf("client stderr:\n%s", stderr.String())
		}
		var s outsideSummary
		if err := json.Unmarshal(out, &s); err != nil {
			t.Fatalf("client summary: %v\n%s", err, out)
		}
		t.Logf("@modelcontextprotocol/sdk %s, protocol %s", s.SDKVersion, s.ProtocolVersion)
		return s
	}

	t.Run("stdio", func(t *testing.T) {
		lib := filepath.Join(t.TempDir(), "skills.json")
		s := runClient(t, "stdio", bin, lib)
		checkOutsideSummary(t, s)
		if s.Exit == nil || s.Exit.Code == nil || *s.Exit.Code != 0 || s.Exit.Signal != nil {
			t.Errorf("server exit after stdin closed = %+v, want code 0 and no signal", s.Exit)
		}
		checkOutsideLibrary(t, lib)
	})

	t.Run("http", func(t *testing.T) {
		lib := filepath.Join(t.TempDir(), "skills.json")
		srv := exec.CommandContext(ctx, bin, "mcp", "serve", "--library", lib, "--http", "127.0.0.1:0")
		srv.Env = append(os.Environ(), "CI=true")
		var stderr syncBuffer
		srv.Stderr = &stderr
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		defer srv.Process.Kill()
		defer func() {
			if t.Failed() {
				t.Logf("server stderr:\n%s", stderr.String())
			}
		}()
		// The server reports its address on stderr once it listens.
		ready := regexp.MustCompile(`(?m)^lppctl: MCP server on (http://127\.0\.0\.1:\d+) \(library (.*)\)$`)
		var m []string
		for deadline := time.Now().Add(20 * time.Second); m == nil; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the server did not report its address")
			}
			m = ready.FindStringSubmatch(stderr.String())
		}
		if m[2] != lib {
			t.Errorf("server reports library %q, want %q", m[2], lib)
		}
		s := runClient(t, "http", m[1])
		checkOutsideSummary(t, s)
		if s.SessionID == "" || s.Terminated != true {
			t.Errorf("session %q, terminated %v; want a session the client could end", s.SessionID, s.Terminated)
		}
		// Interrupted, the server shuts down promptly and exits 0.
		if err := srv.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- srv.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("server after interrupt: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the server did not stop after an interrupt")
		}
		checkOutsideLibrary(t, lib)
	})
}

// checkOutsideSummary asserts what the outside client saw; the script makes
// the same calls over both transports.
func checkOutsideSummary(t *testing.T, s outsideSummary) {
	t.Helper()
	if !slices.Contains(mcp.SupportedProtocolVersions(), s.ProtocolVersion) {
		t.Errorf("negotiated protocol %q, not one the server supports (%v)", s.ProtocolVersion, mcp.SupportedProtocolVersions())
	} else if slices.Contains(mcp.SupportedProtocolVersions(), s.ClientProtocolVersion) && s.ProtocolVersion != s.ClientProtocolVersion {
		t.Errorf("negotiated protocol %q; the client asked for %q, which the server supports", s.ProtocolVersion, s.ClientProtocolVersion)
	}
	if s.ServerInfo.Name != "lppctl-skills" || s.ServerInfo.Version == "" {
		t.Errorf("serverInfo = %+v", s.ServerInfo)
	}
	if !strings.Contains(s.Instructions, "skills") {
		t.Errorf("instructions = %q", s.Instructions)
	}
	if _, ok := s.Capabilities["tools"]; !ok {
		t.Errorf("capabilities = %v, want tools", s.Capabilities)
	}
	if len(s.Errors) > 0 {
		t.Errorf("the client reported errors: %q", s.Errors)
	}

	// Five tools with object input schemas and the required fields.
	type schema struct{ properties, required []string }
	wantTools := map[string]schema{
		"add_skill":     {[]string{"iteration", "name", "principle", "when_to_apply"}, []string{"name", "principle", "when_to_apply"}},
		"update_skill":  {[]string{"name", "new_name", "principle", "when_to_apply"}, []string{"name"}},
		"remove_skill":  {[]string{"name"}, []string{"name"}},
		"search_skills": {[]string{"query", "top_k"}, []string{"query"}},
		"list_skills":   {[]string{}, []string{}},
	}
	if len(s.Tools) != len(wantTools) {
		t.Errorf("tools = %v, want the five of %v", slices.Sorted(maps.Keys(s.Tools)), slices.Sorted(maps.Keys(wantTools)))
	}
	for name, want := range wantTools {
		got, ok := s.Tools[name]
		switch {
		case !ok:
			t.Errorf("tool %s is not listed", name)
		case got.InputType != "object" || !slices.Equal(got.Properties, want.properties) || !slices.Equal(got.Required, want.required):
			t.Errorf("%s: input schema %s with properties %v, required %v; want object, %v, %v", name, got.InputType, got.Properties, got.Required, want.properties, want.required)
		case got.Description == "" || !got.HasOutputSchema:
			t.Errorf("%s: description %q, output schema %v", name, got.Description, got.HasOutputSchema)
		}
	}

	// Every call is answered with a result (never a JSON-RPC error), and
	// failures are results with isError and the error text.
	wantCalls := []struct {
		step, text string
		isError    bool
	}{
		{"add_retry", `added skill "retry_with_backoff"`, false},
		{"add_verify", `added skill "verify_output_paths"`, false},
		{"search", "", false},
		{"search_default_k", "", false},
		{"update", `updated skill "verify_outputs"`, false},
		{"list", "", false},
		{"remove", `removed skill "retry_with_backoff"`, false},
		{"remove_unknown", `cannot remove skill "retry_with_backoff": not found`, true},
		{"remove_empty_name", `cannot remove skill: skill name is empty: invalid`, true},
		{"add_empty_name", `cannot add skill: skill name is empty: invalid`, true},
		{"update_unknown", `cannot update skill "ghost": not found`, true},
		{"add_missing_field", `missing properties: ["when_to_apply"]`, true},
		{"search_bad_top_k", `top_k`, true},
		{"search_empty_query", `cannot search skills: query is empty: invalid`, true},
		{"search_negative_top_k", `cannot search skills: top_k must be at least 1, got -1: invalid`, true},
		{"list_final", "", false},
	}
	if len(s.Calls) != len(wantCalls) {
		t.Errorf("%d calls reported, want %d", len(s.Calls), len(wantCalls))
	}
	for _, w := range wantCalls {
		c, ok := s.Calls[w.step]
		switch {
		case !ok:
			t.Errorf("%s: not reported", w.step)
		case c.ProtocolError != nil || c.Wire != "result":
			t.Errorf("%s: protocol failure %+v (wire %s), want a tool result", w.step, c.ProtocolError, c.Wire)
		case c.IsError != w.isError || !strings.Contains(c.Text, w.text):
			t.Errorf("%s: isError %v, text %q; want %v, %q", w.step, c.IsError, c.Text, w.isError, w.text)
		case c.IsError && string(c.Structured) != "null":
			t.Errorf("%s: an error result with structured content %s", w.step, c.Structured)
		case !c.IsError && (len(c.Structured) == 0 || string(c.Structured) == "null"):
			t.Errorf("%s: no structured content", w.step)
		}
	}

	// search_skills and list_skills: structured {"skills": [...]}, best
	// first, and the same JSON as text for clients that read only text.
	skillsOf := func(step string) []outsideSkill {
		t.Helper()
		c := s.Calls[step]
		var structured, fromText struct{ Skills []outsideSkill }
		if err := json.Unmarshal(c.Structured, &structured); err != nil {
			t.Errorf("%s: structured content %s: %v", step, c.Structured, err)
		}
		if err := json.Unmarshal([]byte(c.Text), &fromText); err != nil {
			t.Errorf("%s: text %q is not JSON: %v", step, c.Text, err)
		} else if !reflect.DeepEqual(structured, fromText) {
			t.Errorf("%s: text %q differs from structured content %s", step, c.Text, c.Structured)
		}
		return structured.Skills
	}
	names := func(ss []outsideSkill) []string {
		var out []string
		for _, s := range ss {
			out = append(out, s.Name)
		}
		return out
	}
	if hits := skillsOf("search"); !slices.Equal(names(hits), []string{"verify_output_paths", "retry_with_backoff"}) ||
		hits[0].Score == nil || hits[1].Score == nil || *hits[0].Score <= *hits[1].Score || hits[0].UsageCount != 1 {
		t.Errorf("search %q: %+v", "output file exists", hits)
	}
	if hits := skillsOf("search_default_k"); !slices.Equal(names(hits), []string{"retry_with_backoff", "verify_output_paths"}) ||
		hits[0].Score == nil || *hits[0].Score <= 0 || hits[0].UsageCount != 2 {
		t.Errorf("search %q: %+v", "transient errors", hits)
	}
	if list := skillsOf("list"); !slices.Equal(names(list), []string{"retry_with_backoff", "verify_outputs"}) || list[0].Score != nil {
		t.Errorf("list: %+v", list)
	}
	if list := skillsOf("list_final"); !slices.Equal(names(list), []string{"verify_outputs"}) {
		t.Errorf("final list: %+v", list)
	}
	var upd struct{ Skill outsideSkill }
	json.Unmarshal(s.Calls["update"].Structured, &upd)
	if upd.Skill.Name != "verify_outputs" || upd.Skill.WhenToApply != "After every step that writes files." ||
		!strings.HasPrefix(upd.Skill.Principle, "Check that every output file exists") || upd.Skill.UsageCount != 2 {
		t.Errorf("update result: %s", s.Calls["update"].Structured)
	}
	if got := string(s.Calls["remove"].Structured); got != `{"removed":"retry_with_backoff"}` {
		t.Errorf("remove result: %s", got)
	}
}

// checkOutsideLibrary asserts what the client's calls left in the file.
func checkOutsideLibrary(t *testing.T, path string) {
	t.Helper()
	lib, err := skills.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	list, err := lib.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Name != "verify_outputs" || list[0].UsageCount != 2 ||
		list[0].WhenToApply != "After every step that writes files." {
		t.Errorf("library holds %+v", list)
	}
}

// syncBuffer is a bytes.Buffer safe for a process to write while the test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestMCPServeInspectorCLI drives `lppctl mcp serve` with the MCP Inspector
// in its --cli mode, which converts --tool-arg values by the schema's
// "type" (top_k=2 was sent as the string "2" when top_k's type was
// ["null","integer"]). It runs when LPPCTL_MCP_INSPECTOR names the
// mcp-inspector executable (npm install @modelcontextprotocol/inspector
// somewhere outside the repository) and skips otherwise.
func TestMCPServeInspectorCLI(t *testing.T) {
	inspector := os.Getenv("LPPCTL_MCP_INSPECTOR")
	if inspector == "" || testing.Short() {
		t.Skip("LPPCTL_MCP_INSPECTOR is not set")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool")
	}
	dir := t.TempDir()
	bin := buildLppctl(t)
	lib := filepath.Join(dir, "skills.json")
	call := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, inspector, append([]string{"--cli", bin, "mcp", "serve", "--library", lib, "--method", "tools/call"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("mcp-inspector %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		var res struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		if err := json.Unmarshal(out, &res); err != nil || len(res.Content) != 1 {
			t.Fatalf("mcp-inspector output: %v\n%s", err, out)
		}
		if res.IsError {
			return "error: " + res.Content[0].Text
		}
		return res.Content[0].Text
	}
	if got := call("--tool-name", "add_skill", "--tool-arg", "name=check_inputs", "--tool-arg", "principle=Validate inputs first.", "--tool-arg", "when_to_apply=Before processing."); got != `added skill "check_inputs"` {
		t.Errorf("add_skill: %s", got)
	}
	if got := call("--tool-name", "search_skills", "--tool-arg", "query=inputs", "--tool-arg", "top_k=2"); !strings.Contains(got, `"name":"check_inputs"`) {
		t.Errorf("search_skills top_k=2: %s", got)
	}
	if got := call("--tool-name", "search_skills", "--tool-arg", "query=inputs", "--tool-arg", "top_k=0"); got != "error: cannot search skills: top_k must be at least 1, got 0: invalid" {
		t.Errorf("search_skills top_k=0: %s", got)
	}
	if got := call("--tool-name", "remove_skill", "--tool-arg", "name=ghost"); got != `error: cannot remove skill "ghost": not found` {
		t.Errorf("remove_skill ghost: %s", got)
	}
}
