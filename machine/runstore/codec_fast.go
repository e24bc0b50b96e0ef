package runstore

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// fastStep decodes a step line as decodeJSON would, without reflection, for
// the lines most of a journal is made of: a step that only routes, changes
// context variables or appends to lists. It reports false for anything else
// (a member it does not know, memory operations, notes, an answer, an
// escape it would have to interpret, malformed JSON...), and the line is
// then decoded by encoding/json: a line it accepts decodes to the same
// entry (TestFastStepDecodesAsEncodingJSON, FuzzFastStep).
//
// With heads set, the line's variables (vars, vars_append) are checked as
// JSON but not read: the entry has none (see decoder.heads).
func fastStep(text []byte, names *interner, heads bool) (*wireEntry, bool) {
	return fastStepInto(text, names, heads, &stepBuf{}) // one allocation for the three
}

// stepBuf holds what fastStepInto reads a line into.
type stepBuf struct {
	w     wireEntry
	e     Entry
	rec   machine.Record
	vars  map[string]any // the vars map, kept from line to line (reuse)
	reuse bool
}

// fastStepInto is fastStep reading the line into one, which it resets
// first: a decoder that hands each entry to a reader that keeps nothing of
// it (Recover, Replay) reads every line into the same one, its vars map
// included, without allocating.
func fastStepInto(text []byte, names *interner, heads bool, one *stepBuf) (*wireEntry, bool) {
	p := jsonReader{b: text, names: names}
	vars := one.vars
	*one = stepBuf{vars: vars, reuse: one.reuse}
	w, e, rec := &one.w, &one.e, &one.rec
	w.Entry, e.Record = e, rec
	seen, seenBits := false, uint32(0)
	if !p.byte('{') {
		return nil, false
	}
	for first := true; ; first = false {
		p.space()
		if p.peek() == '}' && first {
			return nil, false
		}
		if !first && !p.byte(',') {
			if p.byte('}') {
				break
			}
			return nil, false
		}
		key, ok := p.knownMember()
		if !ok {
			name, ok := p.memberName()
			if !ok || !p.byte(':') {
				return nil, false
			}
			key = string(name)
		}
		p.space()
		bit := memberBit(key)
		if bit == 0 || seenBits&bit != 0 {
			return nil, false // a member twice: encoding/json merges objects
		}
		seenBits |= bit
		if heads && (key == "vars" || key == "vars_append" || key == "vars_patch") {
			if c := p.peek(); c != '{' && c != 'n' || !p.skip(0) {
				return nil, false
			}
			continue
		}
		switch key {
		case "type":
			s, ok := p.plainString()
			if !ok || string(s) != EntryStep {
				return nil, false
			}
			e.Type = EntryStep
		case "seq":
			n, ok := p.int()
			if !ok {
				return nil, false
			}
			rec.Seq, seen = int(n), true
		case "from", "to", "via", "guard", "event", "action", "error", "warn":
			s, ok := p.name()
			if !ok {
				return nil, false
			}
			switch key {
			case "from":
				rec.From = s
			case "to":
				rec.To = s
			case "via":
				rec.Via = s
			case "guard":
				rec.Guard = s
			case "event":
				rec.Event = s
			case "action":
				rec.Action = s
			case "error":
				rec.Error = s
			case "warn":
				rec.Warn = s
			}
		case "vars":
			if vars != nil {
				clear(vars)
			} else if one.reuse {
				vars = map[string]any{}
				one.vars = vars
			}
			m, ok := p.objectInto(0, vars)
			if !ok {
				return nil, false
			}
			rec.Vars, w.scalars = m, p.nested == 0
		case "start":
			start := p.i
			if _, ok := p.plainString(); !ok {
				return nil, false
			}
			if t, ok := parseUTC(text[start+1 : p.i-1]); ok {
				rec.Start = t
			} else if rec.Start.UnmarshalJSON(text[start:p.i]) != nil {
				return nil, false
			}
		case "duration":
			n, ok := p.int()
			if !ok {
				return nil, false
			}
			rec.Duration = time.Duration(n)
		case "end":
			switch {
			case p.word("true"):
				rec.End = true
			case p.word("false"):
				rec.End = false
			default:
				return nil, false
			}
		case "vars_append":
			m, ok := p.object(0)
			if !ok {
				return nil, false
			}
			w.items = make(map[string][]any, len(m))
			for name, v := range m {
				xs, ok := v.([]any)
				if !ok {
					return nil, false
				}
				w.items[name] = xs
			}
		case "vars_patch":
			ps, ok := p.patches()
			if !ok {
				return nil, false
			}
			w.patched = ps
		case "crc":
			if _, ok := p.plainString(); !ok {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	p.space()
	if p.i != len(text) || e.Type != EntryStep || !seen {
		return nil, false
	}
	return w, true
}

// knownMember reads the name of a member fastStep reads and its colon,
// written as the journal writes them (`"from":`), telling the name by its
// first letters; it reports false, having read nothing, for anything else
// (memberName then reads it).
func (p *jsonReader) knownMember() (string, bool) {
	b := p.b[p.i:]
	if len(b) < 5 || b[0] != '"' {
		return "", false
	}
	var k string
	switch b[1] {
	case 't':
		k = "to"
		if b[2] == 'y' {
			k = "type"
		}
	case 's':
		k = "start"
		if b[2] == 'e' {
			k = "seq"
		}
	case 'f':
		k = "from"
	case 'v':
		switch {
		case b[2] == 'i':
			k = "via"
		case b[4] == 's' && len(b) > 6 && b[5] == '_':
			k = "vars_append"
			if b[6] == 'p' {
				k = "vars_patch"
			}
		default:
			k = "vars"
		}
	case 'g':
		k = "guard"
	case 'e':
		switch b[2] {
		case 'v':
			k = "event"
		case 'r':
			k = "error"
		default:
			k = "end"
		}
	case 'a':
		k = "action"
	case 'w':
		k = "warn"
	case 'd':
		k = "duration"
	case 'c':
		k = "crc"
	default:
		return "", false
	}
	n := len(k)
	if len(b) < n+3 || b[n+1] != '"' || b[n+2] != ':' || string(b[1:n+1]) != k {
		return "", false
	}
	p.i += n + 3
	return k, true
}

// memberBit numbers the members fastStep reads (0: another).
func memberBit(key string) uint32 {
	switch key {
	case "type":
		return 1 << 0
	case "seq":
		return 1 << 1
	case "from":
		return 1 << 2
	case "to":
		return 1 << 3
	case "via":
		return 1 << 4
	case "guard":
		return 1 << 5
	case "event":
		return 1 << 6
	case "action":
		return 1 << 7
	case "error":
		return 1 << 8
	case "warn":
		return 1 << 9
	case "vars":
		return 1 << 10
	case "start":
		return 1 << 11
	case "duration":
		return 1 << 12
	case "end":
		return 1 << 13
	case "vars_append":
		return 1 << 14
	case "crc":
		return 1 << 15
	case "vars_patch":
		return 1 << 16
	}
	return 0
}

// patches reads vars_patch, `{"NAME":{"set":{...},"del":[...]},...}`, as
// encoding/json reads it into map[string]*MapPatch, the values of "set"
// decoded; it says it cannot for anything else (a member other than "set"
// and "del", or one twice, a null patch).
func (p *jsonReader) patches() (map[string]*keysPatch, bool) {
	if !p.byte('{') {
		return nil, false
	}
	out := map[string]*keysPatch{}
	if p.byte('}') {
		return out, true
	}
	for {
		name, ok := p.name()
		if !ok || !p.byte(':') {
			return nil, false
		}
		if _, twice := out[name]; twice {
			return nil, false
		}
		kp, ok := p.patch()
		if !ok {
			return nil, false
		}
		out[name] = kp
		if p.byte(',') {
			continue
		}
		if p.byte('}') {
			return out, true
		}
		return nil, false
	}
}

func (p *jsonReader) patch() (*keysPatch, bool) {
	if !p.byte('{') {
		return nil, false
	}
	kp := &keysPatch{}
	if p.byte('}') {
		return kp, true
	}
	var seenSet, seenDel bool
	for {
		key, ok := p.name()
		if !ok || !p.byte(':') {
			return nil, false
		}
		switch {
		case key == "set" && !seenSet:
			seenSet = true
			if kp.set, ok = p.object(1); !ok {
				return nil, false
			}
		case key == "del" && !seenDel:
			seenDel = true
			p.space()
			if p.word("null") {
				break
			}
			xs, ok := p.array(1)
			if !ok {
				return nil, false
			}
			kp.del = make([]string, len(xs))
			for i, x := range xs {
				if kp.del[i], ok = x.(string); !ok {
					return nil, false
				}
			}
		default:
			return nil, false
		}
		if p.byte(',') {
			continue
		}
		if p.byte('}') {
			return kp, true
		}
		return nil, false
	}
}

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
