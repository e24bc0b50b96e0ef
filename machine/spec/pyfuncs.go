package spec

import (
	"maps"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/expr-lang/expr"
)

// The gate functions: Python's builtins and operators where expr's differ,
// for the gates `lppctl import lpp` translates (machine/lpp/gate). Each
// fails where Python raises; the translation evaluates PyOK first, so that
// a failure makes the gate false, as in lpp, and never stops a run.
// They take and return expr values (nil is None).

// The functions' names (a blueprint property of one of these names gets
// another name inside lppctl, see gate.ReservedName).
const (
	FnPyOK       = "py_ok"       // py_ok("int", x): whether py_int(x) succeeds
	FnPyStr      = "py_str"      // str(x); py_str(x, "number") for a number property
	FnPyInt      = "py_int"      // int(x)
	FnPyFloat    = "py_float"    // float(x)
	FnPyRound    = "py_round"    // round(x), round(x, n): half to even
	FnPyAbs      = "py_abs"      // abs(x)
	FnPyLen      = "py_len"      // len(x)
	FnPySum      = "py_sum"      // sum(l)
	FnPyMin      = "py_min"      // min(l), min(a, b, ...)
	FnPyMax      = "py_max"      // max(l), max(a, b, ...)
	FnPyMod      = "py_mod"      // a % b: the sign of the divisor
	FnPyFloorDiv = "py_floordiv" // a // b: rounded down
	FnPyMul      = "py_mul"      // a * b: also 'ab' * 2 and [1] * 2
	FnPyEq       = "py_eq"       // a == b across types (1 == True, 1 != '1')
	FnPyCmp      = "py_cmp"      // py_cmp(a, "<", b): orderings of lists, numbers with bools
	FnPyIn       = "py_in"       // py_in(x, l): x in a list by Python's == (1 in [True])
)

// pyFuncs are the gate functions by the name py_ok takes ("int" for py_int).
var pyFuncs = map[string]func(args ...any) (any, error){
	"str":      func(args ...any) (any, error) { return pyStr1(args) },
	"int":      pyInt,
	"float":    pyFloat,
	"round":    pyRound,
	"abs":      pyAbs,
	"len":      pyLen,
	"sum":      pySum,
	"min":      func(args ...any) (any, error) { return pyMinMax("min", args) },
	"max":      func(args ...any) (any, error) { return pyMinMax("max", args) },
	"mod":      pyModFn,
	"floordiv": pyFloorDivFn,
	"mul":      pyMul,
	"eq":       pyEqFn,
	"cmp":      pyCmpFn,
	"in":       pyInFn,
}

// PyFuncNames are the names of the gate functions.
func PyFuncNames() []string {
	names := []string{FnPyOK}
	for k := range pyFuncs {
		names = append(names, "py_"+k)
	}
	slices.Sort(names)
	return names
}

// pyOptions defines the gate functions, but none a context variable's
// name takes (its expressions keep reading the variable).
func pyOptions(env map[string]any) []expr.Option {
	all := pyFuncOptions()
	opts := make([]expr.Option, 0, len(all))
	for _, f := range all {
		if _, taken := env[f.name]; !taken {
			opts = append(opts, f.opt)
		}
	}
	return opts
}

// pyPrefix starts the name of every gate function.
const pyPrefix = "py_"

// namedOption is an expr function option and the name it defines.
type namedOption struct {
	name string
	opt  expr.Option
}

// pyFuncOptions are the gate functions' options, sorted by name, built
// once: every expression of every spec is compiled with them, and building
// them at each compile cost a quarter of loading a spec.
var pyFuncOptions = sync.OnceValue(func() []namedOption {
	out := []namedOption{{FnPyOK, expr.Function(FnPyOK, pyOK, new(func(string, ...any) bool))}}
	for _, k := range slices.Sorted(maps.Keys(pyFuncs)) {
		out = append(out, namedOption{"py_" + k, expr.Function("py_"+k, pyFuncs[k])})
	}
	return out
})

