package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
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
//     error says so.
func checkMessage(resp *http.Response) (*http.Response, error) {
	raw, err := readReplyBody(resp)
	if err != nil {
		return nil, err
	}
	trimmed := bytes.TrimSpace(raw)
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
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	resp.ContentLength = int64(len(raw))
	resp.Header.Set("Content-Length", fmt.Sprint(len(raw)))
	resp.Header.Del("Content-Encoding")
	return resp, nil
}
