package runstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
)

// slowStep decodes a line as encoding/json does, with the vars and the
// appended items as the decoder then reads them.
func slowStep(t testing.TB, text []byte) (*wireEntry, error) {
	w, err := decodeJSON(text)
	if err != nil {
		return nil, err
	}
	if w.Record != nil {
		w.Record.Vars = normalizeMap(w.Record.Vars)
	}
	if w.Append != nil {
		w.items = map[string][]any{}
		for name, raw := range w.Append {
			var items []any
			if err := decodeNumbers(raw, &items); err != nil {
				return nil, err
			}
			w.items[name] = items
		}
		w.Append = nil
	}
	if w.Patch != nil {
		w.patched = map[string]*keysPatch{}
		for name, p := range w.Patch {
			if p == nil {
				return nil, errors.New("a null patch")
			}
			kp := &keysPatch{del: p.Del}
			if p.Set != nil {
				kp.set = map[string]any{}
			}
			for k, raw := range p.Set {
				var v any
				if err := decodeNumbers(raw, &v); err != nil {
					return nil, err
				}
				kp.set[k] = v
			}
			w.patched[name] = kp
		}
		w.Patch = nil
	}
	return w, nil
}

// assertSameStep fails when fastStep reads text otherwise than encoding/json.
func assertSameStep(t testing.TB, text []byte) (fast bool) {
	t.Helper()
	got, ok := fastStep(text, &interner{}, false)
	want, err := slowStep(t, text)
	if !ok {
		return false
	}
	require.NoError(t, err, "fastStep read a line encoding/json refuses: %s", text)
	gs, ws := got.Record.Start, want.Record.Start
	if !gs.Equal(ws) || gs.Location().String() != ws.Location().String() {
		t.Fatalf("start %v, encoding/json reads %v: %s", gs, ws, text)
	}
	got.Record.Start, want.Record.Start = time.Time{}, time.Time{}
	if want.items != nil && len(want.items) == 0 {
		want.items = nil
	}
	if got.items != nil && len(got.items) == 0 {
		got.items = nil
	}
	if got.scalars { // the decoder then takes Vars as they are
		for name, v := range want.Record.Vars {
			switch v.(type) {
			case []any, map[string]any:
				t.Fatalf("fastStep says vars hold no list or map, but %s is %v: %s", name, v, text)
			}
		}
		got.scalars = false
	}
	if got.short { // the decoder then remembers no string of the line
		for name, v := range want.Record.Vars {
			if s, ok := v.(string); ok && len(s) >= refMin {
				t.Fatalf("fastStep says vars hold no long string, but %s has %d bytes: %s", name, len(s), text)
			}
		}
		got.short = false
	}
	require.Equal(t, want, got, "line %s", text)
	return true
}