// pyOK reports whether the gate function named by args[0] succeeds on the
// rest of args.
func pyOK(args ...any) (any, error) {
	name, _ := args[0].(string)
	fn, ok := pyFuncs[name]
	if !ok {
		return nil, pyValueErr("py_ok: no gate function %q", name)
	}
	_, err := fn(args[1:]...)
	return err == nil, nil
}

func wantArgs(fn string, args []any, lo, hi int) error {
	if len(args) < lo || len(args) > hi {
		return pyTypeErr("%s() takes %d to %d arguments, not %d", fn, lo, hi, len(args))
	}
	return nil
}

// pyStr1 is str(x); py_str(x, "number") is str of a `number` property's
// value, which lppctl holds as a float although lpp holds what JSON wrote:
// an integral value prints as an int (str(n) is '5' for n = 5, as in lpp
// for the JSON 5).
func pyStr1(args []any) (any, error) {
	if err := wantArgs("str", args, 1, 2); err != nil {
		return nil, err
	}
	if len(args) == 2 && args[1] == "number" {
		if f, ok := args[0].(float64); ok && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return strconv.FormatFloat(f, 'f', 0, 64), nil
		}
	}
	return pyStr(args[0]), nil
}

// pyIntRE and pyFloatRE are the texts Python's int() and float() read
// (after the surrounding white space): digits with single underscores
// between them.
var (
	pyIntRE   = regexp.MustCompile(`^[+-]?[0-9](?:_?[0-9])*$`)
	pyFloatRE = regexp.MustCompile(`^[+-]?(?:(?:[0-9](?:_?[0-9])*(?:\.(?:[0-9](?:_?[0-9])*)?)?|\.[0-9](?:_?[0-9])*)(?:[eE][+-]?[0-9](?:_?[0-9])*)?|(?i:inf|infinity|nan))$`)
)

func pyInt(args ...any) (any, error) {
	if err := wantArgs("int", args, 1, 1); err != nil {
		return nil, err
	}
	switch x := args[0].(type) {
	case string:
		s := strings.TrimSpace(x)
		if !pyIntRE.MatchString(s) {
			return nil, pyValueErr("invalid literal for int() with base 10: %s", pyReprString(x))
		}
		i, err := strconv.Atoi(strings.ReplaceAll(s, "_", ""))
		if err != nil {
			return nil, pyValueErr("int(%s) is out of lppctl's int range", pyReprString(x))
		}
		return i, nil
	}
	n, ok := pyNum(args[0])
	if !ok {
		return nil, pyTypeErr("int() argument must be a string or a number, not '%s'", pyTypeName(args[0]))
	}
	if n.isInt {
		return n.i, nil
	}
	return floatToInt(math.Trunc(n.f))
}

// floatToInt is an integral float as an int, or fails as Python's int()
// does on an infinity or a NaN (and where lppctl's int ends).
func floatToInt(f float64) (any, error) {
	switch {
	case math.IsNaN(f):
		return nil, pyValueErr("cannot convert float NaN to integer")
	case math.IsInf(f, 0):
		return nil, pyValueErr("cannot convert float infinity to integer")
	case f >= math.MaxInt64 || f < math.MinInt64:
		return nil, pyValueErr("%s is out of lppctl's int range", pyReprFloat(f))
	}
	return int(f), nil
}

func pyFloat(args ...any) (any, error) {
	if err := wantArgs("float", args, 1, 1); err != nil {
		return nil, err
	}
	if x, ok := args[0].(string); ok {
		s := strings.TrimSpace(x)
		if !pyFloatRE.MatchString(s) {
			return nil, pyValueErr("could not convert string to float: %s", pyReprString(x))
		}
		f, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
		if err != nil && !math.IsInf(f, 0) { // out of range: Python reads inf as well
			return nil, pyValueErr("could not convert string to float: %s", pyReprString(x))
		}
		return f, nil
	}
	n, ok := pyNum(args[0])
	if !ok {
		return nil, pyTypeErr("float() argument must be a string or a number, not '%s'", pyTypeName(args[0]))
	}
	return n.float(), nil
}

