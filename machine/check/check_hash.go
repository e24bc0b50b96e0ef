package check

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"
)

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
