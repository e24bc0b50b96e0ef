package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"sort"
	"strings"
	"unicode/utf8"
)

// How values are shown: a string as text (wrapped by the stylesheet) whose
// first textCap characters show and the rest behind "show all"; an object
// or array as a tree of foldable nodes, those with more than foldAbove
// members folded below the top level.
const (
	textCap   = 2000
	foldAbove = 12
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
	var b strings.Builder
	writeValue(&b, v, 0)
	return template.HTML(b.String()) // #nosec: built from escaped parts only
}

// showAny renders a Go value (a context variable) as showJSON does.
func showAny(v any) template.HTML {
	raw, err := json.Marshal(v)
	if err != nil {
		return showText(fmt.Sprint(v))
	}
	return showJSON(raw)
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
	cut := 0
	for i := range s {
		if cut == textCap {
			cut = i
			break
		}
		cut++
	}
	fmt.Fprintf(b, `<div class="capped"><pre class="text">%s</pre><details class="more"><summary>show all %d characters</summary><pre class="text">%s</pre></details></div>`,
		html.EscapeString(s[:cut]), n, html.EscapeString(s[cut:]))
}

func writeValue(b *strings.Builder, v any, depth int) {
	switch x := v.(type) {
	case string:
		if x == "" {
			b.WriteString(`<code class="j-lit">""</code>`)
			return
		}
		if depth == 0 {
			writeText(b, x)
			return
		}
		if !strings.Contains(x, "\n") && utf8.RuneCountInString(x) <= 200 {
			fmt.Fprintf(b, `<span class="j-str">%s</span>`, html.EscapeString(quote(x)))
			return
		}
		writeText(b, x)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		writeNode(b, depth, "{", "}", len(keys), fmt.Sprintf("%d keys", len(keys)), func(i int) (string, any) { return keys[i], x[keys[i]] })
	case []any:
		writeNode(b, depth, "[", "]", len(x), fmt.Sprintf("%d items", len(x)), func(i int) (string, any) { return "", x[i] })
	case nil:
		b.WriteString(`<code class="j-null">null</code>`)
	default:
		fmt.Fprintf(b, `<code class="j-lit">%s</code>`, html.EscapeString(fmt.Sprint(x)))
	}
}

// writeNode writes an object or an array as a foldable node: open at the
// top level and when small.
func writeNode(b *strings.Builder, depth int, open, close string, n int, what string, at func(int) (string, any)) {
	if n == 0 {
		fmt.Fprintf(b, `<code class="j-lit">%s%s</code>`, open, close)
		return
	}
	if n <= inlineAbove && allScalar(n, at) { // {"n": 3} on one line
		fmt.Fprintf(b, `<span class="j-inline">%s`, open)
		for i := range n {
			k, v := at(i)
			if i > 0 {
				b.WriteString(", ")
			}
			if k != "" {
				fmt.Fprintf(b, `<span class="j-key">%s</span>: `, html.EscapeString(quote(k)))
			}
			writeValue(b, v, depth+1)
		}
		fmt.Fprintf(b, `%s</span>`, close)
		return
	}
	attr := ""
	if depth == 0 || n <= foldAbove {
		attr = " open"
	}
	fmt.Fprintf(b, `<details class="json"%s><summary>%s <small>%s</small></summary><ul class="json">`, attr, open, what)
	for i := range n {
		k, v := at(i)
		b.WriteString("<li>")
		if k != "" {
			fmt.Fprintf(b, `<span class="j-key">%s</span>: `, html.EscapeString(quote(k)))
		}
		writeValue(b, v, depth+1)
		b.WriteString("</li>")
	}
	fmt.Fprintf(b, `</ul>%s</details>`, close)
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
