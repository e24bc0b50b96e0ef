package gate

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file reads L++'s Python-like gate dialect into a small syntax tree
// (gnode); gate.go turns the tree into expr. Columns count characters from 1.

// Error is a gate expression the translator cannot read or express.
type Error struct {
	Col  int    // 1-based character column in the expression
	Span int    // characters of the offending text (at least 1)
	Msg  string // why
	Hint string // how to fix it ("" when there is nothing to add)
}

func (e *Error) Error() string { return fmt.Sprintf("column %d: %s", e.Col, e.Msg) }

func gateErr(col, span int, hint, format string, args ...any) *Error {
	return &Error{Col: col, Span: max(span, 1), Msg: fmt.Sprintf(format, args...), Hint: hint}
}

type tokKind int

const (
	tEOF tokKind = iota
	tName
	tNum
	tStr
	tOp
)

type token struct {
	kind tokKind
	text string // the source text (a string's decoded value for tStr)
	col  int
	span int
}

// maxGateLen bounds a gate expression (characters), and maxGateDepth its
// nesting, so that a hostile blueprint is an error, not a stack overflow
// or minutes of work (a 260 KB gate took 31 s before the expression's node
// limit refused it). lpp's lint warns past 120 characters; the longest
// gate of lpp's repository has 93: the bound is a hundred times that.
const (
	maxGateLen   = 10_000
	maxGateDepth = 100
)

// lex splits a gate expression into tokens.
func lex(src string) ([]token, error) {
	rs := []rune(src)
	if len(rs) > maxGateLen {
		return nil, gateErr(1, 1, "split it into several gates (a transition's gates must all pass)", "the expression is longer than %d characters, more than lppctl reads (lpp's lint warns past 120)", maxGateLen)
	}
	var out []token
	// Python's ast.parse(mode="eval"), which lpp calls, ends the expression
	// at a line break outside brackets: one followed by more text is a
	// SyntaxError there, and lpp evaluates the gate false. A comment runs to
	// the end of its line; a backslash before a line break continues it.
	depth, lineEnd := 0, 0
	for i := 0; i < len(rs); {
		r := rs[i]
		col := i + 1
		if lineEnd > 0 && r != ' ' && r != '\t' && r != '\n' && r != '\r' && r != '#' {
			return nil, gateErr(lineEnd, 1, "write the expression on one line, or in parentheses (a line break inside brackets is white space)",
				"a line break outside brackets ends a Python expression, and text follows it: lpp's reading of the gate fails (SyntaxError), so lpp evaluates it false")
		}
		switch {
		case r == '\\' && i+1 < len(rs) && (rs[i+1] == '\n' || rs[i+1] == '\r'):
			i += 2
			if rs[i-1] == '\r' && i < len(rs) && rs[i] == '\n' {
				i++
			}
		case r == '\n' || r == '\r':
			if depth == 0 && len(out) > 0 && lineEnd == 0 {
				lineEnd = col
			}
			i++
		case r == ' ' || r == '\t':
			i++
		case r == '#': // a comment, to the end of its line
			for i < len(rs) && rs[i] != '\n' && rs[i] != '\r' {
				i++
			}
		case r == '_' || unicode.IsLetter(r):
			j := i
			for j < len(rs) && (rs[j] == '_' || unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j])) {
				j++
			}
			word := string(rs[i:j])
			if j < len(rs) && (rs[j] == '\'' || rs[j] == '"') && len(word) <= 2 {
				switch strings.ToLower(word) {
				case "r", "u":
					tok, n, err := lexString(rs, j, strings.ToLower(word) == "r")
					if err != nil {
						return nil, err
					}
					tok.col, tok.span = col, n+j-i
					out = append(out, tok)
					i = j + n
					continue
				case "f", "b", "rb", "br", "fr", "rf":
					return nil, gateErr(col, j-i+1, "write a plain string literal", "%s-strings are not supported", word)
				}
			}
			out = append(out, token{kind: tName, text: word, col: col, span: j - i})
			i = j
		case r >= '0' && r <= '9' || r == '.' && i+1 < len(rs) && rs[i+1] >= '0' && rs[i+1] <= '9':
			j := i
			for j < len(rs) && (rs[j] == '_' || rs[j] == '.' || unicode.IsDigit(rs[j]) || unicode.IsLetter(rs[j]) ||
				(rs[j] == '+' || rs[j] == '-') && (rs[j-1] == 'e' || rs[j-1] == 'E') && !strings.HasPrefix(strings.ToLower(string(rs[i:j])), "0x")) {
				j++
			}
			if k := numberBeforeKeyword(string(rs[i:j])); k > 0 {
				j = i + k // 1and: Python reads 1 and (a SyntaxWarning)
			}
			out = append(out, token{kind: tNum, text: string(rs[i:j]), col: col, span: j - i})
			i = j
		case r == '\'' || r == '"':
			tok, n, err := lexString(rs, i, false)
			if err != nil {
				return nil, err
			}
			tok.col, tok.span = col, n
			out = append(out, tok)
			i += n
		default:
			op := ""
			for _, o := range []string{"**", "//", "&&", "||", "==", "!=", "<=", ">=", "<<", ">>", "->", ":=", "(", ")", "[", "]", "{", "}", ",", ".", ":",
				"<", ">", "+", "-", "*", "/", "%", "|", "&", "^", "~", "@", "!", ";", "=", "?", "$", "`", "\\"} {
				if strings.HasPrefix(string(rs[i:min(len(rs), i+len(o))]), o) {
					op = o
					break
				}
			}
			if op == "" {
				return nil, gateErr(col, 1, "", "unexpected character %q", r)
			}
			switch op {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				depth = max(depth-1, 0)
			}
			out = append(out, token{kind: tOp, text: op, col: col, span: utf8.RuneCountInString(op)})
			i += utf8.RuneCountInString(op)
		}
	}
	return append(out, token{kind: tEOF, col: len(rs) + 1, span: 1}), nil
}

