package runstore

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
)

// growText is the value of growtext.yaml's log after n steps.
func growText(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "step %d: the model answered in a line of a usual length, é ✓\n", i)
	}
	return b.String()
}

// TestAStringThatGrowsIsJournaledAsWhatItGained runs growtext.yaml, whose
// log gains a line per step, journaled: the journal grows with the run (a
// line per step of about the same bytes), reading it back gives every step
// its whole log, and a resumed run goes on from the log it had.
func TestAStringThatGrowsIsJournaledAsWhatItGained(t *testing.T) {
	m := specMachine(t, "growtext.yaml")
	size := map[int]int64{}
	for _, steps := range []int{500, 2000} {
		run := journalRun(t, m, map[string]any{"limit": steps}, FsyncNever)
		fi, err := os.Stat(run.Path(JournalFile))
		require.NoError(t, err)
		size[steps] = fi.Size()
		if steps != 2000 {
			continue
		}
		lines := journalLines(t, run)
		assert.Contains(t, lines[100], `"vars_concat":{"log":"step 99: the model answered in a line of a usual length, é ✓\n"}`)
		l, err := run.ReadJournal()
		require.NoError(t, err)
		require.Len(t, l.Records, steps+1)
		for i, rec := range l.Records[:steps] {
			require.Equal(t, growText(i+1), rec.Vars["log"], "step %d read back", i+1)
		}

		// Resumed halfway, as resume replays a journal: the replayed log is
		// the one the resumed run appends to.
		r, err := m.NewRun(map[string]any{"limit": steps})
		require.NoError(t, err)
		_, err = run.ScanJournal(func(rec *machine.Record) error {
			if rec.Seq > steps/2 {
				return nil
			}
			return r.Replay(rec)
		})
		require.NoError(t, err)
		held := r.Var("log").(string)
		for range 5 {
			_, err := r.Step(context.Background())
			require.NoError(t, err)
		}
		assert.Equal(t, growText(steps/2+5), r.Var("log"), "the resumed run went on from the log it had")
		assert.Equal(t, growText(steps/2), held, "the value the replay handed out stayed as it was")
	}
	assert.Less(t, float64(size[2000]), 4.5*float64(size[500]), "journal bytes for 500 and 2,000 steps: %v", size)
}

// TestStringChangesAreWrittenAsWhatGrew writes string values one after the
// other: those that grew at their end are written as the text added, the
// others whole, and every one reads back as it was.
func TestStringChangesAreWrittenAsWhatGrew(t *testing.T) {
	long := strings.Repeat("abc ", 300) // longer than refMin
	steps := []struct {
		name string
		val  any
		kind string // the member the line writes s in
	}{
		{"short: whole", "short", "vars"},
		{"long: whole the first time", long, "vars"},
		{"grew at its end", long + "more", "vars_concat"},
		{"grew by a quote, a newline, a line separator", long + "more\"\n\u2028é", "vars_concat"},
		{"the same length, changed", long + "mora\"\n\u2028é", "vars"},
		{"grew again", long + "mora\"\n\u2028éx", "vars_concat"},
		{"cut", long, "vars"},
		{"grew from the cut value", long + "y", "vars_concat"},
		{"changed at its start", "X" + long[1:] + "y", "vars"},
		{"no longer a string", 42, "vars"},
		{"a long string again: whole", long + "z", "vars"},
		{"grew by invalid UTF-8: whole", long + "z\xff", "vars"},
		{"grew from invalid UTF-8: whole", long + "z\xffw", "vars"},
		{"valid again: whole", long + "zw", "vars"},
		{"grew", long + "zw!", "vars_concat"},
		{"short again", "s", "vars"},
		{"grew from short: whole", "s" + long, "vars"},
	}
	run, j := newTestRun(t, FsyncNever)
	for i, s := range steps {
		require.NoError(t, j.OnStep(context.Background(), &machine.Record{Seq: i + 1, From: "a", To: "a", Vars: map[string]any{"s": s.val}}), s.name)
	}
	require.NoError(t, j.Close())
	lines := journalLines(t, run)[1:]
	l, err := run.ReadJournal()
	require.NoError(t, err)
	for i, s := range steps {
		var raw map[string]json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(lines[i]), &raw))
		assert.Contains(t, raw, s.kind, "%s: %s", s.name, lines[i])
		want := s.val
		if str, ok := want.(string); ok {
			want = strings.ToValidUTF8(str, "\uFFFD") // as JSON holds it
		}
		assert.Equal(t, want, l.Records[i].Vars["s"], s.name)
	}
}

