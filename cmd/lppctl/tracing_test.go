package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"
)

// scriptedAgent prepares a copy of the project for the scripted hello_skill
// demo (no provider configured, no collector) and returns its root.
func scriptedAgent(t *testing.T) string {
	t.Helper()
	root := newProject(t, "hello_skill")
	for _, k := range []string{"OPENAI_API_KEY", "OPENAI_API_BASE", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "OLLAMA_HOST", "LPPCTL_LLM", "LPPCTL_TRACE_CONTENT",
		"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"} {
		t.Setenv(k, "")
	}
	t.Setenv("LPPCTL_NOW", "2025-01-02T03:04:05Z")
	t.Chdir(root)
	return root
}

// memTrace sends every span of the runs in this test to an in-memory exporter.
func memTrace(t *testing.T) *tracetest.InMemoryExporter {
	t.Helper()
	mem := tracetest.NewInMemoryExporter()
	traceTestExporter = keepSpans{mem}
	t.Cleanup(func() { traceTestExporter = nil })
	return mem
}

func runLppctl(t *testing.T, want int, args ...string) (stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(append([]string{"lppctl"}, args...), strings.NewReader(""), &out, &errb); code != want {
		t.Fatalf("lppctl %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want, out.String(), errb.String())
	}
	return out.String(), errb.String()
}

var agentArgs = []string{"run", "--spec", "specs/skills_agent.yaml", "--skill", "skills/hello_skill", "--yes"}

func attrs(kvs []attribute.KeyValue) map[string]any {
	m := map[string]any{}
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.AsInterface()
	}
	return m
}

var contentKeys = []string{"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"}

func TestTraceSpanTreeOfTheScriptedSkillsAgent(t *testing.T) {
	scriptedAgent(t)
	mem := memTrace(t)
	_, errOut := runLppctl(t, 0, agentArgs...)
	runID := regexp.MustCompile(`run (\S+) \(journal`).FindStringSubmatch(errOut)[1]
	spans := mem.GetSpans()

	var root tracetest.SpanStub
	byID := map[string]tracetest.SpanStub{}
	for _, s := range spans {
		byID[s.SpanContext.SpanID().String()] = s
		if !s.Parent.IsValid() {
			if root.Name != "" {
				t.Fatalf("two root spans: %q and %q", root.Name, s.Name)
			}
			root = s
		}
	}
	ra := attrs(root.Attributes)
	if root.Name != "invoke_agent skills_agent" || ra["lppctl.run.id"] != runID || ra["lppctl.run.outcome"] != "completed" ||
		ra["gen_ai.operation.name"] != "invoke_agent" || ra["gen_ai.agent.name"] != "skills_agent" || ra["lppctl.run.steps"] != int64(28) {
		t.Fatalf("run span %q %v", root.Name, ra)
	}
	var states []string
	counts := map[string]int{}
	for _, s := range spans {
		if s.SpanContext.TraceID() != root.SpanContext.TraceID() {
			t.Fatalf("span %q is in another trace", s.Name)
		}
		a := attrs(s.Attributes)
		for _, k := range contentKeys {
			if _, ok := a[k]; ok {
				t.Errorf("span %q carries %s without --trace-content", s.Name, k)
			}
		}
		parent := byID[s.Parent.SpanID().String()]
		kind, _, _ := strings.Cut(s.Name, " ")
		counts[kind]++
		switch kind {
		case "state":
			if parent.Name != root.Name {
				t.Errorf("%q is under %q, not the run", s.Name, parent.Name)
			}
			states = append(states, a["lppctl.state"].(string))
			if a["lppctl.state"] == "plan" && (a["lppctl.transition.to"] != "approve_plan" || a["lppctl.action"] != "llm.planner" || a["lppctl.transition.via"] != "next[0]") {
				t.Errorf("state plan: %v", a)
			}
		case "chat":
			pa := attrs(parent.Attributes)
			if !strings.HasPrefix(parent.Name, "state ") || !slices.Contains([]any{"plan", "optimizer", "evaluator", "teach"}, pa["lppctl.state"]) {
				t.Errorf("%q is under %q", s.Name, parent.Name)
			}
			if s.Name != "chat demo.yaml" || a["gen_ai.operation.name"] != "chat" || a["gen_ai.provider.name"] != "lppctl.script" || a["gen_ai.request.model"] != "demo.yaml" {
				t.Errorf("model span %q %v", s.Name, a)
			}
			if in, _ := a["gen_ai.usage.input_tokens"].(int64); in <= 0 {
				t.Errorf("model span without input tokens: %v", a)
			}
			if _, ok := a["gen_ai.usage.output_tokens"]; !ok {
				t.Errorf("model span without output tokens: %v", a)
			}
		case "execute_tool":
			pa := attrs(parent.Attributes)
			if !slices.Contains([]any{"tool_executor", "eval_tool_executor"}, pa["lppctl.state"]) {
				t.Errorf("%q is under %q", s.Name, parent.Name)
			}
			if a["gen_ai.tool.name"] != strings.TrimPrefix(s.Name, "execute_tool ") || a["lppctl.gateway.decision"] != "allow" || a["gen_ai.operation.name"] != "execute_tool" {
				t.Errorf("tool span %q %v", s.Name, a)
			}
			if s.EndTime.Before(s.StartTime) {
				t.Errorf("tool span %q ends before it starts", s.Name)
			}
		case "invoke_agent":
		default:
			t.Errorf("unexpected span %q", s.Name)
		}
	}
	if len(states) != 28 || states[0] != "plan" || states[len(states)-1] != "done" {
		t.Fatalf("state spans %v", states)
	}
	if counts["chat"] == 0 || counts["execute_tool"] == 0 {
		t.Fatalf("span kinds %v", counts)
	}
}

