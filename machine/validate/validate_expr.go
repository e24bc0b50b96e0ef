package validate

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/parser"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// assign checks one `set:` entry.
func (v *validator) assign(a *mspec.Assign) {
	if a.Var == mspec.VarState || a.Var == mspec.VarLastError {
		v.errorf(a.Pos, len(a.Var), "the interpreter sets it; set a context variable of your own instead", "set: %q is reserved", a.Var)
		return
	}
	cv := v.spec.Var(a.Var)
	if cv == nil && v.unknownVarsUncertain() {
		return // context: was lost to its error (reported)
	}
	if cv == nil {
		hint := v.suggest(a.Var, v.varNames())
		if hint == "" {
			hint = fmt.Sprintf("declare it under context:, e.g. `%s: int`", a.Var)
		}
		v.errorf(a.Pos, len(a.Var), hint, "set: unknown context variable %q", a.Var)
		return
	}
	key := v.exprKey("set "+a.Var, a.Expr)
	if v.checked[key] {
		return
	}
	defer v.markClean(key, len(v.diags))
	prog, err := mspec.CompileVarValue(a.Expr, cv, v.env)
	if err != nil {
		v.exprError(mspec.LocateExpr(err, v.spec.Source, a.ExprPos, a.Expr), "set "+a.Var)
		return
	}
	v.branches(prog, a.Expr, a.ExprPos, cv.Type, "set "+a.Var)
	v.constants(a.Expr, a.ExprPos, "set "+a.Var, true)
	if cv.Type == mspec.TypeList || cv.Type == mspec.TypeMap {
		v.timesInSet(a)
	}
	if len(cv.Enum) == 0 {
		return
	}
	tree, err := parser.Parse(a.Expr)
	if err != nil {
		return
	}
	for _, lit := range resultLiterals(tree.Node) {
		if !mspec.Contains(cv.Enum, lit.Value) {
			p := mspec.ExprPos(v.spec.Source, a.ExprPos, a.Expr, lit.Location().From)
			v.errorf(p, len(strconv.Quote(lit.Value)), enumHint(lit.Value, cv.Enum),
				"set %s: %q is not one of %s", a.Var, lit.Value, mspec.QuoteList(cv.Enum))
		}
	}
}

// exprKey names an expression checked in the current environment (the
// event whose transition it is on decides what `event` holds).
func (v *validator) exprKey(what, src string) string {
	return what + "\x00" + v.inEvent + "\x00" + src
}

// markClean records that the expression checked without a diagnostic
// (none since n): the same text in the same environment is not checked
// again, as its problems would be the same.
func (v *validator) markClean(key string, n int) {
	if len(v.diags) != n {
		return
	}
	if v.checked == nil {
		v.checked = map[string]bool{}
	}
	v.checked[key] = true
}

// guard checks one `when:` expression.
func (v *validator) guard(src string, at mspec.Pos) {
	key := v.exprKey("guard", src)
	if v.checked[key] {
		return
	}
	defer v.markClean(key, len(v.diags))
	prog, err := mspec.CompileGuard(src, v.env)
	if err != nil {
		if v.badGuards == nil {
			v.badGuards = map[mspec.Pos]bool{}
		}
		v.badGuards[at] = true
		v.exprError(mspec.LocateExpr(err, v.spec.Source, at, src), "guard")
		return
	}
	v.branches(prog, src, at, mspec.TypeBool, "guard")
	v.constants(src, at, "guard", false)
	tree, err := parser.Parse(src)
	if err != nil {
		return
	}
	for _, c := range enumComparisons(tree.Node, v.spec) {
		p := mspec.ExprPos(v.spec.Source, at, src, c.lit.Location().From)
		if c.v.Name == mspec.VarState {
			v.errorf(p, len(strconv.Quote(c.lit.Value)), v.stateHint(c.lit.Value),
				"guard: state is never %q: no state has that name", c.lit.Value)
			continue
		}
		v.errorf(p, len(strconv.Quote(c.lit.Value)), enumHint(c.lit.Value, c.v.Enum),
			"guard: %q is not one of the values of %s %s", c.lit.Value, c.v.Name, mspec.QuoteList(c.v.Enum))
	}
}

func enumHint(s string, enum []string) string {
	if h := mspec.DidYouMeanHint(s, enum); h != "" {
		return h
	}
	return "use one of " + mspec.QuoteList(enum)
}

var (
	unknownNameRE = regexp.MustCompile(`^unknown name ([A-Za-z_][A-Za-z0-9_]*)`)
	notCallableRE = regexp.MustCompile(`is not callable$`)
)

