package check

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	mspec "github.com/lppctl/lppctl/machine/spec"
)

// exprGen writes random expressions over the compiled-evaluation tests'
// variables (fastNames), of the shapes the compiler knows and of some it
// does not, nested: what no list of cases foresees, such as a ?: of
// comparisons inside a sum, or a negated `in` under an `or`.
type exprGen struct{ rng *rand.Rand }

func (g exprGen) pick(opts ...string) string { return opts[g.rng.IntN(len(opts))] }

// intLit is an int literal, often a boundary one.
func (g exprGen) intLit() string {
	return g.pick("0", "1", "2", "3", "7", "-1", "-3", "9223372036854775807", "-9223372036854775807", "4611686018427387904")
}

func (g exprGen) strLit() string { return g.pick(`""`, `"up"`, `"down"`, `"hold"`, `"UP"`, `"up "`) }

func (g exprGen) intExpr(depth int) string {
	if depth <= 0 || g.rng.IntN(3) == 0 {
		return g.pick("a", "b", "c", "n", g.intLit())
	}
	d := depth - 1
	switch g.rng.IntN(9) {
	case 0, 1:
		return g.intExpr(d) + " + " + g.intExpr(d)
	case 2:
		return g.intExpr(d) + " - " + g.intExpr(d)
	case 3:
		return g.intExpr(d) + " * " + g.intExpr(d)
	case 4:
		return g.intExpr(d) + " % " + g.intExpr(d)
	case 5:
		return "-" + g.pick("a", "b", "("+g.intExpr(d)+")")
	case 6:
		return "(" + g.boolExpr(d) + " ? " + g.intExpr(d) + " : " + g.intExpr(d) + ")"
	case 7:
		return "(" + g.intExpr(d) + ")"
	default:
		return g.pick("len(s)", "abs(a)", "max(a, b)") // not compiled: expr alone
	}
}

func (g exprGen) strExpr(depth int) string {
	if depth <= 0 || g.rng.IntN(2) == 0 {
		return g.pick("s", "t", g.strLit())
	}
	d := depth - 1
	switch g.rng.IntN(3) {
	case 0:
		return "(" + g.boolExpr(d) + " ? " + g.strExpr(d) + " : " + g.strExpr(d) + ")"
	case 1:
		return "(" + g.strExpr(d) + ")"
	default:
		return g.strExpr(d) + " + " + g.strExpr(d) // not compiled
	}
}

func (g exprGen) boolExpr(depth int) string {
	if depth <= 0 || g.rng.IntN(4) == 0 {
		return g.pick("f", "g", "true", "false")
	}
	d := depth - 1
	cmp := g.pick("==", "!=", "<", "<=", ">", ">=")
	switch g.rng.IntN(12) {
	case 0, 1:
		return g.intExpr(d) + " " + cmp + " " + g.intExpr(d)
	case 2:
		return g.strExpr(d) + " " + cmp + " " + g.strExpr(d)
	case 3:
		return g.boolExpr(d) + " " + g.pick("&&", "and") + " " + g.boolExpr(d)
	case 4:
		return g.boolExpr(d) + " " + g.pick("||", "or") + " " + g.boolExpr(d)
	case 5:
		return g.pick("!", "not ") + "(" + g.boolExpr(d) + ")"
	case 6:
		return "(" + g.boolExpr(d) + ") " + g.pick("==", "!=") + " (" + g.boolExpr(d) + ")"
	case 7:
		return g.intExpr(d) + " in [" + g.intLit() + ", " + g.intLit() + "]"
	case 8:
		return g.strExpr(d) + g.pick(" in ", " not in ") + "[" + g.strLit() + ", " + g.strLit() + "]"
	case 9:
		return "(" + g.boolExpr(d) + " ? " + g.boolExpr(d) + " : " + g.boolExpr(d) + ")"
	case 10:
		return "n " + g.pick("==", "!=") + " " + g.pick("nil", "2")
	default:
		return g.pick(`s contains "u"`, `hasPrefix(s, "d")`, "a / b > 1") // not compiled
	}
}

// TestCompiledEvaluationAgreesOnGeneratedExpressions: on thousands of
// random nested expressions, every one the closures compile gives expr's
// value wherever the closures give one (they defer on overflow, division by
// zero and null), on boundary values; and the generator reaches the
// compiler: most of them compile, and on many value tuples they do not
// defer (else the comparison proves nothing).
func TestCompiledEvaluationAgreesOnGeneratedExpressions(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 1))
	g := exprGen{rng}
	const exprs = 3000
	var refused, compiled, answered, evaluated int
	for i := range exprs {
		typ, src := mspec.TypeBool, ""
		switch i % 3 {
		case 0:
			src = g.boolExpr(4)
		case 1:
			typ, src = mspec.TypeInt, g.intExpr(4)
		default:
			typ, src = mspec.TypeString, g.strExpr(3)
		}
		p, f, ok := compileFastCase(t, src, typ)
		if !ok {
			refused++ // expr's checker refuses it (a nil compared with an int, say)
			continue
		}
		if f == nil {
			continue
		}
		compiled++
		for range 40 {
			evaluated++
			if agree(t, src, p, f, fastValues(rng)) {
				answered++
			}
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("%d expressions: %d refused by expr, %d compiled; %d of %d evaluations answered by the closures",
		exprs, refused, compiled, answered, evaluated)
	assert.Greater(t, compiled, exprs/3, "the generator reaches the compiler")
	assert.Greater(t, answered, evaluated/4, "the closures answer, not only defer")
}

// TestExprGenWritesWhatExprReads: the generator's expressions parse: a
// shape that expr cannot read would test nothing.
func TestExprGenWritesWhatExprReads(t *testing.T) {
	g := exprGen{rand.New(rand.NewPCG(30, 2))}
	var bad []string
	for range 300 {
		src := g.boolExpr(3)
		if _, err := mspec.CompileGuard(src, fastEnvTypes()); err != nil && !strings.Contains(err.Error(), "mismatched types") &&
			!strings.Contains(err.Error(), "invalid operation") {
			bad = append(bad, fmt.Sprintf("%s: %v", src, err))
		}
	}
	require.Empty(t, bad)
}
