package actions

import (
	"encoding/json"

	"github.com/lppctl/lppctl/machine"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// didYouMean renders machine.DidYouMean as a hint, `did you mean "x"?`, or "".
func didYouMean(name string, candidates []string) string {
	return machine.DidYouMeanHint(name, candidates)
}
