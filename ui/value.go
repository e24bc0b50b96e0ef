package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/lppctl/lppctl/machine"
)

// How values are shown: a string as text (wrapped by the stylesheet) whose
// first textCap characters show and the rest behind "show all"; an object
// or array as a tree of foldable nodes, those with more than foldAbove
// members folded below the top level.
//
// A page shows a value within bounds, whatever its size: at most so many
// members of one object or array (an array's first and last ones: what a
// list that grows appended last shows), so many members of one value in
// all, and showChars characters of a string behind "show all"; the rest is
// said, not shown ("… 99,800 more items …"). A run whose list grew to
// 100,000 items made a 50-step timeline page of 204 MB.
const (
	textCap   = 2000
	foldAbove = 12
	showChars = 100_000
)

// bounds are how much of one value a page shows.
type bounds struct {
	members int // of one object or array
	budget  int // of the value, nested members included
}

var (
	// contextBounds show a value once on the page: the context, memory.
	contextBounds = bounds{members: 1000, budget: 5000}
	// stepBounds show the values a step set, on each of a page's steps.
	stepBounds = bounds{members: 100, budget: 400}
)

// showJSON renders a JSON value for the page: strings as text, objects and
// arrays as a foldable tree, everything escaped. A value that is not JSON
// shows as text.
func showJSON(raw []byte) template.HTML {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return showText(string(raw))
	}
	return showAny(v)
}

// rawItems is a list of JSON values (a memory slot's items) shown as
// showJSON shows their array, each item decoded only when it is shown.
type rawItems []json.RawMessage

// decodeRaw decodes a JSON value as showJSON does (numbers as json.Number);
// one that is not JSON is its text.
func decodeRaw(raw json.RawMessage) any {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return string(raw)
	}
	return v
}

// showAny renders a Go value (a context variable) as showJSON renders its
// JSON, reading only the parts it shows (a value of another type than
// JSON's is shown as its JSON).
func showAny(v any) template.HTML { return showWithin(v, contextBounds) }

// showWithin renders v as showAny does, within bd.
func showWithin(v any, bd bounds) template.HTML {
	s := &shower{members: bd.members, budget: bd.budget}
	s.value(v, 0)
	return template.HTML(s.b.String()) // #nosec: built from escaped parts only
}

// showText renders a string as wrapped text, capped at textCap characters
// with the rest behind a "show all" fold.
func showText(s string) template.HTML {
	var b strings.Builder
	writeText(&b, s)
	return template.HTML(b.String()) // #nosec: escaped
}

func writeText(b *strings.Builder, s string) {
	n := utf8.RuneCountInString(s)
	if n <= textCap {
		fmt.Fprintf(b, `<pre class="text">%s</pre>`, html.EscapeString(s))
		return
	}
	cut, end := runeOffset(s, textCap), len(s)
	rest := ""
	if n > showChars {
		end = runeOffset(s, showChars)
		rest = fmt.Sprintf(`<p class="elided">… %s more characters, not shown</p>`, thousands(n-showChars))
	}
	fmt.Fprintf(b, `<div class="capped"><pre class="text">%s</pre><details class="more"><summary>show all %d characters</summary><pre class="text">%s</pre>%s</details></div>`,
		html.EscapeString(s[:cut]), n, html.EscapeString(s[cut:end]), rest)
}

// runeOffset is the byte offset of s's rune n (len(s) when s has fewer).
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// thousands writes n with commas: 99,800.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// shower writes one value within its bounds.
type shower struct {
	b       strings.Builder
	members int // bounds.members
	budget  int // the members that may still be shown
}