// pyRound is Python's round: half to even, to an int with one argument;
// round(x, n) rounds the exact value of x to n decimals (n < 0: to tens,
// hundreds, ...), an int for an int x, a float for a float one.
func pyRound(args ...any) (any, error) {
	if err := wantArgs("round", args, 1, 2); err != nil {
		return nil, err
	}
	x, ok := pyNum(args[0])
	if !ok {
		return nil, pyTypeErr("type %s doesn't define __round__ method", pyTypeName(args[0]))
	}
	if len(args) == 1 || args[1] == nil {
		if x.isInt {
			return x.i, nil
		}
		return floatToInt(math.RoundToEven(x.f))
	}
	nd, ok := pyNum(args[1])
	if !ok || !nd.isInt {
		return nil, pyTypeErr("'%s' object cannot be interpreted as an integer", pyTypeName(args[1]))
	}
	n := nd.i
	if x.isInt {
		if n >= 0 {
			return x.i, nil
		}
		if n < -19 {
			return 0, nil
		}
		r := roundRatToEven(new(big.Rat).SetInt64(int64(x.i)), n)
		f, _ := r.Float64()
		if !r.IsInt() || f >= math.MaxInt64 || f < math.MinInt64 {
			return nil, pyValueErr("round(%d, %d) is out of lppctl's int range", x.i, n)
		}
		return int(r.Num().Int64()), nil
	}
	switch {
	case math.IsNaN(x.f) || math.IsInf(x.f, 0) || x.f == 0 || n > 323:
		return x.f, nil
	case n < -308:
		return 0.0 * x.f, nil
	}
	f, _ := roundRatToEven(new(big.Rat).SetFloat64(x.f), n).Float64()
	if math.IsInf(f, 0) {
		return nil, pyValueErr("rounded value too large to represent")
	}
	return math.Copysign(f, x.f), nil // round(-0.4) is -0.0
}

