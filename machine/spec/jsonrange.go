package spec

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
)

// NumberOutOfRange returns the path ("n", "l[2]", "m.k", after at) and
// the text of the first number of v (JSON decoded with UseNumber) that is
// no int64 and whose float is infinite (1e400, -2e308), or "". NormalizeJSON
// would make it +Inf or -Inf, which no JSON holds (a Temporal run's payload
// could not be sent) and no set stores.
func NumberOutOfRange(v any, at string) (string, json.Number) {
	switch x := v.(type) {
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "", ""
		}
		if f, _ := strconv.ParseFloat(string(x), 64); math.IsInf(f, 0) {
			return at, x
		}
	case []any:
		for i, e := range x {
			if p, n := NumberOutOfRange(e, fmt.Sprintf("%s[%d]", at, i)); p != "" {
				return p, n
			}
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			path := k
			if at != "" {
				path = at + "." + k
			}
			if p, n := NumberOutOfRange(x[k], path); p != "" {
				return p, n
			}
		}
	}
	return "", ""
}
