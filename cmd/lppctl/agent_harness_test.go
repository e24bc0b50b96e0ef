package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/lppctl/lppctl/actions/llm"
	"github.com/lppctl/lppctl/internal/testenv"
)

// The agent's end-to-end tests run `lppctl run` in-process against a local
// OpenAI-compatible server (httptest), so the real langchaingo OpenAI client,
// the real gateway and real Python scripts run. The server answers from a
// scripted-model YAML: it recognises the agent by its system prompt and the
// step by "Step N of M" in the first user message.

// repoRoot is the repository, two levels up from this package.
func repoRoot(t testing.TB) string {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// newProject copies what a run needs into a fresh project root, the skill
// as it was before any run learned into it (see pristineSkillsMD), so that no
// test depends on what a demo run left in the checkout.
func newProject(t testing.TB, skill string) string {
	t.Helper()
	return newProjectFrom(t, repoRoot(t), skill)
}

// newProjectFrom is newProject copying from the checkout at src.
func newProjectFrom(t testing.TB, src, skill string) string {
	t.Helper()
	testenv.Python(t) // the agent runs the skill's and the project's Python scripts
	dst := t.TempDir()
	for _, p := range []string{"config/tools_config.yaml", "scripts", "claude.md", "specs/skills_agent.yaml", "specs/prompts", "skills/" + skill} {
		copyTree(t, filepath.Join(src, p), filepath.Join(dst, p))
	}
	md := filepath.Join(dst, "skills", skill, "skills.md")
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(md, []byte(pristineSkillsMD(string(b))), 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			if d.Name() == "__pycache__" {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		info, _ := d.Info()
		return os.WriteFile(target, b, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

type chatMsg struct {
	Role       string
	Content    string
	ToolCalls  int
	ToolCallID string
}

type fakeRequest struct {
	Agent       string
	Step        int
	Turn        int
	Messages    []chatMsg
	Tools       int
	SubCommands string // the safe_cli_executor sub-commands offered (its tool_name enum), comma-separated
}

// chars is the size of the request's message texts.
func (r fakeRequest) chars() int {
	n := 0
	for _, m := range r.Messages {
		n += len(m.Content)
	}
	return n
}

func (r fakeRequest) last() chatMsg { return r.Messages[len(r.Messages)-1] }

func (r fakeRequest) text() string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Content)
		b.WriteString("\n")
	}
	return b.String()
}

type fakeLLM struct {
	t      testing.TB
	script *llm.Script
	srv    *httptest.Server
	// fail, when set, may answer a request (numbered from 1) with an HTTP error status.
	fail func(n int) int
	// echoAuth makes the error messages of fail quote the Authorization header.
	echoAuth bool
	// shape, when set, may change a completion before it is sent.
	shape func(completion map[string]any)
	// key is the OPENAI_API_KEY runAgent sets ("" by default).
	key string
	// fromEnv makes runAgent leave out --llm: the model comes from the
	// environment (OPENAI_API_BASE, OPENAI_MODEL=test-model).
	fromEnv bool

	mu    sync.Mutex
	n     int
	turns map[string]int
	reqs  []fakeRequest
}

var stepRE = regexp.MustCompile(`Step (\d+) of \d+`)

// subCommandsOffered reads the tool_name enum of safe_cli_executor from a
// request's tools.
func subCommandsOffered(tools []any) string {
	b, _ := json.Marshal(tools)
	var defs []struct {
		Function struct {
			Name       string `json:"name"`
			Parameters struct {
				Properties struct {
					ToolName struct {
						Enum []string `json:"enum"`
					} `json:"tool_name"`
				} `json:"properties"`
			} `json:"parameters"`
		} `json:"function"`
	}
	_ = json.Unmarshal(b, &defs)
	for _, d := range defs {
		if d.Function.Name == "safe_cli_executor" {
			return strings.Join(d.Function.Parameters.Properties.ToolName.Enum, ",")
		}
	}
	return ""
}

func newFakeLLM(t testing.TB, scriptYAML string) *fakeLLM {
	t.Helper()
	s, err := llm.ParseScript("test-script.yaml", []byte(scriptYAML))
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeLLM{t: t, script: s, turns: map[string]int{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeLLM) serve(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	var body struct {
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCalls  []any           `json:"tool_calls"`
			ToolCallID string          `json:"tool_call_id"`
		} `json:"messages"`
		Tools []any `json:"tools"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.n++
	n := f.n
	f.mu.Unlock()
	if f.fail != nil {
		if code := f.fail(n); code != 0 {
			w.WriteHeader(code)
			echo := ""
			if f.echoAuth {
				echo = " for " + r.Header.Get("Authorization")
			}
			fmt.Fprintf(w, `{"error":{"message":"injected HTTP %d%s"}}`, code, echo)
			return
		}
	}
	req := fakeRequest{Tools: len(body.Tools), SubCommands: subCommandsOffered(body.Tools)}
	for _, m := range body.Messages {
		cm := chatMsg{Role: m.Role, ToolCalls: len(m.ToolCalls), ToolCallID: m.ToolCallID}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			cm.Content = s
		} else {
			var parts []struct {
				Text string `json:"text"`
			}
			_ = json.Unmarshal(m.Content, &parts)
			for _, p := range parts {
				cm.Content += p.Text
			}
		}
		req.Messages = append(req.Messages, cm)
	}
	req.Agent = "teacher"
	if len(req.Messages) > 0 && req.Messages[0].Role == "system" {
		sys := req.Messages[0].Content
		for _, a := range []string{"planner", "optimizer", "evaluator"} {
			if strings.Contains(sys, "You are the "+strings.ToUpper(a)) {
				req.Agent = a
			}
		}
	}
	if req.Agent != "planner" && len(req.Messages) > 1 {
		if m := stepRE.FindStringSubmatch(req.Messages[1].Content); m != nil {
			req.Step, _ = strconv.Atoi(m[1])
		}
	}
	f.mu.Lock()
	key := fmt.Sprintf("%s/%d", req.Agent, req.Step)
	req.Turn = f.turns[key]
	f.turns[key]++
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()

	reply, err := f.script.Generate(context.Background(), llm.Request{Agent: req.Agent, Step: req.Step, Turn: req.Turn})
	if err != nil {
		f.t.Errorf("fake LLM: %v", err)
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, `{"error":{"message":%q}}`, err.Error())
		return
	}
	msg := map[string]any{"role": "assistant", "content": reply.Text}
	if len(reply.ToolCalls) > 0 {
		var tcs []any
		for _, tc := range reply.ToolCalls {
			tcs = append(tcs, map[string]any{"id": tc.ID, "type": "function", "function": map[string]any{"name": tc.Name, "arguments": tc.Arguments}})
		}
		msg["tool_calls"] = tcs
	}
	prompt := req.chars() / 4
	completion := map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "model": "test-model",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": prompt, "completion_tokens": 5, "total_tokens": prompt + 5},
	}
	if f.shape != nil {
		f.shape(completion)
	}
	_ = json.NewEncoder(w).Encode(completion)
}

// requests returns the recorded requests of agent at step (step < 0: any).
func (f *fakeLLM) requests(agent string, step int) []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []fakeRequest
	for _, r := range f.reqs {
		if r.Agent == agent && (step < 0 || r.Step == step) {
			out = append(out, r)
		}
	}
	return out
}

type runResult struct {
	code int
	out  string
	err  string
}

func (r runResult) all() string { return r.out + r.err }

// runAgent runs `lppctl run` on the project with the fake model.
func runAgent(t testing.TB, root string, f *fakeLLM, extra ...string) runResult {
	t.Helper()
	t.Setenv("OPENAI_API_BASE", f.srv.URL)
	t.Setenv("OPENAI_API_KEY", f.key)
	t.Setenv("LPPCTL_LLM", "")
	t.Setenv("LPPCTL_SKILLS", "") // the library is ROOT/.lppctl/skills.json
	t.Setenv("LPPCTL_NOW", "2025-01-02T03:04:05Z")
	t.Setenv("LPPCTL_LLM_RETRIES", "3")
	t.Setenv("LPPCTL_LLM_BACKOFF", "1ms")
	args := []string{"lppctl", "run", "--spec", filepath.Join(root, "specs", "skills_agent.yaml"),
		"--root", root, "--skill", filepath.Join(root, "skills", "hello_skill"), "--llm", "openai:test-model"}
	if f.fromEnv {
		t.Setenv("OPENAI_MODEL", "test-model")
		args = args[:len(args)-2]
	}
	args = append(args, extra...)
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errb)
	return runResult{code: code, out: out.String(), err: errb.String()}
}

// planJSON is a planner reply with the given optimizer instructions.
func planJSON(instructions ...string) string {
	type step struct {
		Index int      `json:"index"`
		Opt   string   `json:"optimizer_instruction"`
		Eval  string   `json:"evaluator_instruction"`
		Tools []string `json:"tools_hint"`
		Deps  []int    `json:"depends_on"`
	}
	p := struct {
		Goal  string `json:"goal"`
		Steps []step `json:"steps"`
	}{Goal: "test goal"}
	for i, in := range instructions {
		deps := []int{}
		if i > 0 {
			deps = []int{i}
		}
		p.Steps = append(p.Steps, step{Index: i + 1, Opt: in, Eval: "check step " + strconv.Itoa(i+1), Tools: []string{"safe_cli_executor"}, Deps: deps})
	}
	b, _ := json.Marshal(p)
	return string(b)
}

// yamlQuote renders s as a single-quoted YAML scalar.
func yamlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func readSkillsMD(t *testing.T, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "skills", "hello_skill", "skills.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
