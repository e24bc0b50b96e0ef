package runstore

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
)

// keptRecords is an observer that keeps every record a run gives it (it is
// no ValueBorrower: the run never changes a value it handed over).
type keptRecords struct{ recs []*machine.Record }

func (k *keptRecords) OnStep(_ context.Context, rec *machine.Record) error {
	k.recs = append(k.recs, rec)
	return nil
}

// runRecords runs testdata's spec name to its end and returns its records
// and its final variables.
func runRecords(t *testing.T, name string, limit int) ([]*machine.Record, map[string]any) {
	t.Helper()
	m := specMachine(t, name)
	var k keptRecords
	r, err := m.NewRun(map[string]any{"limit": limit}, machine.WithObserver(&k), machine.WithMaxTransitions(1<<20))
	require.NoError(t, err)
	if err := r.Run(context.Background()); err != nil {
		require.ErrorIs(t, err, machine.ErrFinished)
	}
	return k.recs, r.Vars()
}

func TestStepsReadBackTheRecordsARunMade(t *testing.T) {
	for _, name := range []string{"grow.yaml", "growmap.yaml", "mixed.yaml"} {
		t.Run(name, func(t *testing.T) {
			recs, final := runRecords(t, name, 50)
			b, err := EncodeSteps(recs)
			require.NoError(t, err)
			if name == "mixed.yaml" { // every kind of line
				for _, member := range []string{`"vars_append"`, `"vars_patch"`, `"xs":[{`, `"m":{"reset"`} {
					assert.Contains(t, string(b), member)
				}
			}
			got, err := ReadSteps(b)
			require.NoError(t, err)
			require.Len(t, got, len(recs))
			var walk Walker // a step that changed keys of a map holds those
			for i, rec := range recs {
				have := walk.Next(got[i])
				assert.Equal(t, rec.Seq, have.Seq)
				assert.Equal(t, rec.From, have.From)
				assert.Equal(t, rec.To, have.To)
				assert.Equal(t, rec.Via, have.Via)
				assert.Equal(t, rec.End, have.End)
				// As JSON: a float with no fraction reads back as an int, as
				// from the journal (the declared types decide on resume).
				want, err := json.Marshal(rec.Vars)
				require.NoError(t, err)
				vars, err := json.Marshal(have.Vars)
				require.NoError(t, err)
				assert.JSONEq(t, string(want), string(vars), "step %d", rec.Seq)
			}
			// The records read rebuild the run: resumed from them, it stands
			// where the run ended.
			r, err := specMachine(t, name).Resume(map[string]any{"limit": 50}, got)
			require.NoError(t, err)
			want, err := json.Marshal(final)
			require.NoError(t, err)
			have, err := json.Marshal(r.Vars())
			require.NoError(t, err)
			assert.JSONEq(t, string(want), string(have))
		})
	}
}

// TestStepLinesGrowWithWhatChanged: a run four times as long writes about
// four times the lines, whether its list grows or its map gains keys (each
// value written whole would make it sixteen).
func TestStepLinesGrowWithWhatChanged(t *testing.T) {
	for _, name := range []string{"grow.yaml", "growmap.yaml"} {
		t.Run(name, func(t *testing.T) {
			size := map[int]int{}
			for _, n := range []int{400, 1600} {
				recs, _ := runRecords(t, name, n)
				b, err := EncodeSteps(recs)
				require.NoError(t, err)
				size[n] = len(b)
			}
			assert.Less(t, float64(size[1600])/float64(size[400]), 4.5, "bytes by steps: %v", size)
		})
	}
}

func TestReadStepsRefusesDamagedLines(t *testing.T) {
	recs, _ := runRecords(t, "grow.yaml", 3)
	good, err := EncodeSteps(recs)
	require.NoError(t, err)
	lines := bytes.SplitAfter(good, []byte("\n"))
	require.Len(t, lines, 5)                                    // 4 steps and what follows the last newline
	first := `{"type":"step","seq":1,"vars":{"xs":[0]}}` + "\n" // a line without checksum, as older journals hold
	flipped := bytes.Clone(good)
	flipped[bytes.Index(flipped, []byte(`"to":"work"`))+6] = 'x'
	tests := []struct {
		name string
		b    []byte
		want string
	}{
		{"a cut last line", good[:len(good)-1], "cannot read steps: line 4 has no end (the lines were cut)"},
		{"a changed byte", flipped, "cannot read steps: line 1: damaged line: the line's checksum is "},
		{"items appended to a list no line wrote", bytes.Join(lines[1:], nil), "cannot read steps: line 1: step 2: items appended to list xs, which no earlier line wrote"},
		{"an entry that is no step", append([]byte(`{"type":"start","message":"x"}`+"\n"), good...), `cannot read steps: line 1 is a "start" entry, not a step`},
		{"no JSON", []byte("{\n"), "cannot read steps: line 1: "},
		{"a variable set and appended to on one line", []byte(first + `{"type":"step","seq":2,"vars":{"xs":[9]},"vars_append":{"xs":[1]}}` + "\n"),
			"cannot read steps: line 2: step 2: variable xs is given twice on the line"},
		{"a variable appended to and patched on one line", []byte(first + `{"type":"step","seq":2,"vars_append":{"xs":[1]},"vars_patch":{"xs":{"set":{"a":1}}}}` + "\n"),
			"cannot read steps: line 2: step 2: variable xs is given twice on the line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadSteps(tt.b)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	got, err := ReadSteps(nil)
	require.NoError(t, err)
	assert.Empty(t, got)
}

// FuzzReadSteps: any bytes read as step lines give records or an error,
// never a panic, and records that read write back to lines that read the
// same.
func FuzzReadSteps(f *testing.F) {
	for _, name := range []string{"grow.yaml", "growmap.yaml", "mixed.yaml", "growtext.yaml"} {
		recs, _ := runRecords(&testing.T{}, name, 4)
		b, err := EncodeSteps(recs)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"type":"step","seq":1,"vars_append":{"xs":[1]}}` + "\n"))
	f.Add([]byte(`{"type":"step","seq":1,"vars":{"m":{}},"vars_patch":{"m":{"set":{"a":1}}}}` + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, err := ReadSteps(b)
		if err != nil {
			return
		}
		// Steps takes maps whole, as a running machine gives them: walk the
		// records read (a step that changed keys holds those).
		steps, walk := NewSteps(), Walker{}
		for _, rec := range recs {
			if err := steps.Add(walk.Next(rec)); err != nil {
				return // a value JSON cannot hold (read from a number too large)
			}
		}
		again := steps.Bytes()
		back, err := ReadSteps(again)
		require.NoError(t, err)
		require.Len(t, back, len(recs))
		var w1, w2 Walker
		for i := range recs {
			a, b := w1.Next(recs[i]), w2.Next(back[i])
			if len(a.Vars) == 0 && len(b.Vars) == 0 {
				continue // no variable: {} and nil alike
			}
			want, _ := json.Marshal(a.Vars)
			have, _ := json.Marshal(b.Vars)
			require.JSONEq(t, string(want), string(have))
		}
	})
}
