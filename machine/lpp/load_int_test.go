package lpp

import "testing"

// An integer default is kept exactly when it fits a 64-bit integer, even
// beyond a float's 53 bits; a larger one is refused (the malformed corpus's
// big_integer_default).
func TestIntegerDefaultsKeepTheirDigits(t *testing.T) {
	for _, c := range []struct {
		text string
		want int
	}{
		{"12345", 12345},
		{"9007199254740993", 9007199254740993},
		{"9223372036854775807", 9223372036854775807},
		{"-9223372036854775808", -9223372036854775808},
	} {
		t.Run(c.text, func(t *testing.T) {
			src := `{"$schema": "lpp/v0.2.0", "id": "n", "name": "n", "version": "1",
  "context_schema": {"properties": {"n": {"type": "integer", "default": ` + c.text + `}}},
  "states": {"a": {}, "b": {}}, "entry_state": "a", "terminal_states": {"b": {}},
  "transitions": [{"id": "t", "from": "a", "to": "b", "on_event": "GO"}]}`
			bp, diags := Parse("n.json", []byte(src))
			if diags.HasErrors() {
				t.Fatalf("errors:\n%s", diags.Errors())
			}
			p := bp.Property("n")
			if p == nil || p.Default != c.want {
				t.Fatalf("default %#v, want %d", p.Default, c.want)
			}
		})
	}
}
