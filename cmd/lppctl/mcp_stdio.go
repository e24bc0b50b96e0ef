package main

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// drainTimeout bounds how long the end of stdin waits for the answers to
// requests still being handled.
const drainTimeout = time.Minute

// inFlight counts the JSON-RPC requests read from an MCP client and not yet
// answered. A client may pipe a whole session and close its end at once
// (printf ... | lppctl mcp serve); the end of stdin then waits until every
// request has its answer, instead of dropping the answers still in progress.
type inFlight struct {
	mu   sync.Mutex
	n    int
	done chan struct{} // closed and replaced whenever n drops to 0
}

func newInFlight() *inFlight { return &inFlight{done: make(chan struct{})} }

func (f *inFlight) add(d int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n += d
	if f.n <= 0 {
		f.n = 0
		close(f.done)
		f.done = make(chan struct{})
	}
}

// wait returns when no request is in flight, or after timeout.
func (f *inFlight) wait(timeout time.Duration) {
	f.mu.Lock()
	if f.n == 0 {
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

// countingReader counts the requests in the client's lines and, at the end
// of the input, waits for their answers before reporting it.
type countingReader struct {
	r    io.Reader
	f    *inFlight
	line []byte
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.line = scanMessages(append(c.line, p[:n]...), func(m rpcShape) {
		if m.Method != "" && m.ID != nil {
			c.f.add(1)
		}
	})
	if err == io.EOF {
		c.f.wait(drainTimeout)
	}
	return n, err
}

func (c *countingReader) Close() error { return nil }

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
			c.f.add(-1)
		}
	})
	return n, err
}

func (c *countingWriter) Close() error { return nil }

// rpcShape is what counting needs of a JSON-RPC message.
type rpcShape struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
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
