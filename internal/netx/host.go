// Package netx holds the network checks lppctl's local servers share (the
// MCP server's --http and the web UI): a leaf package, like the rest of
// internal/.
package netx

import (
	"net/netip"
	"strings"
)

// LoopbackHost parses a Host header strictly: a loopback IPv4 address or
// localhost, or a bracketed IPv6 loopback address, then nothing or ":" and
// a port number (1-65535, digits only).
func LoopbackHost(h string) bool {
	host, port := h, ""
	if strings.HasPrefix(h, "[") {
		end := strings.IndexByte(h, ']')
		if end < 0 {
			return false
		}
		host, port = h[1:end], h[end+1:]
		if port != "" && !strings.HasPrefix(port, ":") {
			return false
		}
		port = strings.TrimPrefix(port, ":")
		if port == "" && strings.HasSuffix(h, ":") || port != "" && !ValidPort(port) {
			return false
		}
		ip, err := netip.ParseAddr(host)
		return err == nil && ip.Is6() && !ip.Is4In6() && ip.Zone() == "" && ip.IsLoopback()
	}
	if i := strings.IndexByte(h, ':'); i >= 0 {
		host, port = h[:i], h[i+1:]
		if !ValidPort(port) {
			return false
		}
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Is4() && ip.IsLoopback()
}

// ValidPort accepts a decimal port number 1-65535 without sign or spaces.
func ValidPort(p string) bool {
	if p == "" || len(p) > 5 {
		return false
	}
	n := 0
	for _, c := range p {
		if c < '0' || c > '9' {
			return false
		}
		n = n*10 + int(c-'0')
	}
	return n >= 1 && n <= 65535
}
