package actions

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/lppctl/lppctl/actions/examples"
	"github.com/lppctl/lppctl/internal/textx"
	mspec "github.com/lppctl/lppctl/machine/spec"
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
func Clip(s string, n int) string { return textx.Clip(s, n) }

// number converts a decoded number to float64 (examples.Number).
func number(v any) (float64, bool) { return examples.Number(v) }

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
