package export

import (
	mspec "github.com/lppctl/lppctl/machine/spec"
	"testing"
)

// TestTLATranslatesTheExpressionSubset: each construct the specs use has
// its TLA+ term; types decide + (add or concatenate) and in (elements or
// keys).
func TestTLATranslatesTheExpressionSubset(t *testing.T) {
	env := map[string]any{"n": 0, "s": "", "ok": false, "l": []any{}, "m": map[string]any{}, mspec.VarState: "", mspec.VarLastError: ""}
	names := map[string]string{"n": "n", "s": "s", "ok": "ok", "l": "l", "m": "m", mspec.VarState: "state", mspec.VarLastError: "w_last"}
	tests := []struct{ src, want string }{
		{`n + 1 >= 3 && !ok`, `(((n + 1) >= 3) /\ ~(ok))`},
		{`n == 2 || s != "a\"b"`, `((n = 2) \/ (s # "a\"b"))`},
		{`-n * 2 % 3 - 1`, `(((-(n) * 2) % 3) - 1)`},
		{`s + "x"`, `(s \o "x")`},
		{`concat(l, [s, n])`, `(l \o <<s, n>>)`},
		{`s in ["a", "b"]`, `(s \in SetOf(<<"a", "b">>))`},
		{`"k" in m`, `("k" \in DOMAIN m)`},
		{`not (s in l)`, `~((s \in SetOf(l)))`},
		{`last_error contains "503"`, `Contains(w_last, "503")`},
		{`s startsWith "a" || s endsWith "b"`, `(HasPrefix(s, "a") \/ HasSuffix(s, "b"))`},
		{`hasPrefix(s, "[A]") && hasSuffix(s, "]")`, `(HasPrefix(s, "[A]") /\ HasSuffix(s, "]"))`},
		{`"step " + string(n + 1)`, `("step " \o ToString((n + 1)))`},
		{`string(s)`, `s`},
		{`join(l, "; ") + join(l)`, `(Join(l, "; ") \o Join(l, ""))`},
		{`len(s) + len(l) + len(m)`, `((Len(s) + Len(l)) + Cardinality(DOMAIN m))`},
		{`ok ? n : 0`, `(IF ok THEN n ELSE 0)`},
		{`m.k == nil && m["j"] == 1`, `((m["k"] = Nil) /\ (m["j"] = 1))`},
		{`{"a": 1, "b": [true]}`, `("a" :> 1 @@ "b" :> <<TRUE>>)`},
		{`{}`, `<<>>`},
		{`state == "ask"`, `(state = "ask")`},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			tr := &tlaTranslator{names: names, uses: map[string]bool{}}
			got, err := tr.translate(tt.src, env, tlaExprSite{file: "t.yaml", what: "guard"})
			if err != nil || got != tt.want {
				t.Errorf("translate(%s) = %s, %v; want %s", tt.src, got, err, tt.want)
			}
		})
	}
}

// TestTLAValues: defaults and domain values as TLA+ terms; a float is refused.
func TestTLAValues(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{nil, "Nil"},
		{true, "TRUE"},
		{-3, "-3"},
		{"a\\b\n", `"a\\b\n"`},
		{[]any{"item", 1}, `<<"item", 1>>`},
		{map[string]any{"z": 1, "a": "x"}, `("a" :> "x" @@ "z" :> 1)`},
		{map[string]any{}, "<<>>"},
	}
	for _, tt := range tests {
		if got, err := tlaValue(tt.v); err != nil || got != tt.want {
			t.Errorf("tlaValue(%#v) = %s, %v; want %s", tt.v, got, err, tt.want)
		}
	}
	if _, err := tlaValue(0.5); err == nil || err.Error() != "the float 0.5 (TLC has no floats)" {
		t.Errorf("tlaValue(0.5) error = %v", err)
	}
}
