package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"unicode/utf8"
)

// OpenAI-compatible servers (vLLM, llama.cpp, LM Studio, Ollama's /v1,
// LiteLLM, home-made mocks) differ in small ways that langchaingo's OpenAI
// client does not forgive: a tool call's arguments sent as a JSON object
// instead of a string fail the whole decode, a null choice panics, an HTML
// page answered with status 200 gives "invalid character '<'". compatTransport
// sits under that client and
//
//   - normalizes a 200 reply of /chat/completions to the shape the client
//     decodes (see normalizeCompletion), or turns it into a *replyError that
//     says what the server sent;
//   - finds the API when the base URL lacks (or has one too many) /v1: on a
//     404 or 405 it tries the other path once, and keeps it when the server answers
//     there (for Anthropic's /messages too).
type compatTransport struct {
	base      http.RoundTripper
	normalize bool // check and normalize chat completions (OpenAI-compatible servers)

	mu    sync.Mutex
	tried bool // the other path was tried after a 404
	alt   bool // the other path answers: use it
}

// maxReplyBytes bounds how much of a reply is read into memory.
const maxReplyBytes = 64 << 20

// replyError is a reply the server sent with status 200 that is not a usable
// chat completion. Transient ones are retried.
type replyError struct {
	msg       string
	transient bool
	setup     bool // the provider's setup is wrong (a page that is not the API, a redirect to follow by hand): unavailable, like a 404
}

func (e *replyError) Error() string { return e.msg }

func (t *compatTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if apiSuffix(req.URL.Path) == "" {
		return t.base.RoundTrip(req)
	}
	t.mu.Lock()
	useAlt, tried := t.alt, t.tried
	t.mu.Unlock()
	if useAlt {
		req = withPath(req, otherAPIPath(req.URL.Path))
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if notThere(resp.StatusCode) && !useAlt && !tried && req.GetBody != nil {
		t.mu.Lock()
		t.tried = true
		t.mu.Unlock()
		if body, berr := req.GetBody(); berr == nil {
			r2 := withPath(req, otherAPIPath(req.URL.Path))
			r2.Body = body
			resp2, err2 := t.base.RoundTrip(r2)
			switch {
			case err2 == nil && !notThere(resp2.StatusCode):
				t.mu.Lock()
				t.alt = true
				t.mu.Unlock()
				_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
				resp.Body.Close()
				resp = resp2
			case err2 == nil:
				resp2.Body.Close()
			}
		}
	}
	if resp.StatusCode == http.StatusOK && apiSuffix(req.URL.Path) == "/messages" {
		return checkMessage(resp)
	}
	if resp.StatusCode != http.StatusOK || !t.normalize || apiSuffix(req.URL.Path) != "/chat/completions" {
		return resp, nil
	}
	return normalizeResponse(resp)
}

// notThere reports a status that says the path is not the API's.
func notThere(status int) bool {
	return status == http.StatusNotFound || status == http.StatusMethodNotAllowed
}

// withPath returns a copy of req aimed at another path of the same server.
func withPath(req *http.Request, path string) *http.Request {
	r := req.Clone(req.Context())
	u := *req.URL
	u.Path, u.RawPath = path, ""
	r.URL = &u
	return r
}

// apiSuffix is the endpoint a path ends with ("" for others).
func apiSuffix(p string) string {
	for _, s := range []string{"/chat/completions", "/messages"} {
		if strings.HasSuffix(p, s) {
			return s
		}
	}
	return ""
}

// otherAPIPath toggles the /v1 before the endpoint:
// /chat/completions ⇄ /v1/chat/completions, /api/v1/messages → /api/messages.
func otherAPIPath(p string) string {
	suffix := apiSuffix(p)
	prefix := strings.TrimSuffix(p, suffix)
	if strings.HasSuffix(prefix, "/v1") {
		return strings.TrimSuffix(prefix, "/v1") + suffix
	}
	return prefix + "/v1" + suffix
}

// readReplyBody reads and closes a 200 reply's body: a dropped connection
// or a timeout is its error (retried), a body over maxReplyBytes a
// *replyError.
func readReplyBody(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxReplyBytes+1))
	if err != nil {
		return nil, err
	}
	if len(raw) > maxReplyBytes {
		return nil, &replyError{msg: fmt.Sprintf("the server's reply is larger than %d MiB", maxReplyBytes>>20)}
	}
	return raw, nil
}

