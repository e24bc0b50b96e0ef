package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lppctl/lppctl/skills"
)

// ServeStdio serves srv over stdio (one JSON-RPC message per line on in and
// out, diagnostics on log) until the client closes in or ctx ends. A client
// that goes away is a normal end (nil).
//
// Between in and the SDK's transport sits a filter (stdioFilter) that answers
// what the SDK would otherwise end the session on, or silently drop:
//
//   - the SDK's IOTransport decodes stdin with one streaming json.Decoder
//     and ends the whole session at the first syntax error, without the
//     -32700 answer JSON-RPC asks for (upstream issue
//     https://github.com/modelcontextprotocol/go-sdk/issues/1209, fix
//     proposed in https://github.com/modelcontextprotocol/go-sdk/pull/1210);
//     it also ends the session for a JSON value that is no JSON-RPC message,
//     for a batch under protocol 2025-06-18 or later, and for a batch that
//     repeats an id;
//   - it never answers a request that reuses the id of one in progress;
//   - at the end of stdin it stops, dropping the answers still being worked
//     out (printf ... | lppctl mcp serve).
//
// When the SDK handles these itself, the filter can shrink to the framing
// conveniences (Content-Length headers, pretty-printed messages, a BOM).
func ServeStdio(ctx context.Context, srv *mcp.Server, in io.Reader, out, log io.Writer) error {
	f := newInFlight()
	w := &syncWriter{w: out}
	t := &mcp.IOTransport{Reader: newStdioFilter(in, w, log, f), Writer: &countingWriter{w: w, f: f}}
	err := srv.Run(ctx, t)
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil // the client went away: a normal end
	}
	return fmt.Errorf("cannot serve MCP: %w", err)
}

// initTimeout bounds how long a batch waits for the answer to an initialize
// still being handled (see batchesAllowed).
const initTimeout = 10 * time.Second

// drainTimeout bounds how long the end of stdin waits for the answers to
// requests still being handled.
const drainTimeout = time.Minute

// inFlight holds the ids of the JSON-RPC requests read from an MCP client
// and not yet answered. A client may pipe a whole session and close its end
// at once (printf ... | lppctl mcp serve); the end of stdin then waits until
// every request has its answer, instead of dropping the answers still in
// progress. The ids also let the filter refuse a request that reuses the id
// of one in progress, which the SDK would silently never answer.
//
// It also follows the initialize handshake: the protocol version the SDK
// agreed to is the one in its answer to a successful initialize, and
// whether a batch is allowed depends on it (see batchesAllowed).
type inFlight struct {
	mu   sync.Mutex
	ids  map[string]bool
	done chan struct{} // closed and replaced whenever ids becomes empty
	// inits holds the ids of initialize requests not yet answered;
	// initsDone is closed and replaced whenever inits becomes empty.
	inits     map[string]bool
	initsDone chan struct{}
	version   string // the version of the first successful initialize; "" before
}

func newInFlight() *inFlight {
	return &inFlight{ids: map[string]bool{}, done: make(chan struct{}), inits: map[string]bool{}, initsDone: make(chan struct{})}
}

// addInit records an initialize request passed on to the SDK.
func (f *inFlight) addInit(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inits[key] = true
}

// answered records the SDK's answer to the request key: when it answers an
// initialize, protocolVersion is the version it agreed to ("" for an error).
func (f *inFlight) answered(key, protocolVersion string) {
	f.mu.Lock()
	if f.inits[key] {
		delete(f.inits, key)
		if f.version == "" {
			f.version = protocolVersion
		}
		if len(f.inits) == 0 {
			close(f.initsDone)
			f.initsDone = make(chan struct{})
		}
	}
	f.mu.Unlock()
	f.remove(key)
}

// cancelled forgets a request the client cancelled (it may get no answer).
func (f *inFlight) cancelled(key string) { f.answered(key, "") }

// batchesAllowed reports whether the SDK takes a JSON-RPC batch now: before
// a successful initialize, or after one that agreed to a version before
// 2025-06-18 (the SDK ends the session for a batch otherwise). An
// initialize still being handled is waited for, up to timeout: the batch
// follows it, and its answer decides.
func (f *inFlight) batchesAllowed(timeout time.Duration) bool {
	f.mu.Lock()
	if len(f.inits) > 0 {
		done := f.initsDone
		f.mu.Unlock()
		select {
		case <-done:
		case <-time.After(timeout):
			return false // unknown: refusing the batch keeps the session
		}
		f.mu.Lock()
	}
	defer f.mu.Unlock()
	return f.version == "" || f.version < "2025-06-18"
}

