package temporal

import (
	"bytes"
	"encoding/json"
	"maps"
	"unicode/utf8"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
)

// How records travel between workers and clients: the journal's step lines
// (runstore.Steps), cut in pieces the codec stores each under its blob
// limit, in segments (an execution's records) and progress pages.

// ProgressLines is the progress query's second argument that asks for a
// page's records as step lines (Progress.Lines). A worker from before them
// ignores it and sends Records.
const ProgressLines = "step_lines"

// stepLines is a segment of records as stored and sent: the journal's step
// lines of one execution's records (runstore.Steps), their text cut in
// pieces that the codec stores each under its blob limit (the lines of an
// execution may hold more than any one value may: pieces).
type stepLines struct {
	Lines []string `json:"step_lines"`
}

// pieceSize is the size of the pieces the step lines are cut in for a
// codec whose blob limit is limit: each piece's JSON within the limit (the
// lines are JSON text: a quote, a backslash or a newline takes two bytes as
// JSON, as the codec writes it), and at most 60 KB (stored in one blob).
// The list of the pieces' references must be within the limit too: with
// the worker's limits (1 MB and more) that is over 300 MB of lines.
func pieceSize(limit int) int { return min(60<<10, max(64, (limit-2)/2)) }

// linesCap is the most step lines a page holds for a codec whose blob limit
// is limit: PageBytes, or fewer when the limit is so small (tests) that the
// list of the pieces' references would pass it (a reference is about 90
// bytes of JSON, and a cut at a newline may make twice the pieces).
func linesCap(limit int) int { return min(PageBytes, max(1, limit/200)*pieceSize(limit)) }

// pieces cuts text (valid UTF-8) into strings of pieceSize(limit) bytes at
// most, after a newline where one is in the second half of a piece, else at
// a rune boundary.
func pieces(text []byte, limit int) []string {
	size := pieceSize(limit)
	var out []string
	for len(text) > size {
		cut := size
		if nl := bytes.LastIndexByte(text[:size], '\n'); nl >= size/2 {
			cut = nl + 1
		}
		for cut > 1 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		out = append(out, string(text[:cut]))
		text = text[cut:]
	}
	if len(text) > 0 {
		out = append(out, string(text))
	}
	return out
}

// WholeRecords returns recs with every map whole, as it was after its step:
// a step that changed keys of a map (Record.MapKeys) holds only those as
// Flatten reads it, and gets a copy of the whole map here. For a reader
// that keeps every step's values (JSON of them all, quadratic in a map that
// grows at every step, as that output is); a reader that shows one step at
// a time walks them (runstore.Walker).
func WholeRecords(recs []*machine.Record) []*machine.Record {
	out := make([]*machine.Record, len(recs))
	var walk runstore.Walker
	for i, rec := range recs {
		w := walk.Next(rec)
		if w == rec {
			out[i] = rec
			continue
		}
		c := *w
		c.Vars = maps.Clone(w.Vars)
		for name := range rec.MapKeys {
			if m, ok := c.Vars[name].(map[string]any); ok {
				c.Vars[name] = maps.Clone(m)
			}
		}
		out[i] = &c
	}
	return out
}

// readSegment reads a segment of records: step lines (stepLines), or a
// JSON list of records as workers before them stored.
func readSegment(seg json.RawMessage) ([]*machine.Record, error) {
	if b := bytes.TrimSpace(seg); len(b) > 0 && b[0] == '{' {
		var sl stepLines
		if err := json.Unmarshal(b, &sl); err != nil {
			return nil, err
		}
		return runstore.ReadSteps(joined(sl.Lines))
	}
	var recs []*machine.Record
	if err := decodeJSON(seg, &recs); err != nil {
		return nil, err
	}
	for _, rec := range recs {
		rec.Vars, rec.Payload = numberMap(rec.Vars), numberMap(rec.Payload)
	}
	return recs, nil
}

// joined is the text pieces cut.
func joined(pieces []string) []byte {
	n := 0
	for _, p := range pieces {
		n += len(p)
	}
	b := make([]byte, 0, n)
	for _, p := range pieces {
		b = append(b, p...)
	}
	return b
}