func TestFastStepDecodesAsEncodingJSON(t *testing.T) {
	run, j := newTestRun(t, FsyncNever)
	at := time.Date(2026, 11, 26, 20, 1, 27, 395556006, time.FixedZone("", 2*3600))
	recs := []*machine.Record{
		{From: "work", To: "work", Via: "next[1]", Vars: map[string]any{"n": 1}},
		{From: "a", To: "b", Via: "next[0]", Guard: `n >= limit && s == "x\"y"`, Action: "noop", Warn: "w", Vars: map[string]any{
			"f": 1.5, "neg": math.Copysign(0, -1), "big": 1e300, "i": math.MaxInt64, "s": "é \u2028 <&> \t\n\\", "b": true, "nil": nil,
			"xs": []any{1, "two", []any{3.25, map[string]any{"k": "v"}}}, "m": map[string]any{"a": 1, "b": []any{}},
		}},
		{From: "a", To: "", Via: "final", End: true},
		{From: "a", To: "a", Via: "next[1]", Vars: map[string]any{"xs": []any{1, 2, 3}}},
		{From: "a", To: "a", Via: "next[1]", Vars: map[string]any{"xs": []any{1, 2, 3, "4\x00"}}, Appended: map[string]int{"xs": 3}},
		{From: "a", To: "a", Via: "on_error", Error: "boom: \"quoted\"", Event: "go"},
		{From: "a", To: "a", Via: "next[1]", Vars: map[string]any{"m": map[string]any{"a": 1, "b": "x", "c": []any{1.5}, "d": 4, "e": 5, "f": 6, "long": strings.Repeat("x", 100)}}},
		{From: "a", To: "a", Via: "next[1]", Vars: map[string]any{"m": map[string]any{"a": 2, "b": "x", "c": []any{1.5}, "d": 4, "e": 5, "g": map[string]any{"h": nil}, "long": strings.Repeat("x", 100)}},
			MapKeys: map[string][]string{"m": {"a", "f", "g"}}},
		{From: "a", To: "a", Via: "next[1]", Vars: map[string]any{"log": strings.Repeat("y", refMin)}},
		{From: "a", To: "a", Via: "next[1]", Vars: map[string]any{"log": strings.Repeat("y", refMin) + "line 2: é\n"}},
	}
	for i, rec := range recs {
		rec.Seq, rec.Start, rec.Duration = i+1, at, 1234*time.Microsecond
		require.NoError(t, j.OnStep(context.Background(), rec))
	}
	require.NoError(t, j.Close())
	fast := 0
	for _, line := range journalLines(t, run)[1:] {
		if assertSameStep(t, bytes.TrimSuffix([]byte(line), []byte("\n"))) {
			fast++
		}
	}
	assert.Equal(t, len(recs), fast, "every step line of this journal is read by fastStep")
	assert.Contains(t, journalLines(t, run)[len(recs)-2], `"vars_patch":{"m":{"set":{"a":2,"g":{"h":null}},"del":["f"]}}`)
	assert.Contains(t, journalLines(t, run)[len(recs)], `"vars_concat":{"log":"line 2: é\n"}`)

	// Lines fastStep leaves to encoding/json, or reads as it does.
	for _, line := range []string{
		`{"type":"step","seq":1,"from":"a","to":"a","via":"x","start":"2026-11-26T20:01:27Z","duration":0}`,
		`{"type":"step","seq":1,"from":"a","to":"a","via":"x","vars":null,"start":"2026-11-26T20:01:27Z","duration":0}`,
		`{ "type" : "step" , "seq" : 2 , "vars" : { "n" : 1e3 , "s" : "\u00e9\ud83d\ude00" } , "start" : "2026-11-26T20:01:27.5-07:00" , "duration" : 5 }`,
		`{"type":"step","seq":1.0,"start":"2026-11-26T20:01:27Z","duration":0}`,
		`{"type":"step","seq":1,"Seq":2,"start":"2026-11-26T20:01:27Z","duration":0}`,
		`{"type":"step","seq":1,"vars":{"s":"bad` + "\xff" + `"},"start":"2026-11-26T20:01:27Z","duration":0}`,
		`{"type":"step","seq":1,"vars":{"n":01},"start":"2026-11-26T20:01:27Z","duration":0}`,
		`{"type":"step","seq":1,"start":"2026-11-26T20:01:27Z","duration":0} x`,
		`{"type":"step","seq":1,"start":"yesterday","duration":0}`,
		`{"type":"step","seq":1,"end":null,"start":"2026-11-26T20:01:27Z","duration":0}`,
		`{"type":"step","seq":1,"memory":[{"op":"append","key":"l3","value":1}],"start":"2026-11-26T20:01:27Z","duration":0}`,
		`{"type":"step","seq":1,"vars_append":{"xs":[1,"a",[2]]},"start":"2026-11-26T20:01:27Z","duration":0}`,
		`{"type":"step","seq":1,"vars_append":{"xs":7},"start":"2026-11-26T20:01:27Z","duration":0}`,
		`{"type":"step","seq":1,"start":"2026-11-26T20:01:27Z","duration":0,"vars_patch":{"m":{"set":{"k":1,"l":[2.5,"x"]},"del":["a","b"]},"n":{}}}`,
		`{"type":"step","seq":1,"start":"2026-11-26T20:01:27Z","duration":0,"vars_patch":{"m":{"set":null,"del":null}}}`,
		`{"type":"step","seq":1,"start":"2026-11-26T20:01:27Z","duration":0,"vars_patch":{"m":null}}`,
		`{"type":"step","seq":1,"start":"2026-11-26T20:01:27Z","duration":0,"vars_patch":{"m":{"Set":{"k":1}}}}`,
		`{"type":"step","seq":1,"start":"2026-11-26T20:01:27Z","duration":0,"vars_patch":{"m":{"set":{"k":1},"set":{"l":2}}}}`,
		`{"type":"step","seq":1,"start":"2026-11-26T20:01:27Z","duration":0,"vars_patch":{"m":{"del":[1]}}}`,
		`{"type":"step","seq":1,"start":"2026-11-26T20:01:27Z","duration":0,"vars_patch":{"m":{"x":1}}}`,
		`{"type":"step","seq":1,"start":"2026-11-26T20:01:27Z","duration":0,"vars_concat":{"log":"a\"b\u00e9\n","s":""}}`,
		`{"type":"step","seq":1,"start":"2026-11-26T20:01:27Z","duration":0,"vars_concat":{"log":7}}`,
		`{"type":"step","seq":1,"start":"2026-11-26T20:01:27Z","duration":0,"vars_concat":{"log":null}}`,
		`{"type":"step","seq":1,"start":"2026-11-26T20:01:27Z","duration":0,"vars_concat":null}`,
		`{"type":"step","seq":1,"start":"2026-11-26T20:01:27Z","duration":0,"vars_concat":{"log":"a","log":"b"}}`,
		`{"type":"step","seq":1,"vars":{"d":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `},"start":"2026-11-26T20:01:27Z","duration":0}`,
		`{"type":"pause","at":"2026-11-26T20:01:27Z"}`,
	} {
		assertSameStep(t, []byte(line))
	}
}

func FuzzFastStep(f *testing.F) {
	f.Add([]byte(`{"type":"step","seq":1,"from":"a","to":"a","via":"next[1]","vars":{"n":1,"xs":[1,"b",{"c":null}]},"start":"2026-11-26T20:01:27.410160026Z","duration":0,"vars_append":{"ys":[2.5]},"crc":"dc69f647"}`))
	f.Add([]byte(`{"type":"step","seq":4,"from":"done","to":"","via":"final","start":"2026-11-26T20:01:27Z","duration":0,"end":true}`))
	f.Add([]byte(`{"type":"step","seq":5,"from":"a","to":"a","via":"next[1]","vars":{"n":5},"start":"2026-11-26T20:01:27Z","duration":0,"vars_patch":{"m":{"set":{"k4":4,"x":[1,{"y":"z"}]},"del":["a"]}},"crc":"32251c5c"}`))
	f.Add([]byte(`{"type":"step","seq":6,"from":"a","to":"a","via":"next[1]","vars":{"n":6},"start":"2026-11-26T20:01:27Z","duration":0,"vars_concat":{"log":"line 6\n"}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		if !json.Valid(line) {
			if _, ok := fastStep(line, &interner{}, false); ok {
				t.Fatalf("fastStep read invalid JSON: %q", line)
			}
			return
		}
		full := assertSameStep(t, line)
		head, heads := fastStep(line, &interner{}, true)
		if !json.Valid(line) && heads {
			t.Fatalf("fastStep (heads) read invalid JSON: %q", line)
		}
		if full {
			require.True(t, heads, "fastStep reads %q but not its head", line)
			w, _ := fastStep(line, &interner{}, false)
			w.Record.Vars, w.items, w.patched, w.Concat, w.scalars, w.short = nil, nil, nil, nil, false, false // what heads does not read
			require.Equal(t, w, head)
		}
	})
}