// lexString reads a string literal starting at rs[i] (the quote) and returns
// it with its decoded value and its length in characters.
// numberBeforeKeyword returns the length of the number that text (a
// number's characters, letters included) starts with when a keyword
// follows it directly (`1and`, `2.5or`, `1if`): Python 3.11 reads them as
// two tokens, with a SyntaxWarning. 0 when text is not such a pair.
func numberBeforeKeyword(text string) int {
	for _, kw := range []string{"and", "or", "if", "else", "in", "is", "not", "for"} {
		num, ok := strings.CutSuffix(text, kw)
		if !ok || num == "" || strings.ContainsAny(num, "xXoObB") {
			continue
		}
		if _, err := strconv.ParseFloat(strings.ReplaceAll(num, "_", ""), 64); err == nil {
			return len(num)
		}
	}
	return 0
}

func lexString(rs []rune, i int, raw bool) (token, int, error) {
	q := rs[i]
	triple := i+2 < len(rs) && rs[i+1] == q && rs[i+2] == q
	quotes := 1
	if triple { // a triple-quoted string may hold newlines and single quotes
		quotes = 3
	}
	var b strings.Builder
	for j := i + quotes; j < len(rs); j++ {
		c := rs[j]
		switch {
		case c == q && (!triple || j+2 < len(rs) && rs[j+1] == q && rs[j+2] == q):
			return token{kind: tStr, text: b.String()}, j - i + quotes, nil
		case c == '\n' && triple:
			b.WriteRune(c)
		case c == '\n':
			return token{}, 0, gateErr(i+1, j-i, "close the string on the same line", "the string is not closed")
		case c == '\\' && !raw && j+1 < len(rs):
			j++
			switch e := rs[j]; e {
			case '\n': // a line continued
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			case '\\', '\'', '"':
				b.WriteRune(e)
			case 'x', 'u':
				n := map[rune]int{'x': 2, 'u': 4}[e]
				if j+n >= len(rs) {
					return token{}, 0, gateErr(j, n+2, "", "incomplete \\%c escape", e)
				}
				v, err := strconv.ParseUint(string(rs[j+1:j+1+n]), 16, 32)
				if err != nil {
					return token{}, 0, gateErr(j, n+2, "", "invalid \\%c escape", e)
				}
				b.WriteRune(rune(v))
				j += n
			default: // Python keeps an unknown escape as written
				b.WriteRune('\\')
				b.WriteRune(e)
			}
		case c == '\\' && raw && j+1 < len(rs) && rs[j+1] == q:
			b.WriteRune('\\')
			b.WriteRune(q)
			j++
		default:
			b.WriteRune(c)
		}
	}
	return token{}, 0, gateErr(i+1, len(rs)-i, "close it with "+strings.Repeat(string(q), quotes), "the string is not closed")
}