// normalizeResponse reads a 200 reply and rewrites it for the client, or
// fails with a *replyError.
func normalizeResponse(resp *http.Response) (*http.Response, error) {
	raw, err := readReplyBody(resp)
	if err != nil {
		return nil, err
	}
	out, rerr := normalizeCompletion(raw, resp.Header.Get("Content-Type"))
	if rerr != nil {
		return nil, rerr
	}
	resp.Body = io.NopCloser(bytes.NewReader(out))
	resp.ContentLength = int64(len(out))
	resp.Header.Set("Content-Length", fmt.Sprint(len(out)))
	resp.Header.Del("Content-Encoding")
	return resp, nil
}

// normalizeCompletion checks a chat completion and rewrites what the client
// would choke on:
//
//   - a tool call's arguments that are not a string (an object, a number) are
//     sent as their JSON text; a missing function gets an empty one;
//   - content given as a list of parts is joined into one text;
//   - numbers where the client wants integers are truncated (created: 1.7e9),
//     numeric strings read (usage counts as "100"), other strings or objects
//     where it wants numbers are dropped, and so is logprobs;
//   - a refusal (message.refusal, a content part of type refusal) with no
//     text gets finish_reason "refusal";
//   - null choices are dropped; a choice with a delta (a stream chunk) or a
//     text (a legacy completion) instead of a message gets it as its message;
//   - only the first choice is kept (the one with index 0, else the first
//     listed), as clients conventionally read choices[0]: several choices
//     are alternatives, not parts of one answer, so their texts are not
//     joined nor all their tool calls run.
//
// It fails with a *replyError when the body is not JSON (an HTML page: the
// base URL is probably wrong), when it is an error object, or when there is
// no choice at all (retried: servers do that under load).
func normalizeCompletion(raw []byte, contentType string) ([]byte, *replyError) {
	trimmed := trimBody(raw)
	var body map[string]any
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	if len(trimmed) == 0 {
		return nil, &replyError{msg: "the server answered HTTP 200 with an empty body", transient: true}
	}
	if err := dec.Decode(&body); err != nil || body == nil {
		if errors.Is(err, io.ErrUnexpectedEOF) && bytes.HasPrefix(trimmed, []byte("{")) {
			// JSON that starts well and stops: the body was cut short (a
			// dropped connection behind a proxy, a server that died mid-reply).
			return nil, &replyError{msg: fmt.Sprintf("the server's reply was cut short: its JSON ends after %d bytes, before it is complete (%s)", len(raw), snippetEnd(trimmed)), transient: true}
		}
		what := "a body that is not a JSON object"
		if ct := strings.TrimSpace(strings.Split(contentType, ";")[0]); ct != "" && ct != "application/json" {
			what = ct + ", not JSON"
		}
		if isEventStream(trimmed) {
			merged, rerr := mergeStream(trimmed)
			if rerr != nil {
				return nil, rerr
			}
			return normalizeCompletion(merged, "application/json")
		}
		if terr := textError(trimmed, contentType); terr != nil {
			return nil, terr
		}
		return nil, &replyError{setup: true, msg: fmt.Sprintf("the server answered HTTP 200 with %s (%s); is the base URL that of the API (OpenAI-compatible servers usually serve it under /v1)?", what, snippet(trimmed))}
	}
	choices, _ := body["choices"].([]any)
	if e, ok := body["error"]; ok && e != nil && len(choices) == 0 {
		return nil, &replyError{msg: "the server answered HTTP 200 with an error: " + errorText(e), transient: saysTransient.MatchString(errorText(e)) || transientCode(e)}
	}
	kept := choices[:0]
	for _, c := range choices {
		ch, ok := c.(map[string]any)
		if !ok {
			continue
		}
		normalizeChoice(ch)
		kept = append(kept, ch)
	}
	if len(kept) == 0 {
		return nil, &replyError{msg: "the server's reply has no choices (" + snippet(trimmed) + ")", transient: true}
	}
	first := kept[0]
	for _, c := range kept {
		if n, ok := c.(map[string]any)["index"].(json.Number); ok && n.String() == "0" {
			first = c
			break
		}
	}
	body["choices"] = []any{first}
	intField(body, "created")
	if u, ok := body["usage"].(map[string]any); ok {
		normalizeUsage(u)
	} else {
		delete(body, "usage")
	}
	for _, k := range []string{"id", "model", "object", "system_fingerprint"} {
		stringField(body, k)
	}
	out, err := json.Marshal(body)
	if err != nil {
		return nil, &replyError{msg: "cannot re-encode the server's reply: " + err.Error()}
	}
	return out, nil
}

