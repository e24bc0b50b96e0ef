package runstore

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
)

// flipByte flips one bit of the byte at off in the run's journal: the file
// keeps its size.
func flipByte(t *testing.T, run *Run, off int) {
	t.Helper()
	b, err := os.ReadFile(run.Path(JournalFile))
	require.NoError(t, err)
	b[off] ^= 0x02
	require.NoError(t, os.WriteFile(run.Path(JournalFile), b, 0o644))
}

func TestCheckJournalFindsDamageThatKeepsTheFileSize(t *testing.T) {
	completed := func(t *testing.T) *Run {
		run, j := newTestRun(t, FsyncAlways)
		for i := 1; i <= 4; i++ {
			require.NoError(t, j.OnStep(context.Background(), &machine.Record{Seq: i, From: "a", To: "a", Action: "x.y", End: i == 4, Vars: map[string]any{"n": i}}))
		}
		require.NoError(t, j.Close())
		run.Unlock()
		return run
	}
	tests := []struct {
		name   string
		damage func(t *testing.T, run *Run, lines []string)
		want   string // "" for no damage; JOURNAL stands for its path
	}{
		{name: "whole", damage: func(*testing.T, *Run, []string) {}},
		{
			name: "a flipped byte inside step 2",
			damage: func(t *testing.T, run *Run, lines []string) {
				flipByte(t, run, len(lines[0])+len(lines[1])+len(lines[2])/2)
			},
			want: "JOURNAL:3: damaged line: the line's checksum is",
		},
		{
			name: "a flipped byte without the commit record",
			damage: func(t *testing.T, run *Run, lines []string) {
				require.NoError(t, os.Remove(run.Path(CommitFile)))
				flipByte(t, run, len(lines[0])+len(lines[1])/2)
			},
			want: "JOURNAL:2: damaged line: the line's checksum is",
		},
		{
			name: "two lines of the same length swapped",
			damage: func(t *testing.T, run *Run, lines []string) {
				require.Equal(t, len(lines[2]), len(lines[3]))
				lines[2], lines[3] = lines[3], lines[2]
				writeLines(t, run, lines)
			},
			want: "JOURNAL: its first",
		},
		{
			name: "a line's checksum removed",
			damage: func(t *testing.T, run *Run, lines []string) {
				l := lines[2]
				lines[2] = l[:len(l)-len(`,"crc":"12345678"}`)-1] + "}" + strings.Repeat(" ", len(`,"crc":"12345678"`)) + "\n"
				writeLines(t, run, lines)
			},
			want: "JOURNAL:3: damaged line: the line has no checksum but the lines before it have one",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := completed(t)
			size := fileSize(t, run.Path(JournalFile))
			tt.damage(t, run, journalLines(t, run))
			require.Equal(t, size, fileSize(t, run.Path(JournalFile)), "the damage keeps the size")
			err := run.CheckJournal()
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), strings.ReplaceAll(tt.want, "JOURNAL", run.Path(JournalFile)))
			_, rerr := run.ReadJournal()
			assert.Error(t, rerr, "ReadJournal refuses what CheckJournal flags")
		})
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	return fi.Size()
}

// CheckJournal (lppctl runs) and ReadJournal (runs show, resume) give one
// verdict on a journal's last line: one that is not JSON is torn for both,
// past the commit record as without it; one that is JSON but lost its
// checksum, or any such line before the last, is damage for both.
func TestCheckJournalAndReadJournalAgreeOnTheLastLine(t *testing.T) {
	for _, tc := range []struct {
		name   string
		commit bool   // keep journal.commit
		add    string // appended to the journal
		middle bool   // insert it before the last line instead
		torn   bool   // ReadJournal reads it as a torn line, and CheckJournal passes; else both refuse
	}{
		{name: "a complete line that is not JSON, past the commit record", commit: true, add: "this is not json\n", torn: true},
		{name: "a complete line that is not JSON, without a commit record", add: "this is not json\n", torn: true},
		{name: "a line without a newline", commit: true, add: `{"type":"st`, torn: true},
		{name: "a JSON line without a checksum", add: `{"type":"fail","message":"x"}` + "\n"},
		{name: "a line that is not JSON before the last", commit: true, add: "this is not json\n", middle: true},
		{name: "a line that is not JSON before the last, without a commit record", add: "this is not json\n", middle: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run, j := newTestRun(t, FsyncAlways)
			for i := 1; i <= 3; i++ {
				require.NoError(t, j.OnStep(context.Background(), &machine.Record{Seq: i, From: "a", To: "a", Action: "x.y", Vars: map[string]any{"n": i}}))
			}
			require.NoError(t, j.Close())
			run.Unlock()
			if !tc.commit {
				require.NoError(t, os.Remove(run.Path(CommitFile)))
			}
			lines := journalLines(t, run)
			if tc.middle {
				lines = append(lines[:2:2], append([]string{tc.add}, lines[2:]...)...)
			} else {
				lines = append(lines, tc.add)
			}
			writeLines(t, run, lines)
			cerr := run.CheckJournal()
			l, rerr := run.ReadJournal()
			if tc.torn {
				require.NoError(t, cerr)
				require.NoError(t, rerr)
				assert.Equal(t, len(tc.add), l.Torn)
				return
			}
			assert.Error(t, cerr, "CheckJournal")
			assert.Error(t, rerr, "ReadJournal")
		})
	}
}
