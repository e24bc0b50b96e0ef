package runstore

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"

	mspec "github.com/lppctl/lppctl/machine/spec"
)

// The byte-level JSON reading that fastStep's line decoder stands on
// (strings, numbers, nested values, RFC 3339 times), without reflection.

// jsonReader reads JSON values as encoding/json with UseNumber and
// machine.NormalizeJSON would, or says it cannot.
type jsonReader struct {
	b     []byte
	i     int
	names *interner
	// nested counts the lists and maps read inside another value.
	nested int
}

// interner hands out one string per distinct short text (state names, guards,
// variable names): a journal repeats them on every line. The last few it
// handed out are compared before the map is looked up.
type interner struct {
	m      map[string]string
	recent [4]string
	next   int
}

// intern returns b as a string, the same one for the same bytes.
func (n *interner) intern(b []byte) string {
	if n == nil || len(b) > 128 {
		return string(b)
	}
	for _, s := range n.recent {
		if s == string(b) {
			return s
		}
	}
	s, ok := n.m[string(b)]
	if !ok {
		s = string(b)
		if n.m == nil {
			n.m = map[string]string{}
		}
		if len(n.m) < 4096 {
			n.m[s] = s
		}
	}
	n.recent[n.next%len(n.recent)] = s
	n.next++
	return s
}

// name reads a string, interned when it has no escapes.
func (p *jsonReader) name() (string, bool) {
	start := p.i
	if b, ok := p.plainString(); ok {
		return p.names.intern(b), true
	}
	p.i = start
	v, ok := p.value(0)
	s, isStr := v.(string)
	return s, ok && isStr
}

func (p *jsonReader) space() {
	if p.i < len(p.b) && p.b[p.i] <= ' ' { // inlined: what the journal writes has no space
		p.skipSpace()
	}
}

func (p *jsonReader) skipSpace() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonReader) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *jsonReader) byte(c byte) bool {
	p.space()
	if p.peek() == c {
		p.i++
		return true
	}
	return false
}

func (p *jsonReader) word(w string) bool {
	if len(p.b)-p.i >= len(w) && string(p.b[p.i:p.i+len(w)]) == w {
		p.i += len(w)
		return true
	}
	return false
}

// plainString reads a string without escapes, of valid UTF-8 and no control
// characters; its bytes (without quotes) are valid until p.b changes. ASCII
// is checked 8 bytes at a time.
func (p *jsonReader) plainString() ([]byte, bool) {
	p.space()
	b := p.b
	if p.i >= len(b) || b[p.i] != '"' {
		return nil, false
	}
	start := p.i + 1
	j := start
	for j+8 <= len(b) && !mayEndPlain(binary.LittleEndian.Uint64(b[j:])) {
		j += 8
	}
	for ; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			p.i = j + 1
			return b[start:j], true
		case c >= 0x80:
			return p.plainUTF8(start, j)
		case notPlain[c]:
			return nil, false
		}
	}
	return nil, false
}

// plainUTF8 is plainString past its first byte that is not ASCII (at j).
func (p *jsonReader) plainUTF8(start, j int) ([]byte, bool) {
	end := bytes.IndexByte(p.b[j:], '"')
	if end < 0 {
		return nil, false
	}
	s := p.b[start : j+end]
	for _, c := range p.b[j : j+end] {
		if c < 0x80 && notPlain[c] {
			return nil, false
		}
	}
	if !utf8.Valid(s) {
		return nil, false
	}
	p.i = j + end + 1
	return s, true
}

// mayEndPlain reports whether one of the 8 bytes in w may be a quote, a
// backslash, a control character or not ASCII (it may say so of others:
// they are then looked at one by one).
func mayEndPlain(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote, backslash := w^(ones*'"'), w^(ones*'\\')
	return ((w-ones*0x20)|(quote-ones)|(backslash-ones)|w)&highs != 0
}

// notPlain marks the ASCII bytes a plain string cannot hold: control
// characters and the backslash.
var notPlain = func() (t [128]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['\\'] = true
	return t
}()

// int reads an integer that encoding/json would put in an int64.
func (p *jsonReader) int() (int64, bool) {
	p.space()
	start := p.i
	if !p.number() {
		return 0, false
	}
	if n, ok := smallInt(p.b[start:p.i]); ok {
		return n, true
	}
	n, err := strconv.ParseInt(string(p.b[start:p.i]), 10, 64)
	return n, err == nil
}

// smallInt reads a JSON number that is an integer of at most 18 digits (no
// overflow), as strconv.ParseInt would; false for anything else.
func smallInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false // a fraction or an exponent
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// memberName reads a member's name: a name of lower-case letters and
// underscores (what the journal writes) directly, anything else as
// plainString does.
func (p *jsonReader) memberName() ([]byte, bool) {
	p.space()
	b, i := p.b, p.i
	if i < len(b) && b[i] == '"' {
		for j := i + 1; j < len(b) && j <= i+16; j++ {
			c := b[j]
			if c == '"' && j > i+1 {
				p.i = j + 1
				return b[i+1 : j], true
			}
			if (c < 'a' || c > 'z') && c != '_' {
				break
			}
		}
	}
	return p.plainString()
}