// hidesBuiltin returns the context variable named like an expression
// function that the expression of e calls (the cause of "is not callable"),
// or "".
func (v *validator) hidesBuiltin(e *mspec.ExprError) string {
	line := mspec.SourceLine(v.spec.Source, e.Pos.Line)
	runes := []rune(line)
	if e.Pos.Col < 1 || e.Pos.Col > len(runes) {
		return ""
	}
	m := identWordRE.FindString(string(runes[e.Pos.Col-1:]))
	if m != "" && mspec.IsBuiltin(m) && v.spec.Var(m) != nil {
		return m
	}
	return ""
}

// exprError reports an expression compile error, with a "did you mean" for unknown names.
func (v *validator) exprError(e *mspec.ExprError, what string) {
	if v.eventExprError(e, what) {
		return
	}
	span, hint := 1, ""
	if m := unknownNameRE.FindStringSubmatch(e.Msg); m != nil {
		if cv := v.spec.Var(m[1]); cv != nil && cv.Type == mspec.TypeAny || cv == nil && v.unknownVarsUncertain() {
			return // a variable whose type is unknown, or context: (reported): its uses cannot be checked
		}
		span = len(m[1])
		if v.bareWordAt(e.Pos, m[1]) {
			// The whole value is one word: a text meant as a literal
			// (verdict: PASS), or a misspelt variable, not a function.
			hint = fmt.Sprintf(`for the text %q, quote it inside the YAML value: '"%s"'`, m[1], m[1])
			if dym := v.suggest(m[1], append(v.varNames(), mspec.VarState, mspec.VarLastError)); dym != "" {
				hint = dym + " or, " + hint
			}
			v.errorf(e.Pos, span, hint, "%s: %s", what, exprMessage(e.Msg))
			return
		}
		cands := append(v.varNames(), mspec.VarState, mspec.VarLastError)
		for _, f := range builtin.Builtins {
			cands = append(cands, f.Name)
		}
		hint = v.suggest(m[1], cands)
		if v.calledAt(e.Pos, m[1]) {
			var funcs []string
			for _, f := range builtin.Builtins {
				funcs = append(funcs, f.Name)
			}
			if hint = mspec.DidYouMeanHint(m[1], funcs); hint == "" {
				hint = fmt.Sprintf("expressions have no function %s(); see https://expr-lang.org/docs/language-definition for the ones they have", m[1])
			}
		} else if hint == "" {
			hint = "context variables: " + mspec.ListNames(v.varNames(), 12)
		}
	} else if m := notCallableRE.FindStringSubmatch(e.Msg); m != nil && v.hidesBuiltin(e) != "" {
		hint = fmt.Sprintf("the context variable %q hides the expression function %s(): rename the variable", v.hidesBuiltin(e), v.hidesBuiltin(e))
	} else if e.Msg == mspec.ErrFloatToInt.Error() {
		hint = "the fraction would be lost: convert it with int(...) (which truncates), or declare the variable as float"
	} else if m := expectedTypeRE.FindStringSubmatch(exprMessage(e.Msg)); m != nil {
		hint = expectedTypeHint(m[1], m[2])
	} else if strings.Contains(exprMessage(e.Msg), "+ (mismatched types list and list)") {
		hint = "+ does not join lists: write concat(a, b) (concat(l, [x]) appends one item)"
	} else if strings.Contains(e.Msg, "mismatched types") {
		hint = "both sides must have compatible types: numbers are written without quotes, strings with them"
	} else {
		hint = exprHint(e.Msg, mspec.SourceLine(v.spec.Source, e.Pos.Line), e.Pos.Col)
	}
	v.errorf(e.Pos, span, hint, "%s: %s", what, exprMessage(e.Msg))
}

// bareWordAt reports whether the name written at p is the whole value
// there: nothing but the YAML value's start (its quote, a ": ", a flow
// collection's [ { ,) before it on its line, nothing but its end after it.
func (v *validator) bareWordAt(p mspec.Pos, name string) bool {
	runes := []rune(mspec.SourceLine(v.spec.Source, p.Line))
	if p.Col < 1 || p.Col-1+len([]rune(name)) > len(runes) || string(runes[p.Col-1:p.Col-1+len([]rune(name))]) != name {
		return false
	}
	before := strings.TrimRight(string(runes[:p.Col-1]), " ")
	after := strings.TrimLeft(string(runes[p.Col-1+len([]rune(name)):]), " ")
	if after != "" && !strings.ContainsAny(after[:1], ",}]'\"#") {
		return false
	}
	return before != "" && strings.ContainsAny(before[len(before)-1:], ":'\"[{,-")
}

