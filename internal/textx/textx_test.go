package textx

import "testing"

func TestLevenshteinCountsRuneEdits(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"", "abc", 3},
		{"optimizer", "optimiser", 1},
		{"kitten", "sitting", 3},
		{"état", "etat", 1}, // one rune, two bytes
		{"flaw", "lawn", 2},
	} {
		if got := Levenshtein(tt.a, tt.b); got != tt.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestOneLineCollapsesWhiteSpace(t *testing.T) {
	for in, want := range map[string]string{
		"":                   "",
		"  a \n\tb  \r\n c ": "a b c",
		"one":                "one",
		"line\n\nbreaks\n":   "line breaks",
		"\u00a0nbsp\u00a0x ": "nbsp x",
	} {
		if got := OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPluralAndCountPickTheWordByNumber(t *testing.T) {
	for _, tt := range []struct {
		n           int
		plural, cnt string
	}{
		{0, "entries", "0 entries"},
		{1, "entry", "1 entry"},
		{2, "entries", "2 entries"},
		{-1, "entries", "-1 entries"},
	} {
		if got := Plural(tt.n, "entry", "entries"); got != tt.plural {
			t.Errorf("Plural(%d) = %q, want %q", tt.n, got, tt.plural)
		}
		if got := Count(tt.n, "entry", "entries"); got != tt.cnt {
			t.Errorf("Count(%d) = %q, want %q", tt.n, got, tt.cnt)
		}
	}
}

func TestClipCutsRunesAndEndsWithAnEllipsis(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"", 3, ""},
		{"abc", 3, "abc"},
		{"abcd", 3, "ab…"},
		{"héllo wörld", 6, "héllo…"},
	} {
		if got := Clip(tt.in, tt.n); got != tt.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestEscapeTagLinesEscapesOnlyLinesThatOpenWithATag(t *testing.T) {
	for in, want := range map[string]string{
		"":                                  "",
		"no tags":                           "no tags",
		"</step_transcript>":                `\</step_transcript>`,
		"a\n  </skill>\n<tools x=1>\nb":     "a\n  \\</skill>\n\\<tools x=1>\nb",
		"<br/>\n\t<ns:tag>":                 "\\<br/>\n\t\\<ns:tag>",
		"a < b\n<!-- c -->\n<1>\n<>\nx <b>": "a < b\n<!-- c -->\n<1>\n<>\nx <b>",
	} {
		if got := EscapeTagLines(in); got != want {
			t.Errorf("EscapeTagLines(%q) = %q, want %q", in, got, want)
		}
	}
}
