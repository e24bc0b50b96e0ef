package examples

import "encoding/json"

// Example is one behavioural example, as the plan's schema gives it.
type Example struct {
	Name      string            `json:"name"`
	Vars      map[string]any    `json:"vars"`
	Files     map[string]string `json:"files"`
	Events    []string          `json:"events"`
	Expect    map[string]any    `json:"expect"`
	Contains  map[string]string `json:"contains"`
	Tolerance *float64          `json:"tolerance"`
	Kind      string            `json:"kind"`
}

// Kinds of example.
const (
	KindTypical = "typical"
	KindEdge    = "edge"
	KindError   = "error" // the run must fail
)

// Decode reads one example of a plan.
func Decode(raw any) (Example, error) {
	var ex Example
	b, err := json.Marshal(raw)
	if err == nil {
		err = json.Unmarshal(b, &ex)
	}
	return ex, err
}