// calledAt reports whether the name written at p is called: `name(`.
func (v *validator) calledAt(p mspec.Pos, name string) bool {
	runes := []rune(mspec.SourceLine(v.spec.Source, p.Line))
	if p.Col < 1 || p.Col > len(runes) {
		return false
	}
	rest := strings.TrimPrefix(string(runes[p.Col-1:]), name)
	return strings.HasPrefix(strings.TrimLeft(rest, " "), "(")
}

// resultLiterals returns the string literals an expression can evaluate to:
// the expression itself, or the branches of its conditionals.
func resultLiterals(n ast.Node) []*ast.StringNode {
	switch x := n.(type) {
	case *ast.StringNode:
		return []*ast.StringNode{x}
	case *ast.ConditionalNode:
		return append(resultLiterals(x.Exp1), resultLiterals(x.Exp2)...)
	case *ast.BinaryNode:
		if x.Operator == "??" {
			return append(resultLiterals(x.Left), resultLiterals(x.Right)...)
		}
	}
	return nil
}

type enumCmp struct {
	v   *mspec.Var
	lit *ast.StringNode
}

// enumComparisons finds string literals compared with ==, != or in against an
// enum variable that are not among its values.
func enumComparisons(root ast.Node, spec *mspec.Spec) []enumCmp {
	var out []enumCmp
	enumVar := func(n ast.Node) *mspec.Var {
		id, ok := n.(*ast.IdentifierNode)
		if !ok {
			return nil
		}
		if id.Value == mspec.VarState && len(spec.States) > 0 {
			return &mspec.Var{Name: mspec.VarState, Type: mspec.TypeString, Enum: spec.StateNames()} // state holds a state's name
		}
		cv := spec.Var(id.Value)
		if cv == nil || len(cv.Enum) == 0 {
			return nil
		}
		return cv
	}
	check := func(cv *mspec.Var, n ast.Node) {
		for _, lit := range resultLiterals(n) {
			if !mspec.Contains(cv.Enum, lit.Value) {
				out = append(out, enumCmp{cv, lit})
			}
		}
	}
	ast.Find(root, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryNode)
		if !ok {
			return false
		}
		switch b.Operator {
		case "==", "!=":
			if cv := enumVar(b.Left); cv != nil {
				check(cv, b.Right)
			} else if cv := enumVar(b.Right); cv != nil {
				check(cv, b.Left)
			}
		case "in", "not in":
			if cv := enumVar(b.Left); cv != nil {
				if arr, ok := b.Right.(*ast.ArrayNode); ok {
					for _, item := range arr.Nodes {
						check(cv, item)
					}
				}
			}
		}
		return false
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].lit.Location().From < out[j].lit.Location().From })
	return out
}

// valueSpan measures the scalar written at p (quotes included), up to the end of the line or a comment.
func valueSpan(src []byte, p mspec.Pos) int {
	line := mspec.SourceLine(src, p.Line)
	if p.Col < 1 || p.Col > len(line) {
		return 1
	}
	rest := line[p.Col-1:]
	if q := rest[0]; q == '"' || q == '\'' {
		if end := strings.IndexByte(rest[1:], q); end >= 0 {
			return end + 2
		}
		return len(rest)
	}
	for _, stop := range []string{" #", ", ", "}", "]"} {
		if i := strings.Index(rest, stop); i >= 0 {
			rest = rest[:i]
		}
	}
	if n := len(strings.TrimRight(rest, " ")); n > 0 {
		return n
	}
	return 1
}

// findWord finds the identifier word in src at or after p (within a few
// lines), returning p when it is not found.
func findWord(src []byte, p mspec.Pos, word string) mspec.Pos {
	if !p.IsValid() || word == "" {
		return p
	}
	for l := p.Line; l < p.Line+20; l++ {
		line := mspec.SourceLine(src, l)
		from := 0
		if l == p.Line {
			from = p.Col - 1
		}
		for from >= 0 && from < len(line) {
			i := strings.Index(line[from:], word)
			if i < 0 {
				break
			}
			at := from + i
			end := at + len(word)
			if (at == 0 || !mspec.IsIdentByte(line[at-1])) && (end >= len(line) || !mspec.IsIdentByte(line[end])) {
				return mspec.Pos{Line: l, Col: at + 1}
			}
			from = end
		}
	}
	return p
}
