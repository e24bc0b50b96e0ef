package ui

import (
	"html"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAFormOverTheLimitSaysTheLimitAndHowToGiveTheValue: a form larger
// than the UI reads is refused with 413, the limit, and the command that
// takes so long a value from a file, never Go's bare "http: POST too
// large"; nothing is started or decided.
func TestAFormOverTheLimitSaysTheLimitAndHowToGiveTheValue(t *testing.T) {
	f := newFixture(t, Options{Exe: "/nonexistent/lppctl"})
	id := f.addRun(1, approval())
	huge := strings.Repeat("x", MaxFormBytes)
	for _, tt := range []struct {
		name, target, body, want string
	}{
		{"a Start form", "/start", "path=specs%2Floop.yaml&var.note=" + huge,
			"cannot read the form: it is larger than 10 MiB, the most the UI reads of one form; write the long value to a file and start the run on the command line: lppctl run --spec PATH --var-file NAME=FILE"},
		{"an answer", "/runs/" + id + "/decide", "pause_step=1&kind=answer&text=" + huge,
			"cannot read the form: it is larger than 10 MiB, the most the UI reads of one form; write the answer or the payload to a file and give it on the command line: lppctl resume " + id + " --answer-file FILE, or --event NAME --payload-file FILE"},
		{"a Fork form", "/runs/" + id + "/fork", "step=1&pad=" + huge,
			"cannot read the form: it is larger than 10 MiB, the most the UI reads of one form; a form of this page is far smaller: post it from the page"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := f.do("POST", tt.target, tt.body)
			require.Equal(t, http.StatusRequestEntityTooLarge, w.Code, w.Body.String())
			assert.Contains(t, w.Body.String(), html.EscapeString(tt.want))
			assert.NotContains(t, w.Body.String(), "POST too large")
		})
	}
	assert.Empty(t, f.got, "no decision may be tried")
}

// TestAFormUnderTheLimitIsRead: a form just under the limit is read as
// before (its value reaches the decision whole).
func TestAFormUnderTheLimitIsRead(t *testing.T) {
	f := newFixture(t, Options{})
	id := f.addRun(1, approval())
	prefix := "pause_step=1&kind=answer&text="
	text := strings.Repeat("y", MaxFormBytes-len(prefix))
	w := f.do("POST", "/runs/"+id+"/decide", prefix+text)
	require.Equal(t, http.StatusSeeOther, w.Code, w.Body.String())
	require.Len(t, f.got, 1)
	assert.Equal(t, len(text), len(f.got[0].Text))
}