// TestAStringDeltaThatCannotBeAppliedIsRefused reads journals whose
// vars_concat no earlier line can explain.
func TestAStringDeltaThatCannotBeAppliedIsRefused(t *testing.T) {
	long := strings.Repeat("x", refMin)
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"text appended to a string no line wrote", []string{
			`{"type":"step","seq":1,"vars_concat":{"s":"more"}}`,
		}, "text appended to string s, which no earlier line wrote"},
		{"text appended to a short string", []string{
			`{"type":"step","seq":1,"vars":{"s":"short"}}`,
			`{"type":"step","seq":2,"vars_concat":{"s":"more"}}`,
		}, "text appended to string s, which no earlier line wrote"},
		{"text appended to a list", []string{
			`{"type":"step","seq":1,"vars":{"s":["` + long + `"]}}`,
			`{"type":"step","seq":2,"vars_concat":{"s":"more"}}`,
		}, "text appended to string s, which no earlier line wrote"},
		{"a string given twice", []string{
			`{"type":"step","seq":1,"vars":{"s":"` + long + `"}}`,
			`{"type":"step","seq":2,"vars":{"s":"y"},"vars_concat":{"s":"more"}}`,
		}, "variable s is given twice on the line"},
		{"appended text that is not a string", []string{
			`{"type":"step","seq":1,"vars":{"s":"` + long + `"}}`,
			`{"type":"step","seq":2,"vars_concat":{"s":7}}`,
		}, "json: cannot unmarshal number into Go struct field wireEntry.vars_concat of type string"},
		{"appended text without a step", []string{
			`{"type":"pause","vars_concat":{"s":"more"}}`,
		}, "variables without a step"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A step after: a bad last line would be taken for a torn one.
			lines := append(tt.lines, `{"type":"step","seq":9}`)
			_, err := ParseJournal([]byte(strings.Join(lines, "\n") + "\n"))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestAGrowingStringCostsWhatItGained writes a string that gains 60 bytes a
// step, from 100 bytes and from 1 MB: the bytes allocated per step must not
// grow with the string (an encoder that wrote it whole, or looked for it in
// the step's memory operations, would allocate in proportion).
func TestAGrowingStringCostsWhatItGained(t *testing.T) {
	cost := map[int]float64{}
	for _, size := range []int{2 * refMin, 1 << 20} {
		_, j := newTestRun(t, FsyncNever)
		buf := make([]byte, size, size+200*64)
		for i := range buf {
			buf[i] = 'a' + byte(i%26)
		}
		write := func(i int) {
			// Each value shares its bytes with the one before, as a run
			// that appends to a string builds them (machine/concat.go).
			buf = append(buf, fmt.Sprintf("line %05d of the transcript, of about sixty bytes.\n", i)...)
			s := unsafe.String(&buf[0], len(buf))
			require.NoError(t, j.OnStep(context.Background(), &machine.Record{Seq: i + 1, From: "a", To: "a", Vars: map[string]any{"s": s}}))
		}
		write(0)
		cost[size] = bytesPerStep(t, 200, func(i int) { write(i + 1) })
		require.NoError(t, j.Close())
	}
	assert.Less(t, cost[1<<20], 2*cost[2*refMin]+2048, "bytes allocated per step by size of the string: %v", cost)
}

// FuzzStringDeltas writes the string values data makes, one step each, and
// reads them back: every value reads as JSON holds it, whether it was
// written whole or as the text added. data is read as steps: a byte's low
// bit says whether the step adds the next bytes (up to the byte's value /
// 2, at least 1) to the string before, in place, or sets a new string of
// them; the first step's string is made long enough for deltas.
func FuzzStringDeltas(f *testing.F) {
	f.Add([]byte("\x01abc\x03de\x02fgh\x05\xe2\x82\x03\x82"))
	f.Add([]byte("\x07line 1\n\x07line 2\n\x04x\xff\x05\xe2\x82\xac"))
	f.Fuzz(func(t *testing.T, data []byte) {
		enc, dec := newEncoder(), newDecoder()
		buf := make([]byte, 0, 64)
		buf = append(buf, strings.Repeat("é", refMin)...)
		for seq := 1; len(data) > 0; seq++ {
			op := data[0]
			n := min(max(int(op)/2, 1), len(data)-1)
			piece := data[1 : 1+n]
			data = data[1+n:]
			if op&1 == 1 || seq == 1 {
				buf = append(buf, piece...) // in place while the capacity lasts
			} else {
				buf = append(make([]byte, 0, len(piece)+refMin), piece...)
			}
			s := ""
			if len(buf) > 0 {
				s = unsafe.String(&buf[0], len(buf))
			}
			line, commit, err := enc.encode(&Entry{Type: EntryStep, Record: &machine.Record{Seq: seq, Vars: map[string]any{"s": s}}})
			require.NoError(t, err)
			commit()
			e, err := dec.decode(line[:len(line)-1])
			require.NoError(t, err, "line %s", line)
			want, err := json.Marshal(s)
			require.NoError(t, err)
			var ws string
			require.NoError(t, json.Unmarshal(want, &ws))
			require.Equal(t, ws, e.Record.Vars["s"], "step %d: %s", seq, line)
		}
	})
}

// TestAStringHeldByAMemoryOperationThenGrownReadsBack: a reply stored once
// in a memory operation (vars_ref), then added to (vars_concat), then set
// anew (whole) and added to again, reads back whole at every step.
func TestAStringHeldByAMemoryOperationThenGrownReadsBack(t *testing.T) {
	reply := strings.Repeat(`a reply <b>"quoted"</b> é `, 100)
	msg, err := json.Marshal(map[string]any{"role": "assistant", "text": reply})
	require.NoError(t, err)
	steps := []struct {
		rec  *machine.Record
		kind string
	}{
		{&machine.Record{Vars: map[string]any{"s": reply}, Memory: []machine.MemOp{{Op: machine.OpAppend, Key: "l3", Value: msg}}}, "vars_ref"},
		{&machine.Record{Vars: map[string]any{"s": reply + "\nand more"}}, "vars_concat"},
		{&machine.Record{Vars: map[string]any{"s": reply + "\nand more, é"}}, "vars_concat"},
		{&machine.Record{Vars: map[string]any{"s": "new " + reply}, Memory: []machine.MemOp{{Op: machine.OpAppend, Key: "l3", Value: msg}}}, "vars"}, // not what the operation holds
		{&machine.Record{Vars: map[string]any{"s": "new " + reply + "!"}}, "vars_concat"},
	}
	run, j := newTestRun(t, FsyncNever)
	for i, s := range steps {
		s.rec.Seq, s.rec.From, s.rec.To = i+1, "a", "a"
		require.NoError(t, j.OnStep(context.Background(), s.rec))
	}
	require.NoError(t, j.Close())
	lines := journalLines(t, run)[1:]
	l, err := run.ReadJournal()
	require.NoError(t, err)
	for i, s := range steps {
		assert.Contains(t, lines[i], `"`+s.kind+`":{"s":`, "step %d", i+1)
		assert.Equal(t, s.rec.Vars["s"], l.Records[i].Vars["s"], "step %d", i+1)
	}
}
