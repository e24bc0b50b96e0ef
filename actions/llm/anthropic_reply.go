package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// checkMessage reads a 200 reply of Anthropic's /messages and gives it back
// whole, or fails with a *replyError when it is not a message the client
// can read:
//
//   - an error object ({"type": "error", "error": {"type", "message"}}),
//     what Anthropic sends as a stream's error event and what gateways in
//     front of it return with status 200: langchaingo's client would read
//     it as a message with no content, an empty answer. Overloaded, API,
//     rate-limit and timeout errors are retried like a 529 or a 429; others
//     are not;
//   - an event stream (sent though none was asked for): not read, the
//     error says so;
//   - a body that is not JSON (an HTML page: the base URL is probably not
//     the API's): the error says what it is.
//
// A message is rewritten where langchaingo's client would fail on all of
// it or drop it (see normalizeMessage).
func checkMessage(resp *http.Response) (*http.Response, error) {
	raw, err := readReplyBody(resp)
	if err != nil {
		return nil, err
	}
	trimmed := trimBody(raw)
	var head struct {
		Type  string `json:"type"`
		Error *struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	switch {
	case json.Unmarshal(trimmed, &head) == nil && head.Type == "error" && head.Error != nil:
		transient := false
		switch head.Error.Type {
		case "overloaded_error", "api_error", "rate_limit_error", "timeout_error":
			transient = true
		}
		return nil, &replyError{msg: fmt.Sprintf("the server answered HTTP 200 with an error (%s): %s", head.Error.Type, head.Error.Message), transient: transient}
	case isEventStream(trimmed):
		return nil, &replyError{msg: fmt.Sprintf("the server answered with an event stream (though none was asked for), which is not read as a message (%s); does a proxy between lppctl and the API force streaming?", snippet(trimmed))}
	}
	var msg map[string]any
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	if err := dec.Decode(&msg); err != nil || msg == nil {
		what := "a body that is not a JSON object"
		if ct := strings.TrimSpace(strings.Split(resp.Header.Get("Content-Type"), ";")[0]); ct != "" && ct != "application/json" {
			what = ct + ", not JSON"
		}
		if terr := textError(trimmed, resp.Header.Get("Content-Type")); terr != nil {
			return nil, terr
		}
		return nil, &replyError{setup: true, msg: fmt.Sprintf("the server answered HTTP 200 with %s (%s); is ANTHROPIC_BASE_URL that of the API?", what, snippet(trimmed))}
	}
	normalizeMessage(msg)
	if out, err := json.Marshal(msg); err == nil {
		raw = out
	}
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	resp.ContentLength = int64(len(raw))
	resp.Header.Set("Content-Length", fmt.Sprint(len(raw)))
	resp.Header.Del("Content-Encoding")
	return resp, nil
}

// normalizeMessage rewrites an Anthropic message where langchaingo's client
// would fail on the whole reply or drop it:
//
//   - content blocks other than text, tool_use and thinking (redacted_thinking,
//     server_tool_use, web_search_tool_result, and types added later) fail
//     the client's decode ("unknown content type"): they are dropped, as
//     they are not the answer;
//   - a message left with no content block is dropped by the client, its
//     stop_reason and usage with it: it gets one empty text block, so that
//     an empty answer says why it is empty (stop_reason "refusal",
//     "max_tokens") and its tokens are counted;
//   - a tool_use input given as a JSON string becomes its object (anything
//     else that is not an object, {});
//   - usage numbers given as numeric strings become numbers, other values
//     are dropped (the tokens are then not reported); a stop_reason that is
//     not a string becomes its JSON text.
func normalizeMessage(msg map[string]any) {
	blocks, _ := msg["content"].([]any)
	kept := []any{}
	for _, b := range blocks {
		block, ok := b.(map[string]any)
		if !ok {
			continue
		}
		switch block["type"] {
		case "text":
			block["text"] = contentText(block["text"])
		case "tool_use":
			block["input"] = toolInput(block["input"])
			stringField(block, "id")
			stringField(block, "name")
		case "thinking":
			block["thinking"] = contentText(block["thinking"])
			stringField(block, "signature")
		default:
			continue
		}
		kept = append(kept, block)
	}
	if len(kept) == 0 {
		kept = append(kept, map[string]any{"type": "text", "text": ""})
	}
	msg["content"] = kept
	for _, k := range []string{"id", "model", "role", "type", "stop_reason", "stop_sequence"} {
		stringField(msg, k)
	}
	if u, ok := msg["usage"].(map[string]any); ok {
		normalizeUsage(u)
	} else {
		delete(msg, "usage")
	}
}

// toolInput is a tool_use block's input as an object.
func toolInput(v any) any {
	switch in := v.(type) {
	case map[string]any:
		return in
	case string:
		var m map[string]any
		if json.Unmarshal([]byte(in), &m) == nil && m != nil {
			return m
		}
	}
	return map[string]any{}
}