// idKey identifies a request id (raw JSON) however it is spelled: "2" and
// 2 differ, "\u0041" and "A" do not. "" for no usable id.
func idKey(raw json.RawMessage) string {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return ""
	}
	switch v := v.(type) {
	case string:
		return "s:" + v
	case float64:
		if n, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64); err == nil {
			return "n:" + strconv.FormatInt(n, 10)
		}
		return "n:" + strconv.FormatFloat(v, 'g', -1, 64)
	}
	return ""
}

func (f *inFlight) busy(key string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ids[key]
}

func (f *inFlight) add(keys []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, k := range keys {
		f.ids[k] = true
	}
}

// remove forgets an answered (or cancelled) request.
func (f *inFlight) remove(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.ids[key] {
		return
	}
	delete(f.ids, key)
	if len(f.ids) == 0 {
		close(f.done)
		f.done = make(chan struct{})
	}
}

// wait returns when no request is in flight, or after timeout.
func (f *inFlight) wait(timeout time.Duration) {
	f.mu.Lock()
	if len(f.ids) == 0 {
		f.mu.Unlock()
		return
	}
	done := f.done
	f.mu.Unlock()
	select {
	case <-done:
	case <-time.After(timeout):
	}
}

// countingWriter counts the answers the server writes.
type countingWriter struct {
	w    io.Writer
	f    *inFlight
	line []byte
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.line = scanMessages(append(c.line, p[:n]...), func(m rpcShape) {
		if m.Method == "" && m.ID != nil {
			version := ""
			if m.Result != nil {
				version = m.Result.ProtocolVersion
			}
			c.f.answered(idKey(m.ID), version)
		}
	})
	return n, err
}

func (c *countingWriter) Close() error { return nil }

// rpcShape is what counting needs of a JSON-RPC message.
type rpcShape struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result *struct {
		ProtocolVersion string `json:"protocolVersion"`
	} `json:"result"`
}

// scanMessages calls fn for every message of every complete line of buf
// (a line holds one message or a batch) and returns the unfinished rest.
func scanMessages(buf []byte, fn func(rpcShape)) []byte {
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			if len(buf) > 1<<20 { // a line this long is not ours to count
				return buf[:0]
			}
			return buf
		}
		line := bytes.TrimSpace(buf[:i])
		buf = buf[i+1:]
		if len(line) == 0 {
			continue
		}
		if line[0] == '[' {
			var batch []rpcShape
			if json.Unmarshal(line, &batch) == nil {
				for _, m := range batch {
					fn(m)
				}
			}
			continue
		}
		var m rpcShape
		if json.Unmarshal(line, &m) == nil {
			fn(m)
		}
	}
}

// maxMessage bounds one message from the client; a longer line is answered
// with an error and skipped. (The SDK's own bound is 16 MiB and ends the
// session; every tool's arguments fit in far less.)
const maxMessage = 4 << 20

// JSON-RPC error codes the filter answers with.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// syncWriter serialises whole writes to the client: the SDK writes one
// message per Write, and the filter writes its own error answers.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// stdioFilter sits between the client's stdin and the SDK's transport,
// which ends the whole session at the first line it cannot decode. The
// filter hands the SDK only well-formed JSON-RPC messages, one per line,
// and answers everything else itself, as JSON-RPC asks:
//
//   - a line that is not JSON: a -32700 parse error (id null);
//   - JSON that is not a JSON-RPC message (no "jsonrpc":"2.0", an empty
//     batch, a bare string, ...): -32600 invalid request, with the
//     message's id when it has a usable one;
//   - a line over maxMessage: -32600, the line skipped;
//   - a message framed with Content-Length headers (as LSP does; some
//     clients send them by mistake): the headers are dropped and the body
//     read as one message, answered on a line like every other;
//   - a message spread over several lines (pretty-printed): joined;
//   - the end of input in the middle of a message: a parse error, then
//     the end;
//   - a UTF-8 byte order mark before a message: dropped.
//
// It also counts the requests it passes on and, at the end of the input,
// waits for their answers before reporting EOF (see inFlight).
type stdioFilter struct {
	r       *bufio.Reader
	out     io.Writer // the client's stdout (a syncWriter)
	log     io.Writer // stderr
	f       *inFlight
	pending []byte // the next message(s) for the SDK
	back    []byte // a line read ahead, to process next
	hasBack bool
	eof     bool
	warned  bool // the Content-Length warning was logged
}

func newStdioFilter(r io.Reader, out, log io.Writer, f *inFlight) *stdioFilter {
	return &stdioFilter{r: bufio.NewReaderSize(r, 64<<10), out: out, log: log, f: f}
}

