package temporal

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
)

// A list appended to, a map changed in a few keys and a string added to in
// place are measured by what changed; the size the records keep must be json.Marshal's, step after
// step, whatever the keys and values hold (the blob limit is held to it).
func TestRecordsMeasureValuesAsMarshalDoes(t *testing.T) {
	keys := []string{"a", `quo"te`, "<html>&", "é漢😀", "line\u2028sep", "ctl\x01", "k"}
	vals := []any{1, 2.5, "text <b>", nil, true, []any{"x", map[string]any{"y": "<z>"}}, map[string]any{}, "\u2029"}
	rng := rand.New(rand.NewPCG(7, 30))
	pieces := []string{"ab", `"`, "\\", "\n", "<&>", "é", "漢", "😀", "\u2028", "\x01", "\xff", "\xe2\x82", "\x82", ""}
	for seed := range 40 {
		x := &execRecords{lines: true, texts: true, limit: 1 << 30}
		m := map[string]any{}
		var xs []any
		var text []byte // the bytes a string grows in, as Run.addText keeps them
		for step := 1; step <= 60; step++ {
			rec := &machine.Record{Seq: step, Vars: map[string]any{}}
			switch rng.IntN(7) {
			case 0: // the map written whole
				m = maps.Clone(m)
				m[keys[rng.IntN(len(keys))]] = vals[rng.IntN(len(vals))]
				rec.Vars["m"] = m
			case 1, 2: // keys changed in place
				changed := []string{}
				for range 1 + rng.IntN(3) {
					k := keys[rng.IntN(len(keys))]
					if rng.IntN(3) == 0 {
						delete(m, k)
					} else {
						m[k] = vals[rng.IntN(len(vals))]
					}
					changed = append(changed, k)
				}
				rec.Vars["m"], rec.MapKeys = m, map[string][]string{"m": changed}
			case 3: // items appended
				before := len(xs)
				for range 1 + rng.IntN(3) {
					xs = append(xs, vals[rng.IntN(len(vals))])
				}
				rec.Vars["xs"] = xs[:len(xs):len(xs)]
				if before > 0 {
					rec.Appended = map[string]int{"xs": before}
				}
			case 4: // the list rebuilt
				xs = []any{vals[rng.IntN(len(vals))]}
				rec.Vars["xs"] = xs
			case 5: // text added in place (or in new bytes when they are full)
				for range 1 + rng.IntN(3) {
					text = append(text, pieces[rng.IntN(len(pieces))]...)
				}
				if len(text) > 0 {
					rec.Vars["s"] = unsafe.String(&text[0], len(text))
				}
			case 6: // the string set anew
				text = append(make([]byte, 0, 64), pieces[rng.IntN(len(pieces))]...)
				rec.Vars["s"] = string(text)
			}
			require.NoError(t, x.add(rec))
			for name, v := range rec.Vars {
				b, err := json.Marshal(v)
				require.NoError(t, err)
				var got int
				if st := x.maps[name]; st != nil {
					got = st.size()
				} else if name == "s" {
					got = x.strs[name].size
				} else {
					got = x.lists[name].size
				}
				require.Equal(t, len(b), got, fmt.Sprintf("seed %d, step %d: %s = %s", seed, step, name, b))
			}
		}
	}
}
