package mcpserver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// startHTTP runs ServeHTTP on a free loopback port and returns its address.
func startHTTP(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- ServeHTTP(ctx, New(newLibrary(t), "test"), "127.0.0.1:0", func(a net.Addr) { addrc <- a })
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	select {
	case a := <-addrc:
		return a.String()
	case err := <-done:
		t.Fatal(err)
	case <-time.After(10 * time.Second):
		t.Fatal("server did not start")
	}
	return ""
}

// A Host header that only starts like a loopback one is refused (it was
// accepted: the port part was never checked).
func TestServeHTTPRefusesAHostThatIsNotLoopback(t *testing.T) {
	addr := startHTTP(t)
	_, port, _ := net.SplitHostPort(addr)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	for _, tt := range []struct {
		host string
		want int
	}{
		{"127.0.0.1:" + port, http.StatusOK},
		{"localhost:" + port, http.StatusOK},
		{"127.0.0.1:" + port + ".evil.example", http.StatusForbidden},
		{"evil.example:" + port, http.StatusForbidden},
	} {
		req, _ := http.NewRequest("POST", "http://"+addr, strings.NewReader(init))
		req.Host = tt.host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("Host %q: %s %s", tt.host, resp.Status, body)
		}
		if tt.want == http.StatusForbidden {
			want := fmt.Sprintf("Forbidden: invalid Host header %q (this server answers only Host 127.0.0.1, [::1] or localhost, optionally with :PORT)\n", tt.host)
			if string(body) != want {
				t.Errorf("Host %q: body %q\nwant %q", tt.host, body, want)
			}
		}
	}
}

// Connections that send their body slowly (or never) are answered 408 and
// closed once bodyTimeout has passed; they stayed open for good.
func TestServeHTTPClosesSlowBodies(t *testing.T) {
	defer func(d time.Duration) { bodyTimeout = d }(bodyTimeout)
	bodyTimeout = 300 * time.Millisecond
	addr := startHTTP(t)
	const conns = 10
	type answer struct {
		status string
		err    error
	}
	answers := make(chan answer, conns)
	for range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":", addr)
		go func() {
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			br := bufio.NewReader(c)
			status, err := br.ReadString('\n')
			if err == nil {
				_, err = io.Copy(io.Discard, br) // the server closes the connection
			}
			answers <- answer{strings.TrimSpace(status), err}
		}()
	}
	for range conns {
		a := <-answers
		if a.status != "HTTP/1.1 408 Request Timeout" || a.err != nil {
			t.Errorf("slow body: status %q, then %v", a.status, a.err)
		}
	}
}
