// Package mcpserver exposes a skill library as an MCP server with the tools
// add_skill, update_skill, remove_skill, search_skills and list_skills.
//
// Tool failures (unknown skill, invalid name, ...) come back as tool results
// with IsError set and the error text as content, never as protocol errors,
// so a model can read them and correct itself.
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lppctl/lppctl/skills"
)

// DefaultTopK is search_skills' top_k when the caller gives none.
const DefaultTopK = 5

// SkillInfo is a skill as the tools return it.
type SkillInfo struct {
	Name              string   `json:"name" jsonschema:"the skill's unique name"`
	Principle         string   `json:"principle" jsonschema:"what to do and why"`
	WhenToApply       string   `json:"when_to_apply" jsonschema:"the situations in which the principle helps"`
	CreatedIteration  int      `json:"created_iteration"`
	LastUsedIteration int      `json:"last_used_iteration"`
	UsageCount        int      `json:"usage_count"`
	Score             *float64 `json:"score,omitempty" jsonschema:"relevance to the query (search_skills only)"`
}

func info(s skills.Skill) SkillInfo {
	return SkillInfo{Name: s.Name, Principle: s.Principle, WhenToApply: s.WhenToApply,
		CreatedIteration: s.CreatedIteration, LastUsedIteration: s.LastUsedIteration, UsageCount: s.UsageCount}
}

// AddInput is add_skill's input.
type AddInput struct {
	Name        string `json:"name" jsonschema:"the skill's name: lowercase words joined by underscores naming a general technique, e.g. verify_output_paths"`
	Principle   string `json:"principle" jsonschema:"one or two sentences: what to do and why"`
	WhenToApply string `json:"when_to_apply" jsonschema:"the situations in which the principle helps"`
	// Iteration is a pointer to tell an omitted iteration from 0, and a
	// float64 to take 1e30 (a JSON integer too) and refuse it with a clear
	// message; the schema says "integer" (see addSchema).
	Iteration *float64 `json:"iteration,omitempty" jsonschema:"the iteration (agent run) the skill was learned in, recorded as its created_iteration and last_used_iteration; at least 1 (default: the library's current iteration)"`
}

// maxIteration is the largest iteration add_skill accepts.
const maxIteration = math.MaxInt32

// addIteration returns the iteration add_skill records: in.Iteration when
// given (a whole number from 1 to maxIteration), else current().
func addIteration(in AddInput, current func() (int, error)) (int, error) {
	if in.Iteration == nil {
		return current()
	}
	if n := *in.Iteration; n < 1 || n > maxIteration || n != math.Trunc(n) {
		return 0, fmt.Errorf("cannot add skill: iteration must be a whole number from 1 to %d, got %s: %w", maxIteration, strconv.FormatFloat(n, 'f', -1, 64), skills.ErrInvalid)
	}
	return int(*in.Iteration), nil
}

// UpdateInput is update_skill's input; omitted fields stay as they are.
type UpdateInput struct {
	Name        string `json:"name" jsonschema:"the name of the skill to change"`
	NewName     string `json:"new_name,omitempty" jsonschema:"a new name for the skill"`
	Principle   string `json:"principle,omitempty" jsonschema:"the new principle"`
	WhenToApply string `json:"when_to_apply,omitempty" jsonschema:"the new when_to_apply"`
}

// RemoveInput is remove_skill's input.
type RemoveInput struct {
	Name string `json:"name" jsonschema:"the name of the skill to remove"`
}

// SearchInput is search_skills' input.
type SearchInput struct {
	Query string  `json:"query" jsonschema:"what the task is about"`
	TopK  float64 `json:"top_k,omitempty" jsonschema:"how many skills to return, at least 1 (default 5)"` // an integer (see searchSchema)
}

// ListInput is list_skills' (empty) input.
type ListInput struct{}

// SkillOutput is the result of add_skill and update_skill.
type SkillOutput struct {
	Skill SkillInfo `json:"skill"`
}

// RemoveOutput is the result of remove_skill.
type RemoveOutput struct {
	Removed string `json:"removed"`
}

// SkillsOutput is the result of list_skills and search_skills.
type SkillsOutput struct {
	Skills []SkillInfo `json:"skills"`
}

func text(format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}}}
}

// checkNameGiven rejects a blank name with the same message add_skill gives
// ("skill name is empty: invalid"): a client that sends "" for the skill to
// change or remove made a mistake, and "cannot remove skill \"\": not found"
// hides it. Other names are looked up as given.
func checkNameGiven(name string) error {
	if strings.TrimSpace(name) == "" {
		return skills.ValidateName(name)
	}
	return nil
}

