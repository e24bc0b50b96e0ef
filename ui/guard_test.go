package ui

import (
	"net/http"
	"strings"
	"testing"
)

func TestGuardRefusesForeignHostsAndOrigins(t *testing.T) {
	f := newFixture(t, Options{})
	tests := []struct {
		name   string
		method string
		hdr    []string
		status int
		body   string
	}{
		{"loopback host", "GET", nil, 200, ""},
		{"localhost", "GET", []string{"Host", "localhost:8780"}, 200, ""},
		{"ipv6 loopback", "GET", []string{"Host", "[::1]:8780"}, 200, ""},
		{"rebinding host", "GET", []string{"Host", "evil.example:8780"}, 403,
			`Forbidden: invalid Host header "evil.example:8780" (lppctl ui answers only Host 127.0.0.1, [::1] or localhost, optionally with :PORT; start it with --allow-non-loopback to serve other names)`},
		{"loopback-looking host", "GET", []string{"Host", "127.0.0.1:8780.evil.example"}, 403, `Forbidden: invalid Host header "127.0.0.1:8780.evil.example"`},
		{"foreign origin reading", "GET", []string{"Origin", "http://evil.example"}, 403,
			`Forbidden: cross-origin request from Origin "http://evil.example" (lppctl ui answers only its own pages, at http://127.0.0.1:8780)`},
		{"null origin", "POST", []string{"Origin", "null"}, 403, `Forbidden: cross-origin request from Origin "null"`},
		{"another port", "POST", []string{"Origin", "http://127.0.0.1:9999"}, 403, `Forbidden: cross-origin request from Origin "http://127.0.0.1:9999"`},
		{"cross-site write without origin", "POST", []string{"Origin", "", "Sec-Fetch-Site", "cross-site"}, 403, "cross-origin request detected from Sec-Fetch-Site header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := "/"
			if tt.method == "POST" {
				target = "/runs/x/decide"
			}
			w := f.do(tt.method, target, "pause_step=1&kind=approve", tt.hdr...)
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.status, w.Body)
			}
			if tt.body != "" && !strings.Contains(w.Body.String(), tt.body) {
				t.Errorf("body %q, want it to contain %q", w.Body, tt.body)
			}
		})
	}
	if len(f.got) != 0 {
		t.Errorf("refused requests reached Decide: %v", f.got)
	}
}

func TestTokenIsRequiredWhenSet(t *testing.T) {
	f := newFixture(t, Options{Token: "s3cret", AllowNonLoopback: true})
	const unauthorized = "Unauthorized: this lppctl ui needs its token: open the URL it printed when it started (it ends with ?token=...)\n"
	if w := f.do("GET", "/", "", "Host", "lab.example:8780"); w.Code != http.StatusUnauthorized || w.Body.String() != unauthorized {
		t.Fatalf("no token: %d %q", w.Code, w.Body)
	}
	if w := f.do("GET", "/?token=wrong", "", "Host", "lab.example:8780"); w.Code != http.StatusUnauthorized {
		t.Fatalf("wrong token: %d", w.Code)
	}
	w := f.do("GET", "/?token=s3cret", "", "Host", "lab.example:8780")
	if w.Code != http.StatusOK {
		t.Fatalf("right token: %d %s", w.Code, w.Body)
	}
	cookie := w.Result().Cookies()
	if len(cookie) != 1 || cookie[0].Name != TokenCookie || !cookie[0].HttpOnly || cookie[0].SameSite != http.SameSiteStrictMode {
		t.Fatalf("cookie %+v, want an HttpOnly SameSite=Strict %s", cookie, TokenCookie)
	}
	if w := f.do("GET", "/", "", "Host", "lab.example:8780", "Cookie", TokenCookie+"=s3cret"); w.Code != http.StatusOK {
		t.Errorf("cookie: %d", w.Code)
	}
	if w := f.do("GET", "/", "", "Host", "lab.example:8780", "Authorization", "Bearer s3cret"); w.Code != http.StatusOK {
		t.Errorf("bearer: %d", w.Code)
	}
}

func TestCheckAddr(t *testing.T) {
	tests := []struct {
		addr  string
		allow bool
		err   string
	}{
		{"127.0.0.1:8780", false, ""},
		{"localhost:0", false, ""},
		{"[::1]:8780", false, ""},
		{"0.0.0.0:8780", false, "cannot serve the UI on 0.0.0.0:8780: not a loopback address; use 127.0.0.1:PORT, or --allow-non-loopback to serve other machines (a token is then required, printed in the URL)"},
		{":8780", false, "cannot serve the UI on :8780: not a loopback address; use 127.0.0.1:PORT, or --allow-non-loopback to serve other machines (a token is then required, printed in the URL)"},
		{"0.0.0.0:8780", true, ""},
		{"127.0.0.1:99999", false, `cannot serve the UI on 127.0.0.1:99999: the port "99999" is not a number from 0 to 65535`},
		{"127.0.0.1:http", false, `cannot serve the UI on 127.0.0.1:http: the port "http" is not a number from 0 to 65535`},
		{"127.0.0.1", false, "cannot serve the UI on 127.0.0.1: write HOST:PORT, e.g. 127.0.0.1:8780 (port 0: any free one)"},
		{"0.0.0.0:-1", true, `cannot serve the UI on 0.0.0.0:-1: the port "-1" is not a number from 0 to 65535`},
	}
	for _, tt := range tests {
		err := CheckAddr(tt.addr, tt.allow)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.err {
			t.Errorf("CheckAddr(%q, %v) = %q, want %q", tt.addr, tt.allow, got, tt.err)
		}
	}
}