func (s *stdioFilter) Read(p []byte) (int, error) {
	for len(s.pending) == 0 {
		if s.eof && !s.hasBack {
			s.f.wait(drainTimeout)
			return 0, io.EOF
		}
		s.next()
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

func (s *stdioFilter) Close() error { return nil }

// readLine returns the next line without its newline; tooLong reports a
// line over maxMessage, which is consumed but not returned. At the end of
// input it sets s.eof; the last line may lack its newline.
func (s *stdioFilter) readLine() (line []byte, tooLong bool) {
	if s.hasBack {
		s.hasBack = false
		return s.back, false
	}
	var buf []byte
	for {
		chunk, err := s.r.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > maxMessage+2 {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			s.eof = true
		}
		return bytes.TrimRight(buf, "\r\n"), tooLong
	}
}

// next reads the next message and either queues it for the SDK or answers it.
func (s *stdioFilter) next() {
	line, tooLong := s.readLine()
	if tooLong {
		s.answer(nil, codeInvalidRequest, fmt.Sprintf("Invalid Request: message longer than %d bytes", maxMessage))
		return
	}
	// A byte order mark (Windows shells put one before piped text) is not
	// part of the message.
	line = bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(line), []byte("\ufeff")))
	if len(line) == 0 {
		return
	}
	if n, ok := contentLength(line); ok {
		s.readFramed(n)
		return
	}
	msg := line
	if json.Valid(msg) || !incompleteJSON(msg) {
		s.handle(msg)
		return
	}
	// The beginning of a message: join the next lines until its outermost
	// bracket closes. Whether it became invalid on the way is checked again
	// whenever it has doubled in length since the last check, so a message
	// of many lines costs time linear in its length.
	var brackets nesting
	brackets.feed(msg)
	checked := len(msg)
	for !s.eof {
		more, tooLong := s.readLine()
		trimmed := bytes.TrimSpace(more)
		if tooLong || len(msg)+len(more) > maxMessage {
			break
		}
		if json.Valid(trimmed) && len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
			// A whole message of its own: msg was cut short.
			s.back, s.hasBack = trimmed, true
			s.answer(nil, codeParseError, "Parse error: a message is cut short (the next line is a message of its own)")
			return
		}
		msg = append(append(msg, '\n'), more...)
		brackets.feed([]byte{'\n'})
		brackets.feed(more)
		if brackets.closed() {
			break
		}
		if len(msg) >= 2*checked {
			checked = len(msg)
			if !incompleteJSON(msg) {
				break // a syntax error: handle answers it
			}
		}
	}
	s.handle(msg)
}