// number skips a JSON number.
func (p *jsonReader) number() bool {
	b, i := p.b, p.i
	digits := func() bool {
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	p.i = i
	return true
}

// maxDepth bounds the nesting read here (deeper values go to encoding/json).
const maxDepth = 64

// value reads any JSON value.
func (p *jsonReader) value(depth int) (any, bool) {
	p.space()
	switch c := p.peek(); {
	case c == '"':
		start := p.i
		if s, ok := p.plainString(); ok {
			return string(s), true
		}
		// Escapes: encoding/json's own reading of the string.
		end, ok := p.stringEnd(start)
		if !ok {
			return nil, false
		}
		var s string
		if json.Unmarshal(p.b[start:end], &s) != nil {
			return nil, false
		}
		p.i = end
		return s, true
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == 't' && p.word("true"):
		return true, true
	case c == 'f' && p.word("false"):
		return false, true
	case c == 'n' && p.word("null"):
		return nil, true
	case c == '-' || (c >= '0' && c <= '9'):
		start := p.i
		if !p.number() {
			return nil, false
		}
		if n, ok := smallInt(p.b[start:p.i]); ok {
			return int(n), true // as NormalizeJSON reads it, without a json.Number
		}
		return mspec.NormalizeJSON(json.Number(p.b[start:p.i])), true
	}
	return nil, false
}

// stringEnd returns the end of the string starting at start (its opening
// quote), escapes skipped.
func (p *jsonReader) stringEnd(start int) (int, bool) {
	for j := start + 1; j < len(p.b); j++ {
		switch p.b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

func (p *jsonReader) object(depth int) (map[string]any, bool) {
	return p.objectInto(depth, nil)
}

// objectInto reads an object into m, an empty map (a new one when nil).
func (p *jsonReader) objectInto(depth int, m map[string]any) (map[string]any, bool) {
	if depth > maxDepth {
		return nil, false
	}
	p.space()
	if p.word("null") {
		return nil, true
	}
	if !p.byte('{') {
		return nil, false
	}
	if m == nil {
		m = map[string]any{}
	}
	if depth > 0 {
		p.nested++
	}
	if p.byte('}') {
		return m, true
	}
	for {
		key, ok := p.name()
		if !ok || !p.byte(':') {
			return nil, false
		}
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		m[key] = v
		if p.byte(',') {
			continue
		}
		if p.byte('}') {
			return m, true
		}
		return nil, false
	}
}

func (p *jsonReader) array(depth int) ([]any, bool) {
	if depth > maxDepth || !p.byte('[') {
		return nil, false
	}
	p.nested++
	xs := []any{}
	if p.byte(']') {
		return xs, true
	}
	for {
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		xs = append(xs, v)
		if p.byte(',') {
			continue
		}
		if p.byte(']') {
			return xs, true
		}
		return nil, false
	}
}

// skip reads past any JSON value without keeping it, checking it as value
// would.
func (p *jsonReader) skip(depth int) bool {
	p.space()
	switch c := p.peek(); {
	case c == '"':
		start := p.i
		if _, ok := p.plainString(); ok {
			return true
		}
		end, ok := p.stringEnd(start)
		if !ok || !json.Valid(p.b[start:end]) {
			return false
		}
		p.i = end
		return true
	case c == '{' || c == '[':
		if depth > maxDepth {
			return false
		}
		p.i++
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		if p.byte(closing) {
			return true
		}
		for {
			if c == '{' {
				p.space()
				if p.peek() != '"' || !p.skip(depth+1) || !p.byte(':') {
					return false
				}
			}
			if !p.skip(depth + 1) {
				return false
			}
			if p.byte(',') {
				continue
			}
			return p.byte(closing)
		}
	case c == 't':
		return p.word("true")
	case c == 'f':
		return p.word("false")
	case c == 'n':
		return p.word("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return false
}

// parseUTC reads a time in UTC as the journal writes it,
// 2006-01-02T15:04:05Z with 1 to 9 digits of fraction or none, as
// time.Time's UnmarshalJSON would; it reports false for anything else
// (UnmarshalJSON then reads it).
func parseUTC(b []byte) (time.Time, bool) {
	const n = len("2006-01-02T15:04:05")
	if len(b) < n+1 || b[len(b)-1] != 'Z' || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return time.Time{}, false
	}
	ok := true
	num := func(s []byte, lo, hi int) int {
		x := 0
		for _, c := range s {
			if c < '0' || c > '9' {
				ok = false
				return lo
			}
			x = x*10 + int(c-'0')
		}
		if x < lo || x > hi {
			ok = false
			return lo
		}
		return x
	}
	year, month := num(b[0:4], 0, 9999), num(b[5:7], 1, 12)
	day := num(b[8:10], 1, daysIn(month, year))
	hour, minute, sec := num(b[11:13], 0, 23), num(b[14:16], 0, 59), num(b[17:19], 0, 59)
	nsec := 0
	if frac := b[n : len(b)-1]; len(frac) > 0 {
		if len(frac) < 2 || len(frac) > 10 || frac[0] != '.' {
			return time.Time{}, false
		}
		nsec = num(frac[1:], 0, 999999999)
		for range 10 - len(frac) {
			nsec *= 10
		}
	}
	if !ok {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC), true
}

// daysIn returns the number of days in month of year (proleptic Gregorian).
func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