// TestResumeDecodesTheJournalOnce recovers a run whose steps each write a
// list of 300 items: Recover reads the steps' routing only (the variables
// are decoded once, by Replay), so it allocates less than the lists.
func TestResumeDecodesTheJournalOnce(t *testing.T) {
	m := specMachine(t, "grow.yaml")
	vars := map[string]any{"limit": 1000}
	store := New(t.TempDir())
	run, err := store.Create(Meta{Spec: "grow.yaml", Vars: vars}, nil)
	require.NoError(t, err)
	j, err := run.OpenJournal(FsyncNever)
	require.NoError(t, err)
	const steps, items = 30, 300
	var last []any
	for i := range steps {
		xs := make([]any, items)
		for k := range xs {
			xs[k] = strings.Repeat("x", k%7) + string(rune('a'+(i+k)%26))
		}
		last = xs
		require.NoError(t, j.OnStep(context.Background(), &machine.Record{Seq: i + 1, From: "work", To: "work", Via: "next[1]", Vars: map[string]any{"n": i + 1, "xs": xs}}))
	}
	require.NoError(t, j.Close())
	run.Meta.Steps, run.Meta.Status, run.Meta.PID = steps, machine.StatusInterrupted, 0
	require.NoError(t, run.SaveMeta())
	run.Unlock()

	var rc *Recovery
	allocated := bytesPerStep(t, 1, func(int) {
		rc, err = store.Recover(run.Meta.ID)
	})
	require.NoError(t, err)
	defer rc.Release()
	assert.Less(t, allocated, float64(steps*items*16), "Recover allocated %.0f bytes", allocated)
	assert.Equal(t, steps, rc.Log.Steps())

	r2, err := m.NewRun(vars)
	require.NoError(t, err)
	require.NoError(t, rc.Replay(r2))
	assert.Equal(t, last, r2.Var("xs"))
	assert.Equal(t, steps, r2.Var("n"))
}

func TestParseHex8ReadsAsParseUint(t *testing.T) {
	for _, s := range []string{"00000000", "ffffffff", "FFFFFFFF", "1a2B3c4D", "dc69f647", "1a2b3c4", "1a2b3c4d5", "1a2b3c4g", "+1a2b3c4", "-1a2b3c4", "1a2b_c4d", "        "} {
		got, ok := parseHex8([]byte(s))
		want, err := strconv.ParseUint(s, 16, 32)
		assert.Equal(t, err == nil && len(s) == 8, ok, s)
		if ok {
			assert.Equal(t, uint32(want), got, s)
		}
	}
}