func TestTraceContentOnlyWithOptIn(t *testing.T) {
	scriptedAgent(t)
	mem := memTrace(t)
	runLppctl(t, 0, append(agentArgs, "--trace-content")...)
	found := map[string]bool{}
	for _, s := range mem.GetSpans() {
		a := attrs(s.Attributes)
		for _, k := range contentKeys {
			if v, ok := a[k].(string); ok && v != "" {
				found[k] = true
			}
		}
		if strings.HasPrefix(s.Name, "chat") && !strings.Contains(a["gen_ai.input.messages"].(string), `"role":"system"`) {
			t.Errorf("input messages without the system prompt: %.200s", a["gen_ai.input.messages"])
		}
	}
	for _, k := range contentKeys {
		if !found[k] {
			t.Errorf("no span carries %s with --trace-content", k)
		}
	}
}

func TestTraceFileHoldsTheRunsSpans(t *testing.T) {
	root := scriptedAgent(t)
	out := filepath.Join(root, "spans.jsonl")
	_, errOut := runLppctl(t, 0, append(agentArgs, "--trace", out)...)
	if strings.Contains(errOut, "tracing:") {
		t.Fatalf("tracing complained:\n%s", errOut)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var last struct {
		Name       string         `json:"name"`
		TraceID    string         `json:"trace_id"`
		Attributes map[string]any `json:"attributes"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	if len(lines) < 40 || last.Name != "invoke_agent skills_agent" || last.Attributes["lppctl.run.outcome"] != "completed" {
		t.Fatalf("%d lines, last %+v", len(lines), last)
	}
}

// otlpReceiver is an OTLP/HTTP collector in the test: it decodes every
// ExportTraceServiceRequest it is sent.
type otlpReceiver struct {
	mu   sync.Mutex
	reqs []*coltracepb.ExportTraceServiceRequest
	hdr  http.Header
}

func (o *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	req := &coltracepb.ExportTraceServiceRequest{}
	if err := proto.Unmarshal(body, req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	o.mu.Lock()
	o.reqs, o.hdr = append(o.reqs, req), r.Header.Clone()
	o.mu.Unlock()
	resp, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(resp)
}

func anyValue(v *commonpb.AnyValue) any {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return x.IntValue
	case *commonpb.AnyValue_BoolValue:
		return x.BoolValue
	}
	return v.String()
}

func TestTraceOverOTLPHTTP(t *testing.T) {
	scriptedAgent(t)
	rcv := &otlpReceiver{}
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-tenant=lpp")
	t.Setenv("OTEL_SERVICE_NAME", "agent-under-test")
	_, errOut := runLppctl(t, 0, agentArgs...)
	runID := regexp.MustCompile(`run (\S+) \(journal`).FindStringSubmatch(errOut)[1]
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	if len(rcv.reqs) == 0 {
		t.Fatal("the collector received nothing")
	}
	if rcv.hdr.Get("X-Tenant") != "lpp" {
		t.Errorf("OTEL_EXPORTER_OTLP_HEADERS not sent: %v", rcv.hdr)
	}
	names := map[string]int{}
	var run map[string]any
	for _, req := range rcv.reqs {
		for _, rs := range req.ResourceSpans {
			res := map[string]any{}
			for _, kv := range rs.Resource.Attributes {
				res[kv.Key] = anyValue(kv.Value)
			}
			if res["service.name"] != "agent-under-test" {
				t.Errorf("resource %v", res)
			}
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					kind, _, _ := strings.Cut(s.Name, " ")
					names[kind]++
					a := map[string]any{}
					for _, kv := range s.Attributes {
						a[kv.Key] = anyValue(kv.Value)
					}
					if kind == "invoke_agent" {
						run = a
					}
					if kind == "chat" {
						if _, ok := a["gen_ai.usage.input_tokens"].(int64); !ok || s.Kind.String() != "SPAN_KIND_CLIENT" {
							t.Errorf("model span over the wire: %v %v", s.Kind, a)
						}
					}
				}
			}
		}
	}
	if run["lppctl.run.id"] != runID || run["lppctl.run.outcome"] != "completed" {
		t.Errorf("run span over the wire: %v", run)
	}
	if names["invoke_agent"] != 1 || names["state"] != 28 || names["chat"] == 0 || names["execute_tool"] == 0 {
		t.Errorf("spans over the wire: %v", names)
	}
}

// progressOf removes what differs between two runs: the run id and the project's directory.
func progressOf(s, root string) string {
	s = strings.ReplaceAll(s, root, "ROOT")
	return regexp.MustCompile(`\d{8}-\d{6}-[0-9a-f]+`).ReplaceAllString(s, "RUN")
}

func TestTraceDeadEndpointDoesNotChangeTheRun(t *testing.T) {
	repo := repoRoot(t)
	first := scriptedAgent(t)
	want, _ := runLppctl(t, 0, agentArgs...)

	root := newProjectFrom(t, repo, "hello_skill") // a fresh copy: the first run learned into skills.md
	t.Chdir(root)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close() // nothing listens there now
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", dead)
	got, errOut := runLppctl(t, 0, agentArgs...)
	if progressOf(got, root) != progressOf(want, first) {
		t.Fatalf("the progress differs with a dead collector:\n%s\nwant:\n%s", got, want)
	}
	if !regexp.MustCompile(`level=WARN msg="tracing: (\d+) of (\d+) spans were not exported \(the run itself is unaffected\)" run_id=\S+ trace_id=[0-9a-f]{32} errors="otlp: `).MatchString(errOut) {
		t.Fatalf("the lost spans are not reported:\n%s", errOut)
	}
	if n := strings.Count(errOut, "spans were not exported"); n != 1 {
		t.Fatalf("reported %d times", n)
	}
	if _, err := os.Stat(filepath.Join(root, "output/hello_skill/greeting.txt")); err != nil {
		t.Fatal(err)
	}
}

func TestTraceResumeContinuesTheTrace(t *testing.T) {
	scriptedAgent(t)
	mem := memTrace(t)
	_, errOut := runLppctl(t, exitPaused, "run", "--spec", "specs/skills_agent.yaml", "--skill", "skills/hello_skill", "--no-input")
	runID := regexp.MustCompile(`run (\S+) \(journal`).FindStringSubmatch(errOut)[1]
	first := mem.GetSpans()
	b, err := os.ReadFile(filepath.Join(".lppctl", "runs", runID, TraceFile))
	if err != nil {
		t.Fatal(err)
	}
	var ref traceRef
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	firstRun := first[len(first)-1]
	if firstRun.Name != "invoke_agent skills_agent" || ref.TraceID != firstRun.SpanContext.TraceID().String() || ref.SpanID != firstRun.SpanContext.SpanID().String() {
		t.Fatalf("trace.json %+v does not name the run span %q %v", ref, firstRun.Name, firstRun.SpanContext)
	}
	if a := attrs(firstRun.Attributes); a["lppctl.run.outcome"] != "paused" {
		t.Fatalf("first run span: %v", a)
	}
	mem.Reset()
	runLppctl(t, 0, "resume", runID, "--approve")
	second := mem.GetSpans()
	resumed := second[len(second)-1]
	a := attrs(resumed.Attributes)
	if resumed.Name != "invoke_agent skills_agent" || a["lppctl.run.resumed"] != true || a["lppctl.run.outcome"] != "completed" {
		t.Fatalf("resumed run span %q %v", resumed.Name, a)
	}
	if resumed.Parent.SpanID() != firstRun.SpanContext.SpanID() || len(resumed.Links) != 1 || resumed.Links[0].SpanContext.SpanID() != firstRun.SpanContext.SpanID() {
		t.Fatalf("the resumed run span is not under/linked to the first: parent %v links %v", resumed.Parent, resumed.Links)
	}
	for _, s := range second {
		if s.SpanContext.TraceID() != firstRun.SpanContext.TraceID() {
			t.Fatalf("span %q of the resume is in trace %v, not %v", s.Name, s.SpanContext.TraceID(), firstRun.SpanContext.TraceID())
		}
	}
}

func TestLogsCarryRunAndTraceIDs(t *testing.T) {
	root := scriptedAgent(t)
	_, errOut := runLppctl(t, 0, append([]string{"--log-format", "json", "--log-level", "debug"}, append(agentArgs, "--trace", filepath.Join(root, "spans.jsonl"))...)...)
	var steps int
	for line := range strings.Lines(errOut) {
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if rec["run_id"] == nil || len(rec["trace_id"].(string)) != 32 {
			t.Errorf("record without run_id or trace_id: %s", line)
		}
		if rec["msg"] == "step" {
			steps++
		}
	}
	if steps != 28 {
		t.Fatalf("%d step records, want 28:\n%s", steps, errOut)
	}
}

func TestLogFlagsAreChecked(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{"--log-format yaml version", "lppctl: --log-format yaml: give text or json"},
		{"--log-level loud version", "lppctl: --log-level loud: give debug, info, warn or error"},
	} {
		_, errOut := runLppctl(t, exitUsage, strings.Fields(tc.args)...)
		if !strings.HasPrefix(errOut, tc.want+"\n") {
			t.Errorf("%s: stderr %q, want %q", tc.args, errOut, tc.want)
		}
	}
}

// keepSpans keeps the spans when the run's provider shuts down (the
// in-memory exporter forgets them then).
type keepSpans struct{ *tracetest.InMemoryExporter }

func (keepSpans) Shutdown(context.Context) error { return nil }

var _ sdktrace.SpanExporter = keepSpans{}
