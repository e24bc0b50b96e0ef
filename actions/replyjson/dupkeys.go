package replyjson

import (
	"encoding/json"
	"fmt"
	"strings"
)

// duplicateKeys returns an error when one of spans (JSON values found in
// the trimmed reply s) is an object that gives a key twice with different
// values ({"verdict": "FAIL", ..., "verdict": "PASS"}: a model that changed
// its mind inside the object). Decoders keep the last silently; which one
// the model meant cannot be told. The same value twice is one.
func duplicateKeys(s string, spans []Span) error {
	for _, sp := range spans {
		dec := json.NewDecoder(strings.NewReader(sp.Text))
		dec.UseNumber()
		var d *dupKey
		if _, err := canonical(dec, "", &d); err != nil || d == nil {
			continue
		}
		l, c := LineCol(s, sp.Start)
		return fmt.Errorf("the JSON object at line %d, column %d gives the key %s twice, with different values (%s, then %s), so which one is meant cannot be told; answer with one JSON object that gives each key once", l, c, d.where(), clip(d.first, 40), clip(d.second, 40))
	}
	return nil
}

// dupKey is a key given twice with different values in the object at path.
type dupKey struct {
	path, key, first, second string
}

func (d *dupKey) where() string {
	k, _ := json.Marshal(d.key)
	if d.path == "" {
		return string(k)
	}
	return fmt.Sprintf("%s (in %s)", k, d.path)
}

// canonical reads one JSON value from dec and returns it in a canonical
// text (keys in the order given, no spaces), recording in *d the first key
// given twice with different values.
func canonical(dec *json.Decoder, path string, d **dupKey) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	switch t := tok.(type) {
	case json.Delim:
		var b strings.Builder
		if t == '[' {
			b.WriteByte('[')
			for i := 0; dec.More(); i++ {
				v, err := canonical(dec, fmt.Sprintf("%s/%d", path, i), d)
				if err != nil {
					return "", err
				}
				b.WriteString(v + ",")
			}
			_, err := dec.Token()
			return b.String() + "]", err
		}
		seen := map[string]string{}
		b.WriteByte('{')
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return "", err
			}
			key, _ := kt.(string)
			v, err := canonical(dec, path+"/"+strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1"), d)
			if err != nil {
				return "", err
			}
			if prev, ok := seen[key]; ok && prev != v && *d == nil {
				*d = &dupKey{path: path, key: key, first: prev, second: v}
			}
			seen[key] = v
			k, _ := json.Marshal(key)
			b.WriteString(string(k) + ":" + v + ",")
		}
		_, err := dec.Token()
		return b.String() + "}", err
	default:
		v, err := json.Marshal(t)
		return string(v), err
	}
}

// clip shortens s to at most n bytes (on a rune boundary), marking a cut
// with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