func TestParseUTCReadsAsUnmarshalJSON(t *testing.T) {
	for _, s := range []string{
		"2026-11-26T21:19:22.163787716Z", "2026-11-26T21:19:22Z", "2026-11-26T21:19:22.5Z", "2026-11-26T21:19:22.1234567891Z",
		"2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z", "2000-02-29T23:59:59.999999999Z", "1900-02-29T00:00:00Z",
		"0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2026-04-31T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z",
		"2026-11-26T24:00:00Z", "2026-11-26T23:60:00Z", "2026-11-26T23:59:60Z", "2026-11-26T21:19:22.Z", "2026-11-26T21:19:22.1x",
		"2026-11-26T21:19:22.1z", "2026-11-26T21:19:22+02:00", "2026-11-26 21:19:22Z", "2026-11-2621:19:22Z", "+026-11-26T21:19:22Z",
		"2026-1-26T21:19:22Z", "2026-11-26T21:19:22", "Z", "",
	} {
		var want time.Time
		werr := want.UnmarshalJSON([]byte(`"` + s + `"`))
		got, ok := parseUTC([]byte(s))
		if !ok {
			continue // UnmarshalJSON reads it
		}
		require.NoError(t, werr, "parseUTC read %q, which UnmarshalJSON refuses", s)
		assert.Equal(t, want, got, s)
		assert.Equal(t, "UTC", got.Location().String(), s)
	}
	_, ok := parseUTC([]byte("2026-11-26T21:19:22.163787716Z"))
	assert.True(t, ok, "the journal's own times are read without UnmarshalJSON")
}

// TestPlainStringReadsAsEncodingJSON checks plainString (8 bytes at a time)
// against encoding/json on the string up to the first quote, with a byte
// that ends a plain string at every place of the first 8-byte words.
func TestPlainStringReadsAsEncodingJSON(t *testing.T) {
	for _, c := range []string{"\"", "\\", "\x00", "\x1f", " ", "\x7f", "é", "\xff", "\u2028", "a", "~", "_", "z"} {
		for at := range 18 {
			for _, pad := range []int{0, 1, 9, 17} {
				body := strings.Repeat("x", at) + c + strings.Repeat("y", pad)
				text := []byte(`"` + body + `"`)
				first, _, _ := strings.Cut(body, `"`)
				var want string
				err := json.Unmarshal([]byte(`"`+first+`"`), &want)
				plain := err == nil && want == first && !strings.Contains(first, "\\")
				for _, read := range []func(*jsonReader) ([]byte, bool){(*jsonReader).plainString, (*jsonReader).memberName} {
					p := &jsonReader{b: text}
					got, ok := read(p)
					require.Equal(t, plain, ok, "%q", text)
					if ok {
						assert.Equal(t, first, string(got), "%q", text)
						assert.Equal(t, len(first)+2, p.i, "%q", text)
					}
				}
			}
		}
	}
}

// TestKnownMemberReadsAsMemberName checks knownMember against memberName and
// a colon, on the names fastStep reads, names that begin as they do, and
// names written otherwise.
func TestKnownMemberReadsAsMemberName(t *testing.T) {
	names := []string{"type", "seq", "from", "to", "via", "guard", "event", "action", "error", "warn", "vars", "start", "duration", "end", "vars_append", "vars_patch", "vars_concat", "crc"}
	var texts []string
	for _, n := range names {
		texts = append(texts, `"`+n+`":1`, `"`+n+`" :1`, `"`+n+`x":1`, `"`+n[:len(n)-1]+`":1`, `"`+strings.ToUpper(n[:1])+n[1:]+`":1`, `"`+n+`\u0000":1`, `"`+n+`"`)
	}
	texts = append(texts, `"v":1`, `"va":1`, `"var":1`, `"vars_":1`, `"e":1`, `"":1`, `"`, `"t`, `x`)
	for _, text := range texts {
		p := &jsonReader{b: []byte(text)}
		got, ok := p.knownMember()
		q := &jsonReader{b: []byte(text)}
		want, wok := q.memberName()
		wok = wok && q.byte(':')
		if !ok {
			assert.Zero(t, p.i, "%s: read past nothing", text)
			continue
		}
		require.True(t, wok, "knownMember read %s, which memberName and a colon do not", text)
		assert.Equal(t, string(want), got, text)
		assert.Equal(t, q.i, p.i, text)
		assert.NotZero(t, memberBit(got), text)
	}
	for _, n := range names {
		_, ok := (&jsonReader{b: []byte(`"` + n + `":1`)}).knownMember()
		assert.True(t, ok, "%s is read by knownMember", n)
	}
}
