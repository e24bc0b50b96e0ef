package main

import (
	"context"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// Progress output tells warnings by their severity, not by their text: -q
// shows an action's warnings (and the spec's warn:) and nothing else.
func TestProgressShowsWarningsBySeverity(t *testing.T) {
	rec := &machine.Record{Seq: 1, From: "learn", To: "done", Via: "next[0]", Warn: "fallback taken", Notes: []mspec.Note{
		{Text: "committed 2 lines"},
		{Text: "warning: an info note that only looks like one"},
		{Text: "L2 line BIG is 50005 bytes", Severity: mspec.NoteWarning},
	}}
	for _, c := range []struct {
		name string
		kind progressKind
		want string
	}{
		{"quiet", progressQuiet, "warning: L2 line BIG is 50005 bytes\nwarning: fallback taken\n"},
		{"text", progressText, "  learn: committed 2 lines\n" +
			"  learn: warning: an info note that only looks like one\n" +
			"  learn: warning: L2 line BIG is 50005 bytes\n" +
			"  warning: fallback taken\n" +
			"[1] learn → done  next[0]\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			if err := newProgress(&b, c.kind).OnStep(context.Background(), rec); err != nil {
				t.Fatal(err)
			}
			if b.String() != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", b.String(), c.want)
			}
		})
	}
}
