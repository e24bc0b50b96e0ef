package gate_test

import (
	"testing"

	"github.com/lppctl/lppctl/machine/lpp/gate"
)

// Every guard Translate writes prints as a gate that translates back
// to the same guard, or to one of these that means the same (not x == y is
// x != y to the translator).
var equivalent = map[string]string{`!(approved == true)`: `approved != true`,
	// a clash of types: `x is None and False` says the same
	`(name == nil) && false`: `name == nil && false`, `(name == nil) && true`: `name == nil && true`,
	`(count == nil) && false`: `count == nil && false`, `(name == nil) && "a" == nil`: `name == nil && "a" == nil`}

func TestPrintGateInvertsTranslateGate(t *testing.T) {
	for _, tt := range gate.TranslateGateCases {
		if tt.Want == "" {
			continue
		}
		t.Run(tt.Src, func(t *testing.T) {
			py, err := gate.PrintGate(tt.Want)
			if err != nil {
				t.Fatalf("gate.PrintGate(%s): %v", tt.Want, err)
			}
			back, err := gate.Translate(py, gate.TestTypes)
			if err != nil {
				t.Fatalf("the printed gate %q does not translate: %v", py, err)
			}
			if back != tt.Want && equivalent[tt.Want] != back {
				t.Errorf("%s prints as %s, which translates to %s", tt.Want, py, back)
			}
		})
	}
}

// FuzzPrintGate feeds arbitrary guards to the printer: it never panics,
// and what it prints the translator reads without panicking.
func FuzzPrintGate(f *testing.F) {
	for _, tt := range gate.TranslateGateCases {
		f.Add(tt.Want)
	}
	f.Add(`lpp_payload?.x != nil && (m?.["a-b"] ?? 1) > 0`)
	f.Fuzz(func(t *testing.T, guard string) {
		py, err := gate.PrintGate(guard)
		if err != nil {
			return
		}
		_, _ = gate.Translate(py, gate.TestTypes)
	})
}