// Node is a node of a gate's syntax tree.
type Node struct {
	Op    string // see the parse functions: "name", "num", "str", "const", "list", "bin", "cmp", "and", "or", "not", "neg", "pos", "cond", "call", "method", "attr", "index", "slice"
	Text  string // name, number text, string value, constant (None/True/False), operator; "list": "(" for a tuple, "{" for a set
	Col   int
	Span  int
	Kids  []*Node
	CmpOp []string // "cmp": the operators between kids (chained)
	opCol []int    // "cmp": their columns
}

type parser struct {
	toks  []token
	i     int
	depth int
}

// Parse reads a whole gate expression.
func Parse(src string) (*Node, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	if toks[0].kind == tEOF {
		return nil, gateErr(1, 1, "", "the expression is empty")
	}
	if col := indented(src); col > 0 {
		return nil, gateErr(col, 1, "remove the white space before the expression",
			"the expression starts with white space, which Python reads as an indented line (IndentationError): lpp evaluates the gate false")
	}
	p := &parser{toks: toks}
	n, err := p.expr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.unexpected(t, "the end of the expression")
	}
	if d := pyDepth(n); d > lppMaxDepth {
		return nil, gateErr(1, 1, "split it into several gates",
			"the expression nests %d levels deep, and lpp refuses more than %d (the gate is false in lpp)", d, lppMaxDepth)
	}
	return n, nil
}

// indented returns the column of the white space that begins the first
// line of src that is not blank (0 when it does not begin so): Python's
// ast.parse(mode="eval"), which lpp calls, refuses it.
func indented(src string) int {
	col := 1
	for line := range strings.SplitAfterSeq(src, "\n") {
		if strings.TrimSpace(line) != "" {
			if line[0] == ' ' || line[0] == '\t' {
				return col
			}
			return 0
		}
		col += utf8.RuneCountInString(line)
	}
	return 0
}

// lppMaxDepth is the nesting lpp's evaluator refuses beyond (an error:
// the gate is false).
const lppMaxDepth = 50

// pyDepth is the depth of the syntax tree Python's ast.parse builds for n
// (one level per operator, call, subscript or attribute, with a chain of
// `and` or of `or` one level, as Python's BoolOp).
func pyDepth(n *Node) int {
	if n == nil {
		return 0
	}
	kids := n.Kids
	extra := 1
	switch n.Op {
	case "and", "or": // flattened: a and b and c is one BoolOp
		kids = nil
		var flat func(*Node)
		flat = func(x *Node) {
			if x.Op == n.Op {
				for _, k := range x.Kids {
					flat(k)
				}
				return
			}
			kids = append(kids, x)
		}
		flat(n)
	case "method", "slice": // Call(Attribute(x)), Subscript(x, Slice(a, b))
		extra = 2
	}
	d := 0
	for _, k := range kids {
		d = max(d, pyDepth(k))
	}
	return d + extra
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) isOp(s string) bool   { t := p.peek(); return t.kind == tOp && t.text == s }
func (p *parser) isWord(s string) bool { t := p.peek(); return t.kind == tName && t.text == s }

func (p *parser) unexpected(t token, want string) error {
	if t.kind == tEOF {
		return gateErr(t.col, 1, "", "the expression ends too early: expected %s", want)
	}
	what := fmt.Sprintf("%q", t.text)
	if t.kind == tStr {
		what = "a string"
	}
	switch t.text {
	case "=":
		return gateErr(t.col, 1, "compare with ==", "%s is an assignment; a gate only compares", what)
	case "&&", "&":
		return gateErr(t.col, t.span, "write and", "unexpected %s: expected %s", what, want)
	case "||", "|":
		return gateErr(t.col, t.span, "write or", "unexpected %s: expected %s", what, want)
	case "!":
		return gateErr(t.col, t.span, "write not, or != to compare", "unexpected %s: expected %s", what, want)
	}
	return gateErr(t.col, t.span, "", "unexpected %s: expected %s", what, want)
}

