package spec

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"
)

// TypeEnv returns the typed environment expressions of spec are compiled
// against: every context variable with a value of its type, plus the
// reserved `state` and `last_error` strings.
func TypeEnv(spec *Spec) map[string]any {
	env := make(map[string]any, len(spec.Context)+2)
	for _, v := range spec.Context {
		if v.Type == TypeAny {
			continue // an unknown type was already reported; leave it out so uses report once more
		}
		env[v.Name] = v.Type.Zero()
	}
	env[VarState] = ""
	env[VarLastError] = ""
	return env
}

// exprKeywords are the words expr reads as operators or literals: a context
// variable with one of these names could never be read.
var exprKeywords = []string{"in", "not", "and", "or", "matches", "contains", "startsWith", "endsWith",
	"let", "if", "else", "true", "false", "nil"}

// exprReserved tells why name cannot be a context variable ("" when it can):
// expr reads it as a keyword or a literal, so the variable could never be read.
func exprReserved(name string) string {
	if Contains(exprKeywords, name) {
		return "is a keyword of expressions: no expression could read it"
	}
	return ""
}

// isBuiltin reports whether name is an expression function (len, hasPrefix, ...).
func IsBuiltin(name string) bool {
	for _, f := range builtin.Names {
		if f == name {
			return true
		}
	}
	return false
}

// ExprOptions are the options the spec expression src is compiled with.
// The gate functions (py_round, ...) are defined only for an expression
// that names one: an imported blueprint's gates do, hand-written specs
// rarely, and defining them cost a quarter of loading a spec.
func ExprOptions(env map[string]any, src string) []expr.Option {
	opts := append([]expr.Option{expr.Env(env), expr.MaxNodes(2000)}, arithOptions(env)...)
	opts = append(opts, mapOptions(env)...)
	if strings.Contains(src, pyPrefix) {
		opts = append(opts, pyOptions(env)...)
	}
	opts = append(opts, WholeEventOptions(env, src)...)
	opts = append(opts, clockOptions(env)...)
	return opts
}

// CompileGuard compiles a `when:` expression; it must be a bool.
func CompileGuard(src string, env map[string]any) (*vm.Program, error) {
	return expr.Compile(src, append(ExprOptions(env, src), expr.AsBool())...)
}

// CompileValue compiles a `set:` expression whose result must have type t.
func CompileValue(src string, t Type, env map[string]any) (*vm.Program, error) {
	opts := ExprOptions(env, src)
	switch t {
	case TypeInt:
		opts = append(opts, expr.AsInt())
	case TypeFloat:
		opts = append(opts, expr.AsFloat64())
	case TypeBool:
		opts = append(opts, expr.AsBool())
	case TypeString:
		opts = append(opts, expr.AsKind(reflect.String))
	case TypeList:
		opts = append(opts, expr.AsKind(reflect.Slice))
	case TypeMap:
		opts = append(opts, expr.AsKind(reflect.Map))
	default:
		opts = append(opts, expr.AsAny())
	}
	p, err := expr.Compile(src, opts...)
	if err != nil {
		return nil, err
	}
	// expr.AsInt accepts a float and truncates it at run time; a set must
	// not lose the fraction silently.
	if t == TypeInt {
		if rt := p.Node().Type(); rt != nil && (rt.Kind() == reflect.Float64 || rt.Kind() == reflect.Float32) {
			return nil, ErrFloatToInt
		}
	}
	return p, nil
}

// ErrFloatToInt is CompileValue's error for a float expression given to an int.
var ErrFloatToInt = errors.New("expected int, but got float64")

// ExprError is an expression compile error located in the spec file.
type ExprError struct {
	Pos Pos    // position in the spec file
	Msg string // expr's message, without its own snippet
}

func (e *ExprError) Error() string { return e.Msg }

// locateExprError maps an expr compile error to a file position, given where
// the expression starts in the file.
func LocateExprError(err error, start Pos) *ExprError {
	var fe *file.Error
	if errors.As(err, &fe) {
		p := start
		if fe.Line > 1 {
			p.Line += fe.Line - 1
			p.Col = fe.Column + 1
		} else {
			p.Col += fe.Column
		}
		return &ExprError{Pos: p, Msg: fe.Message}
	}
	return &ExprError{Pos: start, Msg: err.Error()}
}

// identifiers returns the context names an expression reads, sorted and unique.
func Identifiers(p *vm.Program) []string {
	if p == nil {
		return nil
	}
	c := &identCollector{seen: map[string]bool{}}
	node := p.Node()
	ast.Walk(&node, c)
	sort.Strings(c.names)
	return c.names
}

type identCollector struct {
	seen  map[string]bool
	names []string
}

func (c *identCollector) Visit(node *ast.Node) {
	if id, ok := (*node).(*ast.IdentifierNode); ok && !c.seen[id.Value] {
		c.seen[id.Value] = true
		c.names = append(c.names, id.Value)
	}
}

// formatValue renders a value compactly for messages ("3", "\"FAIL\"").
func FormatValue(v any) string {
	switch x := v.(type) {
	case string:
		if len(x) > 60 {
			x = x[:57] + "..."
		}
		return fmt.Sprintf("%q", x)
	case []any:
		return fmt.Sprintf("[%d items]", len(x))
	case map[string]any:
		return fmt.Sprintf("{%d keys}", len(x))
	}
	return fmt.Sprintf("%v", v)
}

// exprSource returns the expression text of a `with:` value given to an expr
// parameter: a string as it is, a number or bool as written; lists, maps and
// null are not expressions.
func ExprSource(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case int, float64, bool:
		return fmt.Sprint(x), true
	}
	return "", false
}