// searchSchema is search_skills' input schema: the one derived from
// SearchInput, with top_k's default. top_k stays {"type": "integer"}: clients
// such as the MCP Inspector convert command-line arguments by that type (a
// ["null", "integer"] type made them send "2" as a string).
func searchSchema() *jsonschema.Schema {
	s, err := jsonschema.For[SearchInput](nil)
	if err != nil {
		panic(err)
	}
	s.Properties["top_k"].Type = "integer" // TopK is a float64 only to take 1e30
	s.Properties["top_k"].Default = json.RawMessage(strconv.Itoa(DefaultTopK))
	return s
}

// addSchema is add_skill's input schema: the one derived from AddInput, with
// iteration {"type": "integer"} rather than ["null", "number"] (clients
// convert arguments by a property's type, see searchSchema).
func addSchema() *jsonschema.Schema {
	s, err := jsonschema.For[AddInput](nil)
	if err != nil {
		panic(err)
	}
	it := s.Properties["iteration"]
	it.Type, it.Types = "integer", nil
	return s
}

// New returns an MCP server named "lppctl-skills" serving lib.
func New(lib *skills.Library, version string) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "lppctl-skills", Title: "lppctl skill library", Version: version}, &mcp.ServerOptions{
		Instructions: "A library of skills (general principles learned from past runs). Search it before planning a task; add or update skills when you learn a general lesson.",
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "add_skill", Description: "Add a skill to the library, replacing any skill of the same name.", InputSchema: addSchema()},
		func(ctx context.Context, _ *mcp.CallToolRequest, in AddInput) (*mcp.CallToolResult, SkillOutput, error) {
			it, err := addIteration(in, lib.Iteration)
			if err != nil {
				return nil, SkillOutput{}, err
			}
			s := skills.Skill{Name: in.Name, Principle: in.Principle, WhenToApply: in.WhenToApply, CreatedIteration: it, LastUsedIteration: it}
			if err := lib.Add(s); err != nil {
				return nil, SkillOutput{}, err
			}
			return text("added skill %q", s.Name), SkillOutput{Skill: info(s)}, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "update_skill", Description: "Change a skill's name, principle or when_to_apply; omitted fields stay as they are."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in UpdateInput) (*mcp.CallToolResult, SkillOutput, error) {
			if err := checkNameGiven(in.Name); err != nil {
				return nil, SkillOutput{}, fmt.Errorf("cannot update skill: %w", err)
			}
			var u skills.Update
			if in.NewName != "" {
				u.Name = &in.NewName
			}
			if in.Principle != "" {
				u.Principle = &in.Principle
			}
			if in.WhenToApply != "" {
				u.WhenToApply = &in.WhenToApply
			}
			s, err := lib.Update(in.Name, u)
			if err != nil {
				return nil, SkillOutput{}, err
			}
			return text("updated skill %q", s.Name), SkillOutput{Skill: info(s)}, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "remove_skill", Description: "Remove a skill from the library."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in RemoveInput) (*mcp.CallToolResult, RemoveOutput, error) {
			if err := checkNameGiven(in.Name); err != nil {
				return nil, RemoveOutput{}, fmt.Errorf("cannot remove skill: %w", err)
			}
			if err := lib.Remove(in.Name); err != nil {
				return nil, RemoveOutput{}, err
			}
			return text("removed skill %q", in.Name), RemoveOutput{Removed: in.Name}, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "search_skills", Description: "Return the skills most relevant to a query, best first, and record their use.", InputSchema: searchSchema()},
		func(ctx context.Context, _ *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, SkillsOutput, error) {
			// An omitted top_k is DefaultTopK (the schema's default, applied
			// by the SDK); 0 or less is an error, not the default; a huge
			// one (1e30 is a JSON integer too) is capped, as any top_k over
			// the library's size is.
			if in.TopK < 1 {
				return nil, SkillsOutput{}, fmt.Errorf("cannot search skills: top_k must be at least 1, got %s: %w", strconv.FormatFloat(in.TopK, 'f', -1, 64), skills.ErrInvalid)
			}
			hits, err := lib.SearchHits(ctx, in.Query, int(min(in.TopK, math.MaxInt32)))
			if err != nil {
				return nil, SkillsOutput{}, err
			}
			out := SkillsOutput{Skills: make([]SkillInfo, 0, len(hits))}
			for _, h := range hits {
				si := info(h.Skill)
				score := h.Score
				si.Score = &score
				out.Skills = append(out.Skills, si)
			}
			return nil, out, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "list_skills", Description: "List every skill in the library, by name."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ ListInput) (*mcp.CallToolResult, SkillsOutput, error) {
			list, err := lib.List()
			if err != nil {
				return nil, SkillsOutput{}, err
			}
			out := SkillsOutput{Skills: make([]SkillInfo, 0, len(list))}
			for _, s := range list {
				out.Skills = append(out.Skills, info(s))
			}
			return nil, out, nil
		})
	return srv
}

