package runstore

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// A later version may change variables with a kind of delta this one does
// not know. encoding/json would read such a line as if the variable had not
// changed, and a resume would go on from a wrong context: the line is
// refused instead, wherever it is read.
func TestALineWithAKindOfChangeThisVersionDoesNotKnowIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		line   int // the line replaced (1: start)
		member string
		want   string // "": read as before
	}{
		{name: "a delta of a later version, mid-journal", line: 3, member: `"vars_grow":{"n":[1]}`,
			want: `:3: the line changes variables with "vars_grow", a kind of change this version of lppctl does not know: a later version wrote it; read and resume the run with that version or a later one`},
		{name: "a delta of a later version, on the last line", line: 6, member: `"vars_splice":{"n":2}`,
			want: `:6: the line changes variables with "vars_splice", a kind of change this version of lppctl does not know: a later version wrote it; read and resume the run with that version or a later one`},
		{name: "another member a later version adds is read as before", line: 3, member: `"cost":{"usd":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, vars, store, run := fiveCountSteps(t)
			lines := journalLines(t, run)
			seq := tc.line - 1
			line := `{"type":"step","seq":` + string(rune('0'+seq)) + `,"from":"work","to":"work","via":"next[1]","vars":{"n":` + string(rune('0'+seq)) + `},` + tc.member + `,"start":"2026-11-26T20:01:27Z","duration":0}` + "\n"
			lines[tc.line-1] = string(withCRC([]byte(line)))
			writeLines(t, run, lines)
			require.NoError(t, os.Remove(run.Path(CommitFile)))
			want := ""
			if tc.want != "" {
				want = "cannot read journal: " + run.Path(JournalFile) + tc.want
			}

			_, err := run.ReadJournal()
			if want == "" {
				require.NoError(t, err)
			} else {
				require.EqualError(t, err, want, "ReadJournal")
			}

			rc, err := store.Recover(run.Meta.ID)
			if err != nil { // Recover read the line (the last is decoded there)
				want = "cannot resume run " + run.Meta.ID + ": " + want
			} else {
				defer rc.Release()
				r2, rerr := m.NewRun(vars)
				require.NoError(t, rerr)
				err = rc.Replay(r2)
				if want == "" {
					require.NoError(t, err)
					require.EqualValues(t, 5, r2.Vars()["n"])
					return
				}
			}
			require.EqualError(t, err, want, "Recover and Replay")
		})
	}
}
