package temporal

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The blob limit measures a string as json.Marshal writes it.
func TestJSONStringLenIsMarshalsLength(t *testing.T) {
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "new\nline\ttab\r\b\f", "\x00\x01\x1f", "<a href='x'>&amp;</a>",
		"héllo wörld", "日本語", "\u2028\u2029", "bad \xff utf-8 \xc3", "emoji 🙂"} {
		b, err := json.Marshal(s)
		assert.NoError(t, err)
		assert.Equal(t, len(b), jsonStringLen(s), "%q", s)
	}
}

func FuzzJSONStringLen(f *testing.F) {
	f.Add("a<b>\"c\"\xff")
	f.Fuzz(func(t *testing.T, s string) {
		b, _ := json.Marshal(s)
		if len(b) != jsonStringLen(s) {
			t.Errorf("%q: %d, json.Marshal %d", s, jsonStringLen(s), len(b))
		}
	})
}
