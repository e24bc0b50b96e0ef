package runstore

import (
	"time"

	"github.com/lppctl/lppctl/machine"
)

// fastStep decodes a step line as decodeJSON would, without reflection, for
// the lines most of a journal is made of: a step that only routes, changes
// context variables or appends to lists. It reports false for anything else
// (a member it does not know, memory operations, notes, an answer, an
// escape it would have to interpret, malformed JSON...), and the line is
// then decoded by encoding/json: a line it accepts decodes to the same
// entry (TestFastStepDecodesAsEncodingJSON, FuzzFastStep).
//
// With heads set, the line's variables (vars and deltas) are checked as
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
		if heads && (key == "vars" || key == "vars_append" || key == "vars_patch" || key == "vars_concat") {
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
			start := p.i
			m, ok := p.objectInto(0, vars)
			if !ok {
				return nil, false
			}
			rec.Vars, w.scalars, w.short = m, p.nested == 0, p.i-start < refMin
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
		case "vars_concat":
			m, ok := p.object(0)
			if !ok {
				return nil, false
			}
			if m != nil { // null: none, as encoding/json reads it
				w.Concat = make(map[string]string, len(m))
			}
			for name, v := range m {
				s, ok := v.(string)
				if !ok {
					return nil, false
				}
				w.Concat[name] = s
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
			switch b[6] {
			case 'p':
				k = "vars_patch"
			case 'c':
				k = "vars_concat"
			default:
				k = "vars_append"
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
	case "vars_concat":
		return 1 << 17
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