func (p *parser) expect(op string) (token, error) {
	if !p.isOp(op) {
		return token{}, p.unexpected(p.peek(), fmt.Sprintf("%q", op))
	}
	return p.next(), nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxGateDepth {
		t := p.peek()
		return gateErr(t.col, 1, "split it into several gates", "the expression nests deeper than %d levels", maxGateDepth)
	}
	return nil
}

// expr: conditional expressions (`a if c else b`), the lowest precedence.
func (p *parser) expr() (*Node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	if t := p.peek(); t.kind == tName && t.text == "lambda" {
		return nil, gateErr(t.col, t.span, "write the condition directly", "lambda is not supported in a gate")
	}
	n, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.isWord("if") {
		p.next()
		c, err := p.or()
		if err != nil {
			return nil, err
		}
		if !p.isWord("else") {
			return nil, p.unexpected(p.peek(), `"else"`)
		}
		p.next()
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		return &Node{Op: "cond", Col: n.Col, Kids: []*Node{c, n, e}}, nil
	}
	if t := p.peek(); t.kind == tName && t.text == "for" {
		return nil, gateErr(t.col, t.span, "use len(), in, or a compute gate", "comprehensions and generators are not supported in a gate")
	}
	return n, nil
}

func (p *parser) or() (*Node, error) {
	n, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.isWord("or") {
		t := p.next()
		r, err := p.and()
		if err != nil {
			return nil, err
		}
		n = &Node{Op: "or", Text: "or", Col: n.Col, Kids: []*Node{n, r}, opCol: []int{t.col}}
	}
	return n, nil
}

func (p *parser) and() (*Node, error) {
	n, err := p.not()
	if err != nil {
		return nil, err
	}
	for p.isWord("and") {
		t := p.next()
		r, err := p.not()
		if err != nil {
			return nil, err
		}
		n = &Node{Op: "and", Text: "and", Col: n.Col, Kids: []*Node{n, r}, opCol: []int{t.col}}
	}
	return n, nil
}

func (p *parser) not() (*Node, error) {
	if p.isWord("not") {
		t := p.next()
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
		x, err := p.not()
		if err != nil {
			return nil, err
		}
		return &Node{Op: "not", Col: t.col, Span: t.span, Kids: []*Node{x}}, nil
	}
	return p.comparison()
}

// comparison reads a chain: a < b <= c, x in y, x is not None, ...
func (p *parser) comparison() (*Node, error) {
	first, err := p.arith()
	if err != nil {
		return nil, err
	}
	n := &Node{Op: "cmp", Col: first.Col, Kids: []*Node{first}}
	for {
		t := p.peek()
		op := ""
		switch {
		case t.kind == tOp && (t.text == "==" || t.text == "!=" || t.text == "<" || t.text == "<=" || t.text == ">" || t.text == ">="):
			op = t.text
			p.next()
		case t.kind == tName && t.text == "in":
			op = "in"
			p.next()
		case t.kind == tName && t.text == "not" && p.toks[p.i+1].kind == tName && p.toks[p.i+1].text == "in":
			op = "not in"
			p.next()
			p.next()
		case t.kind == tName && t.text == "is":
			p.next()
			op = "is"
			if p.isWord("not") {
				p.next()
				op = "is not"
			}
		}
		if op == "" {
			break
		}
		r, err := p.arith()
		if err != nil {
			return nil, err
		}
		n.Kids = append(n.Kids, r)
		n.CmpOp = append(n.CmpOp, op)
		n.opCol = append(n.opCol, t.col)
	}
	if len(n.Kids) == 1 {
		return first, nil
	}
	return n, nil
}

// bitwise and shift operators, which gates have no use for.
var refusedOps = map[string]string{"|": "or", "&": "and", "^": "!=", "<<": "", ">>": "", "~": "not", "@": ""}

