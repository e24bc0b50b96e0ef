package runstore

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// slowEncode writes w as the encoder's encoding/json path does.
func slowEncode(t testing.TB, w *wireEntry) ([]byte, error) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func TestFastStepEncodesAsEncodingJSON(t *testing.T) {
	at := time.Date(2026, 11, 26, 20, 1, 27, 395556006, time.UTC)
	tests := []struct {
		name string
		w    *wireEntry
		fast bool // appendFastStep writes it (else encoding/json does)
	}{
		{name: "routing only", fast: true, w: &wireEntry{Entry: &Entry{Type: EntryStep, Record: &machine.Record{Seq: 3, From: "a", To: "b", Via: "next[0]", Guard: "n >= limit", Start: at}}}},
		{name: "final", fast: true, w: &wireEntry{Entry: &Entry{Type: EntryStep, Record: &machine.Record{Seq: 4, From: "done", Via: "final", End: true, Start: at.In(time.FixedZone("", 2*3600)), Duration: 5}}}},
		{name: "every string field, escapes", fast: true, w: &wireEntry{Entry: &Entry{Type: EntryStep, Record: &machine.Record{
			Seq: 1, From: "é", To: "a\"b", Via: "x\\y", Guard: "s == \"<&>\"", Event: "go\u2028", Action: "noop", Error: "boom\n\t\x01", Warn: "w\xff",
			Start: time.Date(2026, 1, 2, 3, 4, 5, 0, time.Local)}}}},
		{name: "scalar and nested vars", fast: true, w: &wireEntry{Entry: &Entry{Type: EntryStep, Record: &machine.Record{Seq: 2, From: "a", To: "a", Via: "v", Start: at, Vars: map[string]any{
			"i": 42, "neg": -7, "i64": int64(math.MaxInt64), "t": true, "f": false, "nil": nil, "s": "plain", "u": "ünï\x00",
			"f1": 0.1, "f2": 1e21, "f3": 1e-7, "f4": math.Copysign(0, -1), "f5": 3.0, "f6": float32(1.5),
			"xs": []any{1, "a", []any{2.5}, map[string]any{"z": 1, "a": nil}}, "m": map[string]any{"b": 1, "a": "<>"},
			"k\"ey": 1, "": 2,
		}}}}},
		{name: "appends", fast: true, w: &wireEntry{Entry: &Entry{Type: EntryStep, Record: &machine.Record{Seq: 5, From: "a", To: "a", Via: "v", Start: at, Vars: map[string]any{"n": 5}}},
			Append: map[string]json.RawMessage{"ys": json.RawMessage(`[1,"b"]`), "xs": json.RawMessage(`[{"k":2}]`)}}},
		{name: "string appends, escapes", fast: true, w: &wireEntry{Entry: &Entry{Type: EntryStep, Record: &machine.Record{Seq: 6, From: "a", To: "a", Via: "v", Start: at, Vars: map[string]any{"n": 6}}},
			Concat: map[string]string{"log": "line 6: \"é\" <&>\n\u2028", "a": "", "k\"ey": "x"}, Append: map[string]json.RawMessage{"xs": json.RawMessage(`[1]`)}}},
		{name: "a NaN: encoding/json refuses it", w: &wireEntry{Entry: &Entry{Type: EntryStep, Record: &machine.Record{Seq: 1, Start: at, Vars: map[string]any{"f": math.NaN()}}}}},
		{name: "memory, notes, a reference: an agent's step", fast: true, w: &wireEntry{Entry: &Entry{Type: EntryStep, Record: &machine.Record{Seq: 1, Start: at, From: "optimizer", To: "tool_executor", Via: "next[1]", Action: "llm.optimizer",
			Memory: []machine.MemOp{{Op: machine.OpAppend, Key: "l3", Value: json.RawMessage(`{ "role": "assistant",  "content": "a <b> & \u00e9" }`)}, {Op: "clear", Key: "l3"}},
			Notes:  []mspec.Note{{Text: "ran 1 tool call <ok>"}, {Text: "slow", Severity: mspec.NoteWarning}}}},
			Refs: map[string]*MemRef{"reply": {Op: 0, At: 30, Len: 12}, "a": {Op: 1}}}},
		{name: "a memory value that is not JSON", w: &wireEntry{Entry: &Entry{Type: EntryStep, Record: &machine.Record{Seq: 1, Start: at, Memory: []machine.MemOp{{Op: machine.OpAppend, Key: "l3", Value: json.RawMessage(`{nope`)}}}}}},
		{name: "an answer", w: &wireEntry{Entry: &Entry{Type: EntryStep, Record: &machine.Record{Seq: 1, Start: at, Input: &machine.Input{Kind: "approve"}}}}},
		{name: "a marker", w: &wireEntry{Entry: &Entry{Type: EntryPause, At: at}}},
		{name: "a patch", w: &wireEntry{Entry: &Entry{Type: EntryStep, Record: &machine.Record{Seq: 1, Start: at}}, Patch: map[string]*MapPatch{"m": {Del: []string{"a"}}}}},
		{name: "a year JSON cannot write", w: &wireEntry{Entry: &Entry{Type: EntryStep, Record: &machine.Record{Seq: 1, Start: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := appendFastStep(nil, tt.w)
			assert.Equal(t, tt.fast, ok)
			if !ok {
				return
			}
			want, err := slowEncode(t, tt.w)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got))
		})
	}
}