// ErrNotLoopback reports an HTTP address that is not on the loopback interface.
var ErrNotLoopback = errors.New("the MCP server only listens on a loopback address (127.0.0.1, ::1 or localhost)")

// CheckLoopback accepts host:port addresses whose host is a loopback IP or
// "localhost"; anything else (including an empty host, which means every
// interface) is an error wrapping ErrNotLoopback.
func CheckLoopback(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %q: %w", addr, err)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("cannot listen on %q: the port %q is not a number from 0 to 65535 (write HOST:PORT, e.g. 127.0.0.1:8765; port 0: any free one)", addr, port)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("cannot listen on %q: %w", addr, ErrNotLoopback)
}

// ServeHTTP serves srv over streamable HTTP on addr (loopback only) until
// ctx is done. ready, when not nil, is called with the bound address once
// the server listens.
func ServeHTTP(ctx context.Context, srv *mcp.Server, addr string, ready func(net.Addr)) error {
	if err := CheckLoopback(addr); err != nil {
		return err
	}
	return ServeHTTPAnyAddress(ctx, srv, addr, ready)
}

// ServeHTTPAnyAddress is ServeHTTP without the loopback check: the server
// has no authentication, so anyone who can connect to addr can change the
// library. Requests on a loopback address still need a loopback Host
// header (DNS rebinding), and cross-origin browser requests are refused.
func ServeHTTPAnyAddress(ctx context.Context, srv *mcp.Server, addr string, ready func(net.Addr)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %q: %w", addr, err)
	}
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	// Shutting down waits for open requests; a client's GET stream stays
	// open until the server ends it, so shutdown ends the streams first.
	streams, endStreams := context.WithCancel(context.Background())
	defer endStreams()
	handler := http.NewCrossOriginProtection().Handler(readBody(requireSession(boundSessions(srv, maxSessions, endOnShutdown(streams, sdk)))))
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && tcp.IP.IsLoopback() {
		handler = loopbackHostOnly(handler) // DNS rebinding: see loopbackHostOnly
	}
	hs := &http.Server{Handler: handler, ReadHeaderTimeout: headerTimeout, IdleTimeout: idleTimeout, MaxHeaderBytes: 64 << 10}
	hs.RegisterOnShutdown(endStreams)
	if ready != nil {
		ready(ln.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("cannot serve MCP over HTTP: %w", err)
	case <-ctx.Done():
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(shutdownCtx)
		return nil
	}
}

// endOnShutdown ends GET (SSE) requests when streams is done.
func endOnShutdown(streams context.Context, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			ctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			stop := context.AfterFunc(streams, cancel)
			defer stop()
			r = r.WithContext(ctx)
		}
		next.ServeHTTP(w, r)
	})
}

// maxHTTPBody bounds the body of a POST (readBody).
const maxHTTPBody = 4 << 20

// requireSession answers a POST without an Mcp-Session-Id header that is
// not an initialize request with 400 Bad Request, as the MCP transport
// specification asks of servers that use sessions. (The SDK would start a
// new session for it and answer a JSON-RPC error with code 0: "method ...
// is invalid during session initialization".)
func requireSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
			next.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body) // already in memory (readBody)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if !initializes(body) {
			http.Error(w, "Bad Request: the Mcp-Session-Id header is missing; start a session with an initialize request and send the Mcp-Session-Id it returns with every later request", http.StatusBadRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// initializes reports whether body is an initialize request, or a batch
// holding one, or not JSON-RPC at all (the SDK answers that itself).
func initializes(body []byte) bool {
	var one struct {
		Method *string `json:"method"`
	}
	if json.Unmarshal(body, &one) == nil {
		return one.Method == nil || *one.Method == "initialize"
	}
	var batch []struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &batch) != nil {
		return true
	}
	for _, m := range batch {
		if m.Method == "initialize" {
			return true
		}
	}
	return false
}
