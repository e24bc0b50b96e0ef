package temporal_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/temporal"
)

// FuzzPiecesKeepTheText: step lines cut in pieces come back whole when
// joined, each piece valid UTF-8 (a JSON string could not hold a cut rune)
// and within the size the codec's limit allows.
func FuzzPiecesKeepTheText(f *testing.F) {
	for _, seed := range []string{
		"",
		`{"type":"step","seq":1}` + "\n",
		strings.Repeat(`{"type":"step","xs":"é😀漢"}`+"\n", 40),
		strings.Repeat("😀", 300),
		strings.Repeat("a", 1000) + "\n" + strings.Repeat("漢", 100),
	} {
		f.Add(seed, 1000)
		f.Add(seed, 130)
	}
	f.Fuzz(func(t *testing.T, text string, limit int) {
		if !utf8.ValidString(text) || limit < 0 || limit > 1<<30 {
			return
		}
		size := temporal.PieceSize(limit)
		got := temporal.Pieces([]byte(text), limit)
		require.Equal(t, text, strings.Join(got, ""))
		for _, p := range got {
			require.NotEmpty(t, p)
			require.True(t, utf8.ValidString(p), "piece %q", p)
			require.LessOrEqual(t, len(p), size)
		}
	})
}

func TestPiecesCutAfterANewlineWhenOneIsNear(t *testing.T) {
	line := strings.Repeat("x", 299) + "\n"                       // 300 bytes
	got := temporal.Pieces([]byte(strings.Repeat(line, 5)), 1000) // pieces of 499 bytes
	require.Len(t, got, 5)
	for _, p := range got {
		assert.Equal(t, line, p)
	}
	assert.Equal(t, 60<<10, temporal.PieceSize(64<<20), "the default limit's pieces: one blob each")
}