// TestFastStepEncodesRandomStepsAsEncodingJSON compares the two encodings
// on random steps (a fixed seed: the same steps every run).
func TestFastStepEncodesRandomStepsAsEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 30))
	pieces := []string{"a", "é", "\"", "\\", "\n", "\x7f", "<", "&", "\u2028", "\xff", " ", "z9", "\x00"}
	str := func() string {
		var sb strings.Builder
		for range rng.IntN(6) {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return sb.String()
	}
	var value func(depth int) any
	value = func(depth int) any {
		switch rng.IntN(9) {
		case 0:
			return nil
		case 1:
			return rng.IntN(2) == 0
		case 2:
			return rng.IntN(1<<40) - 1<<39
		case 3:
			return math.Float64frombits(rng.Uint64())
		case 4:
			return (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(50)-25))
		case 5:
			if depth < 3 {
				xs := make([]any, rng.IntN(4))
				for i := range xs {
					xs[i] = value(depth + 1)
				}
				return xs
			}
		case 6:
			if depth < 3 {
				m := map[string]any{}
				for range rng.IntN(4) {
					m[str()] = value(depth + 1)
				}
				return m
			}
		}
		return str()
	}
	for range 3000 {
		v := value(0)
		got, gerr := marshal(v)
		want, werr := jsonMarshal(v)
		require.Equal(t, werr != nil, gerr != nil, "value %#v", v)
		require.Equal(t, string(want), string(got))
	}
	fast := 0
	for i := range 3000 {
		rec := &machine.Record{Seq: i, From: str(), To: str(), Via: str(), Guard: str(), Event: str(), Action: str(), Error: str(), Warn: str(),
			Start: time.Unix(rng.Int64N(1<<34), rng.Int64N(1e9)).In(time.FixedZone("", (rng.IntN(48)-24)*1800)), Duration: time.Duration(rng.Int64()), End: rng.IntN(2) == 0}
		if rng.IntN(4) > 0 {
			rec.Vars = map[string]any{}
			for range rng.IntN(5) {
				rec.Vars[str()] = value(0)
			}
		}
		if rng.IntN(3) == 0 {
			for range rng.IntN(3) {
				v, _ := json.Marshal(map[string]any{"role": str(), "content": value(1)})
				if rng.IntN(2) == 0 {
					var pretty bytes.Buffer
					_ = json.Indent(&pretty, v, "", "  ")
					v = pretty.Bytes()
				}
				rec.Memory = append(rec.Memory, machine.MemOp{Op: machine.OpAppend, Key: str(), Value: v})
			}
			for range rng.IntN(3) {
				rec.Notes = append(rec.Notes, mspec.Note{Text: str(), Severity: []mspec.NoteSeverity{mspec.NoteInfo, mspec.NoteWarning}[rng.IntN(2)]})
			}
		}
		w := &wireEntry{Entry: &Entry{Type: EntryStep, Record: rec}}
		if rng.IntN(4) == 0 {
			w.Refs = map[string]*MemRef{str(): {Op: rng.IntN(3), At: rng.IntN(100), Len: rng.IntN(100)}}
		}
		got, ok := appendFastStep(nil, w)
		want, err := slowEncode(t, w)
		if !ok {
			continue
		}
		fast++
		require.NoError(t, err, "appendFastStep wrote a step encoding/json refuses: %s", got)
		require.Equal(t, string(want), string(got))
	}
	assert.Greater(t, fast, 1000)
}
