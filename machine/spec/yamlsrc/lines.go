package yamlsrc

import "sync"

// SourceLine returns line number line (1-based) of src, without its line
// break ("" when there is no such line). Lines are counted as YAML counts
// them (so positions from the decoder match): a line ends at LF, CRLF, a
// lone CR, NEL (U+0085), LS (U+2028) or PS (U+2029).
func SourceLine(src []byte, line int) string {
	return string(LineBytes(src, line))
}

// LineBytes is SourceLine without the copy: a part of src.
func LineBytes(src []byte, line int) []byte {
	if line <= 0 || len(src) == 0 {
		return nil
	}
	lines := LineIndex(src)
	if line > len(lines) {
		return nil
	}
	return src[lines[line-1][0]:lines[line-1][1]]
}

// LineCount returns the number of lines of src, counted as SourceLine does.
func LineCount(src []byte) int {
	if len(src) == 0 {
		return 0
	}
	return len(LineIndex(src))
}

// lineCache holds the line index of the last source SourceLine read: a
// report on a large spec reads many of its lines.
var lineCache struct {
	sync.Mutex
	data  *byte
	n     int
	lines [][2]int
}

// LineIndex returns the [start, end) offsets of each line of src (not empty).
func LineIndex(src []byte) [][2]int {
	lineCache.Lock()
	defer lineCache.Unlock()
	if lineCache.data == &src[0] && lineCache.n == len(src) {
		return lineCache.lines
	}
	var lines [][2]int
	start := 0
	for i := 0; i < len(src); i++ {
		brk := 0
		switch c := src[i]; {
		case c == '\n':
			brk = 1
		case c == '\r':
			brk = 1
			if i+1 < len(src) && src[i+1] == '\n' {
				brk = 2
			}
		case c == 0xc2 && i+1 < len(src) && src[i+1] == 0x85:
			brk = 2
		case c == 0xe2 && i+2 < len(src) && src[i+1] == 0x80 && (src[i+2] == 0xa8 || src[i+2] == 0xa9):
			brk = 3
		}
		if brk > 0 {
			lines = append(lines, [2]int{start, i})
			i += brk - 1
			start = i + 1
		}
	}
	lines = append(lines, [2]int{start, len(src)})
	lineCache.data, lineCache.n, lineCache.lines = &src[0], len(src), lines
	return lines
}
