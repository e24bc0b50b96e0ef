package actions

import (
	"bytes"
	"encoding/json"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"strings"
)

// JSONUnmarshal is json.Unmarshal.
func JSONUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// JSONMarshal is json.Marshal.
func JSONMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// didYouMean renders machine.DidYouMean as a hint, `did you mean "x"?`, or "".
func didYouMean(name string, candidates []string) string {
	return mspec.DidYouMeanHint(name, candidates)
}

// Clip shortens s to n runes, the last one an ellipsis when cut.
func Clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// JSONText renders a decoded JSON value as text: a string as it is, null as
// "", anything else as its compact JSON.
func JSONText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	case json.Number:
		return x.String()
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSpace(b.String())
}