func normalizeChoice(ch map[string]any) {
	intField(ch, "index")
	stringField(ch, "finish_reason")
	delete(ch, "logprobs")
	msg, ok := ch["message"].(map[string]any)
	if !ok {
		// a streaming chunk's delta, or a legacy completion's text
		if d, isMap := ch["delta"].(map[string]any); isMap {
			msg = d
		} else {
			msg = map[string]any{"role": "assistant", "content": contentText(ch["text"])}
		}
		ch["message"] = msg
	}
	if refusal := refusalText(msg); refusal != "" && strings.TrimSpace(contentText(msg["content"])) == "" {
		// A refusal (OpenAI's message.refusal, or a content part of type
		// refusal) ends with finish_reason "stop": said as "refusal", so
		// that an empty answer is not re-asked as a slip of the format.
		ch["finish_reason"] = "refusal"
	}
	msg["content"] = contentText(msg["content"])
	for _, k := range []string{"role", "name", "tool_call_id", "reasoning_content"} {
		stringField(msg, k)
	}
	if fc, ok := msg["function_call"].(map[string]any); ok {
		normalizeFunction(fc)
	} else {
		delete(msg, "function_call")
	}
	calls, _ := msg["tool_calls"].([]any)
	kept := calls[:0]
	for _, c := range calls {
		tc, ok := c.(map[string]any)
		if !ok {
			continue
		}
		stringField(tc, "id")
		stringField(tc, "type")
		fn, ok := tc["function"].(map[string]any)
		if !ok {
			fn = map[string]any{}
			tc["function"] = fn
		}
		normalizeFunction(fn)
		kept = append(kept, tc)
	}
	if len(kept) > 0 {
		msg["tool_calls"] = kept
	} else {
		delete(msg, "tool_calls")
	}
}

func normalizeFunction(fn map[string]any) {
	stringField(fn, "name")
	switch a := fn["arguments"].(type) {
	case string, nil:
	default:
		b, _ := json.Marshal(a)
		fn["arguments"] = string(b)
	}
}

func normalizeUsage(u map[string]any) {
	for k, v := range u {
		switch v := v.(type) {
		case map[string]any:
			for dk := range v {
				intField(v, dk)
			}
		default:
			intField(u, k)
		}
	}
}

// refusalText is what a message says it refuses: its refusal field, or
// its content parts of type refusal ("" when there is none).
func refusalText(msg map[string]any) string {
	if r, ok := msg["refusal"].(string); ok && strings.TrimSpace(r) != "" {
		return r
	}
	parts, _ := msg["content"].([]any)
	var out []string
	for _, p := range parts {
		if m, ok := p.(map[string]any); ok && m["type"] == "refusal" {
			if r, ok := m["refusal"].(string); ok && strings.TrimSpace(r) != "" {
				out = append(out, r)
			}
		}
	}
	return strings.Join(out, " ")
}

