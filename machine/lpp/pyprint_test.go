package lpp

import (
	"errors"
	"testing"
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
