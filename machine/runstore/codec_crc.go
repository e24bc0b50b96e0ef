package runstore

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
)

// Each journal line ends with its CRC-32C (see codec.go): writing it and
// checking it.

// crcTable is CRC-32C's table.
var crcTable = crc32.MakeTable(crc32.Castagnoli)

// crcSuffixLen is the length of `,"crc":"xxxxxxxx"}`.
const crcSuffixLen = len(`,"crc":"`) + 8 + len(`"}`)

// withCRC turns `{...}\n` into `{...,"crc":"xxxxxxxx"}\n` (a new slice).
func withCRC(b []byte) []byte { return appendCRC(nil, b) }

// appendCRC appends `{...}\n` with its checksum, as withCRC, to out.
func appendCRC(out, b []byte) []byte {
	b = bytes.TrimRight(b, "\n")
	sum := crc32.Checksum(b, crcTable)
	out = slices.Grow(out, len(b)+crcSuffixLen+1)
	out = append(out, b[:len(b)-1]...)
	out = append(out, `,"crc":"`...)
	out = fmt.Appendf(out, "%08x", sum)
	return append(out, "\"}\n"...)
}

// checkLineCRC verifies a line's checksum. has reports whether it carries one.
func checkLineCRC(text []byte) (has bool, err error) {
	n := len(text)
	if n < crcSuffixLen+2 || !bytes.HasPrefix(text[n-crcSuffixLen:], []byte(`,"crc":"`)) || !bytes.HasSuffix(text, []byte(`"}`)) {
		return false, nil
	}
	want, ok := parseHex8(text[n-10 : n-2])
	if !ok {
		return true, fmt.Errorf("its checksum %q is not 8 hex digits", text[n-10:n-2])
	}
	got := crc32.Update(crc32.Checksum(text[:n-crcSuffixLen], crcTable), crcTable, []byte{'}'})
	if got != uint32(want) {
		return true, fmt.Errorf("%w: the line's checksum is %08x but it was written with %08x: it was changed after it was written (a flipped byte, an edit), and the run cannot be rebuilt from it", errDamaged, got, want)
	}
	return true, nil
}

var errDamaged = errors.New("damaged line")

// parseHex8 reads 8 hex digits (either case), as strconv.ParseUint(s, 16, 32)
// would, without a string.
func parseHex8(b []byte) (uint32, bool) {
	if len(b) != 8 {
		return 0, false
	}
	var v uint32
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		v = v<<4 | uint32(c)
	}
	return v, true
}
