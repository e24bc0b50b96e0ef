package check

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"sort"
)

// stateKey is the 128-bit hash of a (state, context) pair's canonical
// encoding: what the visited set keeps instead of the pair itself.
type stateKey [2]uint64

// hasher encodes (state, values) canonically and hashes the encoding twice,
// with independent seeds.
type hasher struct {
	buf    []byte
	s1, s2 maphash.Seed
}

func newHasher() *hasher { return &hasher{s1: maphash.MakeSeed(), s2: maphash.MakeSeed()} }

func (h *hasher) key(state int, vals []any) stateKey {
	b := binary.AppendUvarint(h.buf[:0], uint64(state))
	for _, v := range vals {
		b = appendValue(b, v)
	}
	h.buf = b
	return stateKey{maphash.Bytes(h.s1, b), maphash.Bytes(h.s2, b)}
}

// appendValue appends a canonical, type-tagged encoding of a value: equal
// values encode equally, maps with their keys sorted.
func appendValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, 'n')
	case bool:
		if x {
			return append(b, 't')
		}
		return append(b, 'f')
	case int:
		return binary.AppendVarint(append(b, 'i'), int64(x))
	case float64:
		return binary.LittleEndian.AppendUint64(append(b, 'd'), math.Float64bits(x))
	case string:
		b = binary.AppendUvarint(append(b, 's'), uint64(len(x)))
		return append(b, x...)
	case []any:
		b = binary.AppendUvarint(append(b, 'l'), uint64(len(x)))
		for _, e := range x {
			b = appendValue(b, e)
		}
		return b
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = binary.AppendUvarint(append(b, 'm'), uint64(len(x)))
		for _, k := range keys {
			b = appendValue(b, k)
			b = appendValue(b, x[k])
		}
		return b
	}
	s := fmt.Sprintf("%T:%#v", v, v)
	b = binary.AppendUvarint(append(b, 'x'), uint64(len(s)))
	return append(b, s...)
}
