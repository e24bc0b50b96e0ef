package netx

import "testing"

func TestLoopbackHostAcceptsOnlyLoopbackWithAPort(t *testing.T) {
	for _, h := range []string{"127.0.0.1:8765", "127.0.0.1", "127.1.2.3:80", "localhost:1", "LOCALHOST:8765", "localhost", "[::1]:8765", "[::1]", "127.0.0.1:65535"} {
		if !LoopbackHost(h) {
			t.Errorf("%q refused", h)
		}
	}
	for _, h := range []string{
		"127.0.0.1:8765.evil.example", "127.0.0.1:8765 ", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:+80",
		"127.0.0.1:8765:1", "evil.example:8765", "evil.example", "localhost.evil.example:80", "127.0.0.1.evil.example",
		"::1", "[::1]x", "[::1]:", "[::1]:8765.evil", "[fe80::1%lo]:80", "[::ffff:127.0.0.1]:80", "", "10.0.0.1:80", "0x7f000001:80", "2130706433", "127.1:80",
	} {
		if LoopbackHost(h) {
			t.Errorf("%q accepted", h)
		}
	}
}
