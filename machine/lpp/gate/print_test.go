package gate

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPrintGate(t *testing.T) {
	tests := []struct{ guard, want string }{
		{`target == nil`, `target is None`},
		{`nil != target`, `None is not target`},
		{`count > 1 && !(score < 2) || approved == true`, `count > 1 and not score < 2 or approved == True`},
		{`(name ?? "") != ""`, `name`},
		{`!(len(items ?? []) > 0)`, `not items`},
		{`(meta?.k ?? 0) > 2`, `meta.get('k', 0) > 2`},
		{`floor(count / 2) == 1`, `count // 2 == 1`},
		{`name contains "a"`, `'a' in name`},
		{`"x" not in items`, `'x' not in items`},
		{`name == "it's"`, `name == 'it\'s'`},
		{`lpp_payload?.target != nil`, `event.payload.get('target') is not None`},
		{`lpp_payload.target == "x"`, `event.payload.target == 'x'`},
		{`(c ? 1 : 2) > 1`, `(1 if c else 2) > 1`},
	}
	for _, tt := range tests {
		t.Run(tt.guard, func(t *testing.T) {
			got, err := PrintGate(tt.guard)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("PrintGate(%s) = %s, want %s", tt.guard, got, tt.want)
			}
		})
	}
}

// What L++ gates cannot say is refused with its column.
func TestPrintGateRefuses(t *testing.T) {
	tests := []struct{ guard, want string }{
		{`name matches "a+"`, `column 6: the operator matches has no L++ equivalent`},
		{`all(items, # > 1)`, `column 1: all() has no L++ equivalent`},
		{`{"a": 1}.a == 1`, `column 1: a map literal (L++ gates have no dict literals) has no L++ equivalent`},
		{`now() > x`, `column 1: now() has no L++ equivalent`},
		{`(x ?? 1) > 0`, `column 4: ?? (a default) on anything but a map's field has no L++ equivalent`},
		{`count > 1 and hasPrefix(name, "a") and len(split(name, ",")) > 1`, `column 44: split() has no L++ equivalent`},
	}
	for _, tt := range tests {
		t.Run(tt.guard, func(t *testing.T) {
			_, err := PrintGate(tt.guard)
			var pe *PrintError
			if !errors.As(err, &pe) || err.Error() != tt.want {
				t.Fatalf("PrintGate(%s): %v; want %s", tt.guard, err, tt.want)
			}
		})
	}
}

// A precondition the import writes, split from its gate by export (a guard
// edited by hand), prints as Python that fails where the call it checks does.
func TestAGateFunctionCheckAlonePrintsAsPythonThatFailsAlike(t *testing.T) {
	tests := []struct{ guard, want string }{
		{`py_ok("int", s)`, `int(s) is not None`},
		{`py_ok("mod", n, m)`, `n % m is not None`},
		{`py_ok("cmp", l, "<", [2])`, `(l < [2]) is not None`},
		{`py_ok("round", n, 1) && py_round(n, 1) == 2.5`, `round(n, 1) == 2.5`},
		{`(n == nil || m == nil || m != 0) && (n != nil && m != nil && n / m > 1)`, `n / m > 1`},
		{`py_str(n, "number") == "5"`, `str(n) == '5'`},
		{`py_cmp(f, "<", 2)`, `f < 2`},
		{`py_eq(n, true)`, `n == True`},
		{`!py_eq(s, 1)`, `not s == 1`},
		{`concat(l, [3]) == [1, 3]`, `l + [3] == [1, 3]`},
		{`py_mul(s, 2) == "abab"`, `s * 2 == 'abab'`},
	}
	for _, tt := range tests {
		t.Run(tt.guard, func(t *testing.T) {
			got, err := PrintGate(tt.guard)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}