func (p *parser) arith() (*Node, error) {
	n, err := p.term()
	if err != nil {
		return nil, err
	}
	for p.isOp("+") || p.isOp("-") {
		t := p.next()
		r, err := p.term()
		if err != nil {
			return nil, err
		}
		n = &Node{Op: "bin", Text: t.text, Col: n.Col, Kids: []*Node{n, r}, opCol: []int{t.col}}
	}
	if t := p.peek(); t.kind == tOp {
		if alt, ok := refusedOps[t.text]; ok {
			hint := ""
			if alt != "" {
				hint = "for a condition write " + alt
			}
			return nil, gateErr(t.col, t.span, hint, "the bitwise operator %s is not supported in a gate", t.text)
		}
	}
	return n, nil
}

func (p *parser) term() (*Node, error) {
	n, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.isOp("*") || p.isOp("/") || p.isOp("//") || p.isOp("%") {
		t := p.next()
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		n = &Node{Op: "bin", Text: t.text, Col: n.Col, Kids: []*Node{n, r}, opCol: []int{t.col}}
	}
	return n, nil
}

func (p *parser) unary() (*Node, error) {
	if p.isOp("-") || p.isOp("+") {
		t := p.next()
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		op := "neg"
		if t.text == "+" {
			op = "pos"
		}
		return &Node{Op: op, Col: t.col, Span: 1, Kids: []*Node{x}}, nil
	}
	if t := p.peek(); t.kind == tOp && t.text == "~" {
		return nil, gateErr(t.col, 1, "for a condition write not", "the bitwise operator ~ is not supported in a gate")
	}
	return p.power()
}

func (p *parser) power() (*Node, error) {
	n, err := p.primary()
	if err != nil {
		return nil, err
	}
	if p.isOp("**") {
		t := p.next()
		r, err := p.unary() // right-associative; binds a unary minus on its right: 2 ** -1
		if err != nil {
			return nil, err
		}
		return &Node{Op: "bin", Text: "**", Col: n.Col, Kids: []*Node{n, r}, opCol: []int{t.col}}, nil
	}
	return n, nil
}

// primary reads an atom and its trailers: calls, subscripts, attributes.
func (p *parser) primary() (*Node, error) {
	n, err := p.atom()
	if err != nil {
		return nil, err
	}
	for {
		switch {
		case p.isOp("("):
			open := p.next()
			args, err := p.list(")")
			if err != nil {
				return nil, err
			}
			if n.Op == "attr" {
				n = &Node{Op: "method", Text: n.Text, Col: n.Col, Span: n.Span, Kids: append([]*Node{n.Kids[0]}, args...), opCol: []int{open.col}}
			} else {
				n = &Node{Op: "call", Text: n.Text, Col: n.Col, Span: n.Span, Kids: append([]*Node{n}, args...), opCol: []int{open.col}}
			}
		case p.isOp("["):
			open := p.next()
			idx, err := p.subscript()
			if err != nil {
				return nil, err
			}
			if _, err := p.expect("]"); err != nil {
				return nil, err
			}
			idx.Kids = append([]*Node{n}, idx.Kids...)
			idx.Col, idx.opCol = n.Col, []int{open.col}
			n = idx
		case p.isOp("."):
			p.next()
			t := p.next()
			if t.kind != tName {
				return nil, p.unexpected(t, "a name after '.'")
			}
			n = &Node{Op: "attr", Text: t.text, Col: n.Col, Span: t.col + t.span - n.Col, Kids: []*Node{n}, opCol: []int{t.col}}
		default:
			return n, nil
		}
	}
}