// contentText returns a message's content as a string: null → "", a list of
// parts → their texts joined.
func contentText(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case nil:
		return ""
	case []any:
		var parts []string
		for _, p := range c {
			switch p := p.(type) {
			case string:
				parts = append(parts, p)
			case map[string]any:
				if s, ok := p["text"].(string); ok {
					parts = append(parts, s)
				}
			}
		}
		return strings.Join(parts, "")
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// intField truncates a number, or a string holding one (usage counts sent
// as "100"), to an integer and drops anything else.
func intField(m map[string]any, k string) {
	v, ok := m[k]
	if !ok {
		return
	}
	n, isNum := v.(json.Number)
	if s, isString := v.(string); isString {
		n = json.Number(strings.TrimSpace(s))
		if _, err := n.Float64(); err == nil && json.Valid([]byte(n)) {
			m[k], isNum = n, true
		}
	}
	if !isNum {
		delete(m, k)
		return
	}
	if _, err := n.Int64(); err == nil {
		return
	}
	f, err := n.Float64()
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1<<53 {
		delete(m, k)
		return
	}
	m[k] = json.Number(fmt.Sprint(int64(f)))
}

// stringField keeps strings and nulls; other values become their JSON text.
func stringField(m map[string]any, k string) {
	switch v := m[k].(type) {
	case string, nil:
	case json.Number:
		m[k] = v.String()
	default:
		b, _ := json.Marshal(v)
		m[k] = string(b)
	}
}

// errorText is the message of an error object ({"message": ...}) or its JSON.
// transientCode reports whether an error object's code is an HTTP status
// worth retrying (429, 5xx), as a number or a numeric string.
func transientCode(e any) bool {
	m, ok := e.(map[string]any)
	if !ok {
		return false
	}
	code := strings.TrimSpace(fmt.Sprint(m["code"]))
	return code == "429" || len(code) == 3 && code[0] == '5' && code[1] >= '0' && code[1] <= '9' && code[2] >= '0' && code[2] <= '9'
}

func errorText(e any) string {
	if m, ok := e.(map[string]any); ok {
		if s, ok := m["message"].(string); ok && s != "" {
			return s
		}
	}
	if s, ok := e.(string); ok {
		return s
	}
	b, _ := json.Marshal(e)
	return string(b)
}

// snippet is the start of a body, on one line, for error messages.
func snippet(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 120 {
		s = s[:120]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		s += "…"
	}
	if s == "" {
		return "empty"
	}
	return fmt.Sprintf("%q", s)
}

// snippetEnd is the end of a body, on one line, for error messages.
func snippetEnd(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 80 {
		cut := len(s) - 80
		for cut < len(s) && !utf8.RuneStart(s[cut]) {
			cut++
		}
		return fmt.Sprintf("%q", "…"+s[cut:])
	}
	return fmt.Sprintf("%q", s)
}

// isEventStream reports whether a body that is not JSON is a server-sent
// event stream: its first line is a data, event, id or retry field, or a
// comment (": keep-alive", ": OPENROUTER PROCESSING").
func isEventStream(body []byte) bool {
	line, _, _ := bytes.Cut(body, []byte("\n"))
	line = bytes.TrimSpace(line)
	if bytes.HasPrefix(line, []byte(":")) {
		return true
	}
	for _, f := range []string{"data:", "event:", "id:", "retry:"} {
		if bytes.HasPrefix(line, []byte(f)) {
			return true
		}
	}
	return false
}

// mergeStream turns a server-sent event stream of chat completion chunks
// (sent by a server that streams whatever it is asked) into one completion:
// the deltas' content joined, tool calls merged by index, the last usage.
// Only the deltas of choice 0 are read (see normalizeCompletion). Comments,
// event, id and retry lines are skipped. A stream is complete when it says
// so: a finish_reason for choice 0, or "data: [DONE]"; one that just stops
// was cut short (a dropped connection, a proxy's timeout), and one that
// carries an error object stopped on the server's error: both are retried
// like a dropped connection, never read as the model's whole answer.
func mergeStream(body []byte) ([]byte, *replyError) {
	type call struct {
		id, typ, name string
		args          strings.Builder
	}
	var content strings.Builder
	var calls []*call
	byIndex := map[int]*call{}
	var usage any
	finish, model, chunks, done := "", "", 0, false
	for _, line := range strings.Split(string(body), "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "data:") {
			continue
		}
		data := strings.TrimSpace(strings.TrimPrefix(line, "data:"))
		if data == "[DONE]" {
			done = true
			break
		}
		var chunk struct {
			Model   string `json:"model"`
			Choices []struct {
				Index int `json:"index"`
				Delta struct {
					Content   any `json:"content"`
					ToolCalls []struct {
						Index    int    `json:"index"`
						ID       string `json:"id"`
						Type     string `json:"type"`
						Function struct {
							Name      string `json:"name"`
							Arguments any    `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage any `json:"usage"`
			Error any `json:"error"`
		}
		if json.Unmarshal([]byte(data), &chunk) != nil {
			continue
		}
		if chunk.Error != nil {
			return nil, &replyError{msg: fmt.Sprintf("the server's event stream stopped on an error after %d chunk(s): %s", chunks, errorText(chunk.Error)), transient: true}
		}
		chunks++
		if chunk.Model != "" {
			model = chunk.Model
		}
		if chunk.Usage != nil {
			usage = chunk.Usage
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			content.WriteString(contentText(ch.Delta.Content))
			for _, tc := range ch.Delta.ToolCalls {
				c, ok := byIndex[tc.Index]
				if !ok {
					c = &call{}
					byIndex[tc.Index] = c
					calls = append(calls, c)
				}
				c.id = firstSet(c.id, tc.ID)
				c.typ = firstSet(c.typ, tc.Type)
				c.name += tc.Function.Name
				switch a := tc.Function.Arguments.(type) {
				case string:
					c.args.WriteString(a)
				case nil:
				default:
					b, _ := json.Marshal(a)
					c.args.Write(b)
				}
			}
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				finish = *ch.FinishReason
			}
		}
	}
	if chunks == 0 {
		return nil, &replyError{msg: fmt.Sprintf("the server answered with an event stream (though none was asked for) that holds no chat completion (%s)", snippet(body))}
	}
	if !done && finish == "" {
		return nil, &replyError{msg: fmt.Sprintf("the server's event stream was cut short: it ends after %d chunk(s) with neither a finish_reason nor [DONE] (%s)", chunks, snippetEnd(body)), transient: true}
	}
	msg := map[string]any{"role": "assistant", "content": content.String()}
	if len(calls) > 0 {
		var tcs []any
		for _, c := range calls {
			tcs = append(tcs, map[string]any{"id": c.id, "type": firstSet(c.typ, "function"), "function": map[string]any{"name": c.name, "arguments": c.args.String()}})
		}
		msg["tool_calls"] = tcs
	}
	out := map[string]any{"object": "chat.completion", "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}}
	if usage != nil {
		out["usage"] = usage
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, &replyError{msg: "cannot re-encode the server's event stream: " + err.Error()}
	}
	return b, nil
}

// normalizeBaseURL makes OPENAI_API_BASE usable as langchaingo's base URL:
// a missing scheme gets http://, a trailing slash and a pasted
// /chat/completions are dropped.
func normalizeBaseURL(base string) (string, error) {
	b := strings.TrimSpace(base)
	if !strings.Contains(b, "://") {
		b = "http://" + b
	}
	b = strings.TrimRight(b, "/")
	b = strings.TrimSuffix(strings.TrimSuffix(b, "/chat/completions"), "/messages")
	b = strings.TrimRight(b, "/")
	u, err := url.Parse(b)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("%q is not an http(s) URL", base)
	}
	return b, nil
}

// displayURL is a base URL as shown in messages (any password hidden).
func displayURL(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	return u.Redacted()
}

// utf8BOM is the byte order mark some servers (Windows-hosted proxies, .NET
// gateways) put before a JSON body; JSON decoders refuse it.
var utf8BOM = []byte("\xef\xbb\xbf")

// trimBody is a reply's body without the spaces around it and a leading
// byte order mark.
func trimBody(raw []byte) []byte {
	return bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(raw), utf8BOM))
}
