// Package grow builds strings that grow at their end in place: a run's
// string that a set adds to (machine/concat.go) and the journal reader's
// (runstore's vars_concat). Each value is a string over bytes it shares with
// the next; the bytes are only ever written past the longest string handed
// out of them, so no string anyone holds changes.
package grow

import "unsafe"

// Room returns bytes that begin with cur and take n bytes in all without
// moving: own, when cur was made of own's bytes (String(own)) and own has
// the room, else new bytes of a capacity that depends on n alone (not on
// append's growth, which Go versions change: the Temporal engine counts on
// which values share their bytes being the same on every replay).
func Room(own []byte, cur string, n int) []byte {
	if len(own) == len(cur) && len(cur) > 0 && unsafe.StringData(cur) == &own[0] && n <= cap(own) {
		return own
	}
	b := make([]byte, len(cur), 2*n+64)
	copy(b, cur)
	return b
}

// String returns b as a string over the same bytes (b must not be empty,
// and its bytes must not change afterwards).
func String(b []byte) string { return unsafe.String(&b[0], len(b)) }