// roundRatToEven rounds r to a multiple of 10^-n, half to even.
func roundRatToEven(r *big.Rat, n int) *big.Rat {
	scale := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(n))), nil))
	if n >= 0 {
		r = new(big.Rat).Mul(r, scale)
	} else {
		r = new(big.Rat).Quo(r, scale)
	}
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int)) // truncated
	twice := new(big.Int).Mul(new(big.Int).Abs(m), big.NewInt(2))
	if c := twice.Cmp(r.Denom()); c > 0 || c == 0 && q.Bit(0) == 1 {
		if r.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	out := new(big.Rat).SetInt(q)
	if n >= 0 {
		return out.Quo(out, scale)
	}
	return out.Mul(out, scale)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func pyAbs(args ...any) (any, error) {
	if err := wantArgs("abs", args, 1, 1); err != nil {
		return nil, err
	}
	n, ok := pyNum(args[0])
	switch {
	case !ok:
		return nil, pyTypeErr("bad operand type for abs(): '%s'", pyTypeName(args[0]))
	case !n.isInt:
		return math.Abs(n.f), nil
	case n.i == math.MinInt:
		return nil, pyValueErr("abs(%d) is out of lppctl's int range", n.i)
	}
	return abs(n.i), nil
}

func pyLen(args ...any) (any, error) {
	if err := wantArgs("len", args, 1, 1); err != nil {
		return nil, err
	}
	if s, ok := args[0].(string); ok {
		return utf8.RuneCountInString(s), nil
	}
	if l, ok := pyList(args[0]); ok {
		return len(l), nil
	}
	if m, ok := pyDict(args[0]); ok {
		return len(m), nil
	}
	return nil, pyTypeErr("object of type '%s' has no len()", pyTypeName(args[0]))
}

// pyItems are the items Python iterates over in v: a list's, a string's
// characters, a dict's keys.
func pyItems(fn string, v any) ([]any, error) {
	if l, ok := pyList(v); ok {
		return l, nil
	}
	if s, ok := v.(string); ok {
		out := []any{}
		for _, r := range s {
			out = append(out, string(r))
		}
		return out, nil
	}
	if m, ok := pyDict(v); ok {
		out := make([]any, 0, len(m))
		for k := range m {
			out = append(out, k)
		}
		slices.SortFunc(out, func(a, b any) int { return strings.Compare(a.(string), b.(string)) })
		return out, nil
	}
	return nil, pyTypeErr("'%s' object is not iterable", pyTypeName(v))
}

// pySum is Python's sum(l) (CPython 3.11: ints add up exactly, then floats
// one after the other, from 0).
func pySum(args ...any) (any, error) {
	if err := wantArgs("sum", args, 1, 1); err != nil {
		return nil, err
	}
	if _, ok := args[0].(string); ok {
		return nil, pyTypeErr("unsupported operand type(s) for +: 'int' and 'str'")
	}
	items, err := pyItems("sum", args[0])
	if err != nil {
		return nil, err
	}
	acc := pyNumber{isInt: true}
	for _, it := range items {
		n, ok := pyNum(it)
		if !ok {
			return nil, pyTypeErr("unsupported operand type(s) for +: '%s' and '%s'", pyTypeName(acc.value()), pyTypeName(it))
		}
		if acc, err = pyAdd(acc, n); err != nil {
			return nil, err
		}
	}
	return acc.value(), nil
}

func pyAdd(a, b pyNumber) (pyNumber, error) {
	if a.isInt && b.isInt {
		s, err := checkedOp(FnAdd, a.i, b.i)
		if err != nil {
			return a, pyValueErr("%v", err)
		}
		return pyNumber{i: s, isInt: true}, nil
	}
	return pyNumber{f: a.float() + b.float()}, nil
}

// pyMinMax is Python's min and max: of a list's items (one argument) or of
// the arguments; the first of equal items; empty or mixed types fail.
func pyMinMax(fn string, args []any) (any, error) {
	items := args
	if len(args) == 1 {
		var err error
		if items, err = pyItems(fn, args[0]); err != nil {
			return nil, err
		}
	}
	if len(items) == 0 {
		return nil, pyValueErr("%s() arg is an empty sequence", fn)
	}
	op := map[string]string{"min": "<", "max": ">"}[fn]
	best := items[0]
	for _, it := range items[1:] {
		if it == nil || best == nil {
			return nil, pyTypeErr("'%s' not supported between instances of '%s' and '%s'", op, pyTypeName(it), pyTypeName(best))
		}
		better, err := pyCompare(it, op, best)
		if err != nil {
			return nil, err
		}
		if better {
			best = it
		}
	}
	return best, nil
}

// pyDivArgs reads the operands of % and //, and fails on a zero divisor.
func pyDivArgs(op string, args []any) (pyNumber, pyNumber, error) {
	if err := wantArgs(op, args, 2, 2); err != nil {
		return pyNumber{}, pyNumber{}, err
	}
	a, aok := pyNum(args[0])
	b, bok := pyNum(args[1])
	if !aok || !bok {
		return a, b, pyTypeErr("unsupported operand type(s) for %s: '%s' and '%s'", op, pyTypeName(args[0]), pyTypeName(args[1]))
	}
	if b.isInt && b.i == 0 || !b.isInt && b.f == 0 {
		return a, b, pyValueErr("ZeroDivisionError: %s by zero", op)
	}
	return a, b, nil
}

func pyModFn(args ...any) (any, error) {
	a, b, err := pyDivArgs("%", args)
	if err != nil {
		return nil, err
	}
	if a.isInt && b.isInt {
		if b.i == -1 {
			return 0, nil
		}
		m := a.i % b.i
		if m != 0 && (m < 0) != (b.i < 0) {
			m += b.i
		}
		return m, nil
	}
	_, m := pyFloatDivMod(a.float(), b.float())
	return m, nil
}

func pyFloorDivFn(args ...any) (any, error) {
	a, b, err := pyDivArgs("//", args)
	if err != nil {
		return nil, err
	}
	if a.isInt && b.isInt {
		if a.i == math.MinInt && b.i == -1 {
			return nil, pyValueErr("%d // -1 is out of lppctl's int range", a.i)
		}
		q := a.i / b.i
		if a.i%b.i != 0 && (a.i < 0) != (b.i < 0) {
			q--
		}
		return q, nil
	}
	d, _ := pyFloatDivMod(a.float(), b.float())
	return d, nil
}

// pyFloatDivMod is CPython's float floor division and modulo (b != 0).
func pyFloatDivMod(a, b float64) (float64, float64) {
	mod := math.Mod(a, b)
	div := (a - mod) / b
	if mod != 0 {
		if (b < 0) != (mod < 0) {
			mod += b
			div -= 1
		}
	} else {
		mod = math.Copysign(0, b)
	}
	if div != 0 {
		fd := math.Floor(div)
		if div-fd > 0.5 {
			fd++
		}
		div = fd
	} else {
		div = math.Copysign(0, a/b)
	}
	return div, mod
}

// maxRepeat bounds what 'ab' * n and [x] * n build (items): past it the
// gate fails (Python would build it, or run out of memory).
const maxRepeat = 1 << 20

// pyMul is Python's a * b: numbers, or a string or a list repeated (n <= 0
// gives an empty one).
func pyMul(args ...any) (any, error) {
	if err := wantArgs("*", args, 2, 2); err != nil {
		return nil, err
	}
	a, aok := pyNum(args[0])
	b, bok := pyNum(args[1])
	switch {
	case aok && bok:
		if a.isInt && b.isInt {
			p, err := checkedOp(FnMul, a.i, b.i)
			if err != nil {
				return nil, pyValueErr("%v", err)
			}
			return p, nil
		}
		return a.float() * b.float(), nil
	case aok && a.isInt:
		return pyRepeat(args[1], a.i, args[0])
	case bok && b.isInt:
		return pyRepeat(args[0], b.i, args[1])
	}
	return nil, pyTypeErr("unsupported operand type(s) for *: '%s' and '%s'", pyTypeName(args[0]), pyTypeName(args[1]))
}

func pyRepeat(v any, n int, other any) (any, error) {
	n = max(n, 0)
	if s, ok := v.(string); ok {
		if n > 0 && len(s) > maxRepeat/n {
			return nil, pyValueErr("the repeated string would be longer than %d bytes", maxRepeat)
		}
		return strings.Repeat(s, n), nil
	}
	if l, ok := pyList(v); ok {
		if n > 0 && len(l) > maxRepeat/n {
			return nil, pyValueErr("the repeated list would be longer than %d items", maxRepeat)
		}
		out := make([]any, 0, len(l)*n)
		for range n {
			out = append(out, l...)
		}
		return out, nil
	}
	return nil, pyTypeErr("can't multiply sequence by non-int of type '%s'", pyTypeName(other))
}

func pyEqFn(args ...any) (any, error) {
	if err := wantArgs("==", args, 2, 2); err != nil {
		return nil, err
	}
	return pyEq(args[0], args[1]), nil
}

// pyInFn is py_in(x, l): whether an item of the list l equals x by
// Python's == (1 in [True] is True, where expr's in compares types too).
func pyInFn(args ...any) (any, error) {
	if err := wantArgs("in", args, 2, 2); err != nil {
		return nil, err
	}
	l, ok := pyList(args[1])
	if !ok {
		return nil, pyTypeErr("py_in: %s is not a list", pyTypeName(args[1]))
	}
	return slices.ContainsFunc(l, func(v any) bool { return pyEq(args[0], v) }), nil
}

// pyCmpFn is py_cmp(a, op, b); either side None gives false (lpp's rule
// for an ordering with None).
func pyCmpFn(args ...any) (any, error) {
	if err := wantArgs("py_cmp", args, 3, 3); err != nil {
		return nil, err
	}
	op, _ := args[1].(string)
	if op != "<" && op != "<=" && op != ">" && op != ">=" {
		return nil, pyValueErr("py_cmp: %q is not an ordering", op)
	}
	if args[0] == nil || args[2] == nil {
		return false, nil
	}
	return pyCompare(args[0], op, args[2])
}
