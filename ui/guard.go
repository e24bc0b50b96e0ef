package ui

import (
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/lppctl/lppctl/internal/netx"
)

// TokenCookie holds the access token once a browser opened the URL with
// ?token= (--allow-non-loopback only).
const TokenCookie = "lppctl_ui_token"

// guard refuses, before anything else runs:
//   - a Host header that is not a loopback host (DNS rebinding: a page at
//     evil.example resolving to 127.0.0.1 sends Host evil.example), unless the
//     server was started with --allow-non-loopback;
//   - a request without the token, when the server has one;
//   - a request whose Origin is not this server's own (another site's page
//     calling the UI, whatever the method).
//
// Writes are also behind http.CrossOriginProtection (see Server.Handler).
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.opts.AllowNonLoopback && !netx.LoopbackHost(r.Host) {
			http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q (lppctl ui answers only Host 127.0.0.1, [::1] or localhost, optionally with :PORT; start it with --allow-non-loopback to serve other names)", r.Host), http.StatusForbidden)
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !sameOrigin(origin, r.Host) {
			http.Error(w, fmt.Sprintf("Forbidden: cross-origin request from Origin %q (lppctl ui answers only its own pages, at http://%s)", origin, r.Host), http.StatusForbidden)
			return
		}
		if s.opts.Token != "" && !s.tokenOK(w, r) {
			http.Error(w, "Unauthorized: this lppctl ui needs its token: open the URL it printed when it started (it ends with ?token=...)", http.StatusUnauthorized)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin") // no-referrer would make the browser send Origin: null with our own forms
		next.ServeHTTP(w, r)
	})
}

// tokenOK accepts the token from the cookie, an Authorization: Bearer
// header or ?token= (which then sets the cookie).
func (s *Server) tokenOK(w http.ResponseWriter, r *http.Request) bool {
	want := []byte(s.opts.Token)
	eq := func(got string) bool { return got != "" && subtle.ConstantTimeCompare([]byte(got), want) == 1 }
	if c, err := r.Cookie(TokenCookie); err == nil && eq(c.Value) {
		return true
	}
	if auth, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && eq(auth) {
		return true
	}
	if eq(r.URL.Query().Get("token")) {
		http.SetCookie(w, &http.Cookie{Name: TokenCookie, Value: s.opts.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		return true
	}
	return false
}

// fromAnotherSite reports whether the browser says a request was sent by
// another site's page (Sec-Fetch-Site cross-site or same-site: another
// port of localhost is same-site), not by the UI's own pages ("same-origin")
// or the person typing the URL ("none"). A request without the header (an
// older browser, curl) is not from another site's page: the Origin check of
// guard covers what those send.
func fromAnotherSite(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
		return false
	}
	return true
}

// sameOrigin reports whether an Origin header names the host the request
// was sent to (scheme http or https, the same host and port).
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Path != "" || u.RawQuery != "" {
		return false
	}
	return strings.EqualFold(u.Host, host)
}

// CheckAddr refuses a listen address that is not loopback unless
// allowNonLoopback (then a token is required: the caller makes one).
func CheckAddr(addr string, allowNonLoopback bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("cannot serve the UI on %s: write HOST:PORT, e.g. 127.0.0.1:8780 (port 0: any free one)", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("cannot serve the UI on %s: the port %q is not a number from 0 to 65535", addr, port)
	}
	if host == "localhost" {
		return nil
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	if err == nil && ip.IsLoopback() {
		return nil
	}
	if allowNonLoopback {
		return nil
	}
	return fmt.Errorf("cannot serve the UI on %s: not a loopback address; use 127.0.0.1:PORT, or --allow-non-loopback to serve other machines (a token is then required, printed in the URL)", addr)
}
