package runstore

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"time"
)

// appendFastStep appends w's JSON line (without the newline) as
// encoding/json writes it (SetEscapeHTML(false)), without reflection, when w
// is a step of the kind most lines are: routing, context variables, memory
// operations, notes, list and string appends, references. It reports false
// for anything else (an answer, a payload, a queued event taken, a map
// patch, a marker...), which encoding/json then writes: a line it writes is
// the same bytes (TestFastStepEncodesAsEncodingJSON).
func appendFastStep(b []byte, w *wireEntry) ([]byte, bool) {
	e := w.Entry
	if e == nil || e.Type != EntryStep || e.Record == nil || !e.At.IsZero() || e.Pause != nil ||
		e.Answer != nil || e.State != "" || e.Message != "" || e.Meta != nil || w.Patch != nil {
		return b, false
	}
	r := e.Record
	if r.Payload != nil || r.Input != nil || r.Queued != 0 {
		return b, false
	}
	if y := r.Start.Year(); y < 0 || y > 9999 {
		return b, false
	}
	b = append(b, `{"type":"step","seq":`...)
	b = strconv.AppendInt(b, int64(r.Seq), 10)
	b = append(b, `,"from":`...)
	b = appendJSONString(b, r.From)
	b = append(b, `,"to":`...)
	b = appendJSONString(b, r.To)
	b = append(b, `,"via":`...)
	b = appendJSONString(b, r.Via)
	for _, f := range [...]struct{ key, val string }{{`,"guard":`, r.Guard}, {`,"event":`, r.Event}, {`,"action":`, r.Action}, {`,"error":`, r.Error}} {
		if f.val != "" {
			b = append(b, f.key...)
			b = appendJSONString(b, f.val)
		}
	}
	if len(r.Vars) > 0 {
		b = append(b, `,"vars":{`...)
		for i, k := range slices.Sorted(maps.Keys(r.Vars)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			if raw, ok := w.raw[k]; ok {
				b = append(b, raw...)
				continue
			}
			var ok bool
			if b, ok = appendJSONValue(b, r.Vars[k]); !ok {
				return b, false
			}
		}
		b = append(b, '}')
	}
	if len(r.Memory) > 0 {
		b = append(b, `,"memory":[`...)
		for i, op := range r.Memory {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"op":`...)
			b = appendJSONString(b, op.Op)
			b = append(b, `,"key":`...)
			b = appendJSONString(b, op.Key)
			if len(op.Value) > 0 {
				b = append(b, `,"value":`...)
				var ok bool
				if b, ok = appendCompact(b, op.Value); !ok {
					return b, false
				}
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(r.Notes) > 0 {
		b = append(b, `,"notes":[`...)
		for i, n := range r.Notes {
			if i > 0 {
				b = append(b, ',')
			}
			nb, err := n.MarshalJSON()
			if err != nil {
				return b, false
			}
			var ok bool
			if b, ok = appendCompact(b, nb); !ok {
				return b, false
			}
		}
		b = append(b, ']')
	}
	if r.Warn != "" {
		b = append(b, `,"warn":`...)
		b = appendJSONString(b, r.Warn)
	}
	b = append(b, `,"start":"`...)
	b = r.Start.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","duration":`...)
	b = strconv.AppendInt(b, int64(r.Duration), 10)
	if r.End {
		b = append(b, `,"end":true`...)
	}
	if len(w.Append) > 0 {
		b = append(b, `,"vars_append":{`...)
		for i, k := range slices.Sorted(maps.Keys(w.Append)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			b = append(b, w.Append[k]...) // compact: written by marshal
		}
		b = append(b, '}')
	}
	if len(w.Refs) > 0 {
		b = append(b, `,"vars_ref":{`...)
		for i, k := range slices.Sorted(maps.Keys(w.Refs)) {
			ref := w.Refs[k]
			if ref == nil {
				return b, false
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, `:{"op":`...)
			b = strconv.AppendInt(b, int64(ref.Op), 10)
			b = append(b, `,"at":`...)
			b = strconv.AppendInt(b, int64(ref.At), 10)
			b = append(b, `,"len":`...)
			b = strconv.AppendInt(b, int64(ref.Len), 10)
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	if len(w.Concat) > 0 {
		b = append(b, `,"vars_concat":{`...)
		for i, k := range slices.Sorted(maps.Keys(w.Concat)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			b = appendJSONString(b, w.Concat[k])
		}
		b = append(b, '}')
	}
	return append(b, '}'), true
}

// appendCompact appends raw JSON as encoding/json writes a RawMessage or a
// Marshaler's output: compacted (false when it is not valid JSON).
func appendCompact(b, raw []byte) ([]byte, bool) {
	buf := bytes.NewBuffer(b)
	if json.Compact(buf, raw) != nil {
		return b, false
	}
	return buf.Bytes(), true
}

// appendValue appends v's JSON as encoding/json writes it (no HTML
// escapes): nil, bools, ints, strings, and lists and maps of them, directly;
// anything else (floats among them) through encoding/json.
func appendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case []any:
		if x == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, item := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendValue(b, item); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		if x == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '{')
		for i, k := range slices.Sorted(maps.Keys(x)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendValue(b, x[k]); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	case nil, bool, int, int64, string:
		b, _ = appendJSONValue(b, v)
		return b, nil
	}
	q, err := jsonMarshal(v)
	if err != nil {
		return b, err
	}
	return append(b, q...), nil
}

// appendJSONString appends s as encoding/json writes it (no HTML escapes):
// as it is when it is printable ASCII without quotes or backslashes, else
// through encoding/json.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			q, err := jsonMarshal(s)
			if err != nil { // a string always marshals
				return append(b, `""`...)
			}
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJSONValue appends a variable's value: scalars directly, anything
// else through encoding/json (false when it cannot be encoded).
func appendJSONValue(b []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, x), true
	case int:
		return strconv.AppendInt(b, int64(x), 10), true
	case int64:
		return strconv.AppendInt(b, x, 10), true
	case string:
		return appendJSONString(b, x), true
	case json.RawMessage:
		return b, false // encoding/json compacts it
	}
	q, err := appendValue(b, v)
	if err != nil {
		return b, false
	}
	return q, true
}