// value writes v.
func (s *shower) value(v any, depth int) {
	switch x := v.(type) {
	case string:
		if x == "" {
			s.b.WriteString(`<code class="j-lit">""</code>`)
			return
		}
		if depth == 0 {
			writeText(&s.b, x)
			return
		}
		if !strings.Contains(x, "\n") && utf8.RuneCountInString(x) <= 200 {
			fmt.Fprintf(&s.b, `<span class="j-str">%s</span>`, html.EscapeString(quote(x)))
			return
		}
		writeText(&s.b, x)
	case map[string]any:
		keys := slices.Sorted(maps.Keys(x))
		s.node(depth, "{", "}", len(keys), count(len(keys), "key"), func(i int) (string, any) { return keys[i], x[keys[i]] })
	case []any:
		s.node(depth, "[", "]", len(x), count(len(x), "item"), func(i int) (string, any) { return "", x[i] })
	case rawItems:
		s.node(depth, "[", "]", len(x), count(len(x), "item"), func(i int) (string, any) { return "", decodeRaw(x[i]) })
	case appendedList:
		s.node(depth, "[", "]", len(x.list), count(len(x.list), "item")+", "+thousands(len(x.list)-x.before)+" appended",
			func(i int) (string, any) { return "", x.list[i] })
	case changedKeys:
		s.changed(depth, x)
	case addedText:
		fmt.Fprintf(&s.b, `<p class="elided">… %s bytes before, not shown; added:</p>`, thousands(x.before))
		writeText(&s.b, x.s[x.before:])
	case removedKey:
		s.b.WriteString(`<code class="j-null">(removed)</code>`)
	case nil:
		s.b.WriteString(`<code class="j-null">null</code>`)
	case bool, int, int64, json.Number:
		fmt.Fprintf(&s.b, `<code class="j-lit">%s</code>`, html.EscapeString(fmt.Sprint(x)))
	default: // a float (as JSON writes it), or a Go value of another type: as its JSON
		raw, err := json.Marshal(x)
		if err != nil {
			writeText(&s.b, fmt.Sprint(x))
			return
		}
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		var y any
		if d.Decode(&y) != nil {
			writeText(&s.b, string(raw))
			return
		}
		if _, ok := y.(json.Number); ok {
			fmt.Fprintf(&s.b, `<code class="j-lit">%s</code>`, html.EscapeString(string(raw)))
			return
		}
		s.value(y, depth)
	}
}

// count says n units: "1 key", "10,000 items".
func count(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return thousands(n) + " " + unit + "s"
}

// node writes an object or an array of n members as a foldable node, open
// at the top level and when small, summed up by what: the members the
// bounds allow (an array's first and last ones), the rest said.
func (s *shower) node(depth int, open, close string, n int, what string, at func(int) (string, any)) {
	if n == 0 {
		fmt.Fprintf(&s.b, `<code class="j-lit">%s%s</code>`, open, close)
		return
	}
	if n <= inlineAbove && allScalar(n, at) { // {"n": 3} on one line
		s.budget -= n
		fmt.Fprintf(&s.b, `<span class="j-inline">%s`, open)
		for i := range n {
			k, v := at(i)
			if i > 0 {
				s.b.WriteString(", ")
			}
			if k != "" {
				fmt.Fprintf(&s.b, `<span class="j-key">%s</span>: `, html.EscapeString(quote(k)))
			}
			s.value(v, depth+1)
		}
		fmt.Fprintf(&s.b, `%s</span>`, close)
		return
	}
	attr := ""
	if depth == 0 || n <= foldAbove {
		attr = " open"
	}
	fmt.Fprintf(&s.b, `<details class="json"%s><summary>%s <small>%s</small></summary><ul class="json">`, attr, open, what)
	k := min(n, s.members, max(s.budget, 0))
	s.budget -= k
	head, tail := k, 0
	if open == "[" && k < n {
		head = k / 5
		tail = k - head
	}
	for i := range head {
		s.member(at, i, depth)
	}
	if k < n {
		unit := "keys"
		if open == "[" {
			unit = "items"
		}
		fmt.Fprintf(&s.b, `<li class="elided">… %s more %s, not shown …</li>`, thousands(n-k), unit)
	}
	for i := n - tail; i < n; i++ {
		s.member(at, i, depth)
	}
	fmt.Fprintf(&s.b, `</ul>%s</details>`, close)
}

func (s *shower) member(at func(int) (string, any), i, depth int) {
	k, v := at(i)
	s.b.WriteString("<li>")
	if k != "" {
		fmt.Fprintf(&s.b, `<span class="j-key">%s</span>: `, html.EscapeString(quote(k)))
	}
	s.value(v, depth+1)
	s.b.WriteString("</li>")
}