// readFramed reads the rest of a Content-Length framed message (the header
// lines up to the blank one, then n bytes) and handles its body.
func (s *stdioFilter) readFramed(n int) {
	if !s.warned {
		s.warned = true
		fmt.Fprintln(s.log, "lppctl: the client frames messages with Content-Length headers; MCP over stdio is one JSON message per line (reading the body, answering on lines)")
	}
	for !s.eof {
		h, _ := s.readLine()
		if len(bytes.TrimSpace(h)) == 0 {
			break
		}
	}
	if n > maxMessage {
		s.answer(nil, codeInvalidRequest, fmt.Sprintf("Invalid Request: message longer than %d bytes", maxMessage))
		io.CopyN(io.Discard, s.r, int64(n))
		return
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(s.r, body); err != nil {
		s.eof = true
		s.answer(nil, codeParseError, "Parse error: the input ended inside a message")
		return
	}
	s.handle(bytes.TrimSpace(body))
}

// contentLength recognises a "Content-Length: N" header line.
func contentLength(line []byte) (int, bool) {
	const h = "content-length:"
	if len(line) < len(h) || !strings.EqualFold(string(line[:len(h)]), h) {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(line[len(h):])))
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// incompleteJSON reports whether data is the beginning of a JSON value.
func incompleteJSON(data []byte) bool {
	var v json.RawMessage
	return errors.Is(json.NewDecoder(bytes.NewReader(data)).Decode(&v), io.ErrUnexpectedEOF)
}

// handle checks one message and queues it for the SDK, or answers it.
func (s *stdioFilter) handle(msg []byte) {
	if !json.Valid(msg) {
		if incompleteJSON(msg) {
			s.answer(nil, codeParseError, "Parse error: the input ended inside a message")
			return
		}
		var v any
		err := json.Unmarshal(msg, &v)
		s.answer(nil, codeParseError, "Parse error: "+err.Error())
		return
	}
	var calls []string // ids of the requests that expect an answer
	if msg[0] == '[' {
		var batch []json.RawMessage
		json.Unmarshal(msg, &batch)
		if len(batch) == 0 {
			s.answer(nil, codeInvalidRequest, "Invalid Request: empty batch")
			return
		}
		// The SDK ends the session for a batch in 2025-06-18 or later, or
		// for one that repeats an id.
		if !s.f.batchesAllowed(initTimeout) {
			s.answer(nil, codeInvalidRequest, "Invalid Request: JSON-RPC batches are not part of MCP 2025-06-18 and later; send the messages one by one")
			return
		}
		for i, raw := range batch {
			n, err := checkMessage(raw)
			if err != nil {
				s.answer(nil, codeInvalidRequest, fmt.Sprintf("Invalid Request: batch element %d: %v", i+1, err))
				return
			}
			if n == 0 {
				s.noticeCancel(raw)
				continue
			}
			id := messageID(raw)
			key := idKey(id)
			if slices.Contains(calls, key) {
				s.answer(nil, codeInvalidRequest, fmt.Sprintf("Invalid Request: batch element %d: id %s is used twice", i+1, id))
				return
			}
			if s.f.busy(key) {
				s.answer(nil, codeInvalidRequest, fmt.Sprintf("Invalid Request: batch element %d: id %s is the id of a request in progress", i+1, id))
				return
			}
			calls = append(calls, key)
			s.noticeInitialize(raw, key)
		}
	} else {
		n, err := checkMessage(msg)
		if err != nil {
			s.answer(messageID(msg), codeInvalidRequest, "Invalid Request: "+err.Error())
			return
		}
		if n > 0 {
			id := messageID(msg)
			key := idKey(id)
			if s.f.busy(key) {
				// The SDK would drop it silently.
				s.answer(id, codeInvalidRequest, fmt.Sprintf("Invalid Request: id %s is the id of a request in progress", id))
				return
			}
			calls = append(calls, key)
			s.noticeInitialize(msg, key)
		} else {
			s.noticeCancel(msg)
		}
	}
	s.f.add(calls)
	s.pending = append(append(s.pending, msg...), '\n')
}

// noticeCancel forgets a request the client cancels: the SDK may never
// answer it (MCP asks servers not to).
func (s *stdioFilter) noticeCancel(msg []byte) {
	var m struct {
		Method string `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &m) == nil && m.Method == "notifications/cancelled" {
		s.f.cancelled(idKey(m.Params.RequestID))
	}
}

// noticeInitialize records an initialize request (with id key) passed on to
// the SDK: whether later batches are allowed depends on the version its
// answer agrees to, which need not be the one asked for (an unknown
// version gets the SDK's latest) and does not count when the initialize
// fails (wrong params: the client may try again with another version).
func (s *stdioFilter) noticeInitialize(msg []byte, key string) {
	var m struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(msg, &m) == nil && m.Method == "initialize" {
		s.f.addInit(key)
	}
}

// checkMessage checks that raw (valid JSON) is a JSON-RPC 2.0 message the
// SDK accepts, and returns 1 for a request that expects an answer, else 0.
func checkMessage(raw json.RawMessage) (calls int, err error) {
	raw = bytes.TrimSpace(raw)
	if raw[0] != '{' {
		return 0, fmt.Errorf("a message is a JSON object, not %s", skills.JSONKind(raw[0]))
	}
	var head struct {
		JSONRPC json.RawMessage `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
	}
	json.Unmarshal(raw, &head)
	if string(head.JSONRPC) != `"2.0"` {
		if len(head.JSONRPC) == 0 {
			return 0, errors.New(`"jsonrpc": "2.0" is missing`)
		}
		return 0, fmt.Errorf(`"jsonrpc" must be "2.0", not %s`, head.JSONRPC)
	}
	// MCP ids are strings or integers; the SDK takes a null id for a
	// notification and never answers a fractional one.
	if len(head.ID) > 0 && head.ID[0] != '"' {
		if _, err := strconv.ParseInt(string(head.ID), 10, 64); err != nil {
			return 0, fmt.Errorf("id must be a string or an integer, not %s", head.ID)
		}
	}
	m, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		return 0, err
	}
	if r, ok := m.(*jsonrpc.Request); ok && r.ID.IsValid() {
		return 1, nil
	}
	return 0, nil
}

// messageID returns the id of an object with a string or number "id", or nil.
func messageID(msg []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(msg, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	switch m.ID[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return m.ID
	}
	return nil
}

// answer writes a JSON-RPC error response to the client, and says why on stderr.
func (s *stdioFilter) answer(id json.RawMessage, code int, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	data, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	s.out.Write(append(data, '\n'))
	fmt.Fprintf(s.log, "lppctl: answered a malformed message from the client: %s\n", message)
}