// subscript reads what is between [ and ]: an index or a slice.
func (p *parser) subscript() (*Node, error) {
	var parts [2]*Node
	slice := false
	for k := 0; k < 2; k++ {
		if !p.isOp(":") && !p.isOp("]") {
			x, err := p.expr()
			if err != nil {
				return nil, err
			}
			parts[k] = x
		}
		if k == 0 && p.isOp(":") {
			p.next()
			slice = true
			continue
		}
		break
	}
	if t := p.peek(); slice && t.kind == tOp && t.text == ":" {
		return nil, gateErr(t.col, 1, "", "a slice step (x[a:b:c]) is not supported in a gate")
	}
	if !slice {
		if parts[0] == nil {
			return nil, p.unexpected(p.peek(), "an index")
		}
		return &Node{Op: "index", Kids: []*Node{parts[0]}}, nil
	}
	n := &Node{Op: "slice", Kids: []*Node{parts[0], parts[1]}}
	return n, nil
}

// list reads comma-separated expressions up to close (consumed).
func (p *parser) list(close string) ([]*Node, error) {
	var out []*Node
	for !p.isOp(close) {
		if t := p.peek(); t.kind == tOp && t.text == "*" || t.kind == tOp && t.text == "**" {
			return nil, gateErr(t.col, t.span, "", "unpacking (*x) is not supported in a gate")
		}
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		if t := p.peek(); t.kind == tOp && t.text == "=" {
			return nil, gateErr(x.Col, t.col-x.Col+1, "pass the value by position", "keyword arguments are not supported in a gate")
		}
		out = append(out, x)
		if !p.isOp(",") {
			break
		}
		p.next()
	}
	if _, err := p.expect(close); err != nil {
		return nil, err
	}
	return out, nil
}

// dictAhead reports whether the braces just opened hold a dict ({} or
// {k: v}), not a set: a ":" at their own depth, or nothing.
func (p *parser) dictAhead() bool {
	depth := 0
	for i := p.i; i < len(p.toks); i++ {
		t := p.toks[i]
		if t.kind != tOp {
			continue
		}
		switch t.text {
		case "(", "[", "{":
			depth++
		case ")", "]":
			depth--
		case "}":
			if depth == 0 {
				return i == p.i
			}
			depth--
		case ":":
			if depth == 0 {
				return true
			}
		}
	}
	return false
}

func (p *parser) atom() (*Node, error) {
	t := p.next()
	switch t.kind {
	case tNum:
		return &Node{Op: "num", Text: t.text, Col: t.col, Span: t.span}, nil
	case tStr:
		n := &Node{Op: "str", Text: t.text, Col: t.col, Span: t.span}
		for p.peek().kind == tStr { // 'a' 'b' is 'ab'
			u := p.next()
			n.Text += u.text
			n.Span = u.col + u.span - n.Col
		}
		return n, nil
	case tName:
		switch t.text {
		case "None", "True", "False":
			return &Node{Op: "const", Text: t.text, Col: t.col, Span: t.span}, nil
		case "and", "or", "not", "in", "is", "if", "else", "for", "lambda", "await", "yield", "import", "del", "pass", "return", "def", "class":
			return nil, p.unexpected(t, "a value")
		case "null", "nil", "true", "false", "none":
			fix := map[string]string{"null": "None", "nil": "None", "none": "None", "true": "True", "false": "False"}[t.text]
			return nil, gateErr(t.col, t.span, "write "+fix, "%s is not a Python constant", t.text)
		}
		return &Node{Op: "name", Text: t.text, Col: t.col, Span: t.span}, nil
	case tOp:
		switch t.text {
		case "(":
			items, err := p.list(")")
			if err != nil {
				return nil, err
			}
			if len(items) == 1 && p.toks[p.i-2].text != "," {
				return items[0], nil // parentheses
			}
			return &Node{Op: "list", Text: "(", Col: t.col, Span: 1, Kids: items}, nil // a tuple
		case "[":
			items, err := p.list("]")
			if err != nil {
				return nil, err
			}
			return &Node{Op: "list", Col: t.col, Span: 1, Kids: items}, nil
		case "{":
			if p.dictAhead() {
				return nil, gateErr(t.col, 1, "compare the values one by one, or use a compute gate", "dict literals are not supported in a gate (lpp evaluates the gate false as well)")
			}
			items, err := p.list("}")
			if err != nil {
				return nil, err
			}
			return &Node{Op: "list", Text: "{", Col: t.col, Span: 1, Kids: items}, nil // a set: membership as in a list
		}
	}
	return nil, p.unexpected(t, "a value")
}