// changed writes a map of which a step changed some keys: those keys (set,
// or removed), the others said.
func (s *shower) changed(depth int, x changedKeys) {
	what := fmt.Sprintf("%s, %s changed", count(len(x.m), "key"), thousands(len(x.keys)))
	fmt.Fprintf(&s.b, `<details class="json" open><summary>{ <small>%s</small></summary><ul class="json">`, what)
	k := min(len(x.keys), s.members, max(s.budget, 0))
	s.budget -= k
	for _, key := range x.keys[:k] {
		v, ok := x.m[key]
		if !ok {
			v = removedKey{}
		}
		s.member(func(int) (string, any) { return key, v }, 0, depth)
	}
	if more := len(x.keys) - k; more > 0 {
		fmt.Fprintf(&s.b, `<li class="elided">… %s more changed, not shown …</li>`, thousands(more))
	}
	others := len(x.m)
	for _, key := range x.keys {
		if _, ok := x.m[key]; ok {
			others--
		}
	}
	if others > 0 {
		fmt.Fprintf(&s.b, `<li class="elided">… %s other keys, not shown …</li>`, thousands(others))
	}
	s.b.WriteString(`</ul>}</details>`)
}

// appendedList is a list variable a step appended to: its items from
// before on are the step's.
type appendedList struct {
	list   []any
	before int
}

// changedKeys is a map variable a step changed keys of (sorted, without
// repeats): what it holds after the step.
type changedKeys struct {
	m    map[string]any
	keys []string
}

// addedText is a string variable a step added text to the end of: its
// bytes from before on are the step's.
type addedText struct {
	s      string
	before int
}

// removedKey stands for a key a step removed.
type removedKey struct{}

// showStepVars renders the variables a step set (its maps whole as they
// were after it: runstore.Walker) within stepBounds: a list the step
// appended to says how many items it appended, and its last items show; a
// map too large to show whole, of which the step changed some keys, shows
// those keys; a long string that starts with its value before the step
// (prev: the variables' strings as of the step before) shows the text
// added (a transcript's new line, not its first lines again).
func showStepVars(rec *machine.Record, prev map[string]string) template.HTML {
	view := make(map[string]any, len(rec.Vars))
	for name, v := range rec.Vars {
		view[name] = v
		switch x := v.(type) {
		case string:
			// Strings read back from a journal share their bytes with the
			// value before when they grew (vars_concat): compared in O(1).
			if p, ok := prev[name]; ok && p != "" && len(x) > textCap && len(x) > len(p) && x[:len(p)] == p {
				view[name] = addedText{s: x, before: len(p)}
			}
		case []any:
			if n, ok := rec.Appended[name]; ok && n >= 0 && n < len(x) {
				view[name] = appendedList{list: x, before: n}
			}
		case map[string]any:
			if keys, ok := rec.MapKeys[name]; ok && len(x) > stepBounds.members {
				view[name] = changedKeys{m: x, keys: slices.Compact(slices.Sorted(slices.Values(keys)))}
			}
		}
	}
	return showWithin(view, stepBounds)
}

// inlineAbove is the most members an object or array of scalars (short
// strings, numbers, booleans, null) has to be shown on one line.
const inlineAbove = 4

func allScalar(n int, at func(int) (string, any)) bool {
	for i := range n {
		switch x := func() any { _, v := at(i); return v }().(type) {
		case map[string]any, []any:
			return false
		case string:
			if strings.Contains(x, "\n") || utf8.RuneCountInString(x) > 60 {
				return false
			}
		}
	}
	return true
}

// quote writes s as a JSON string without escaping HTML characters (the
// page escapes them): "<b>" reads "<b>", not "\u003cb\u003e".
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// keepTexts records the string variables rec set, for showStepVars.
func keepTexts(texts map[string]string, rec *machine.Record) {
	for name, v := range rec.Vars {
		if s, ok := v.(string); ok {
			texts[name] = s
		} else {
			delete(texts, name)
		}
	}
}
