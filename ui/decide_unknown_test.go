package ui

import (
	"html"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestADecisionForARunTheStoreDoesNotHaveIsNotFound: a decision posted for
// a run the store does not have is 404, as the run's page is, and a prefix
// of several runs 400, with the store's message; no decision is tried.
func TestADecisionForARunTheStoreDoesNotHaveIsNotFound(t *testing.T) {
	f := newFixture(t, Options{})
	a, b := f.addRun(1, approval()), f.addRun(1, approval())
	common := 0
	for common < len(a) && a[common] == b[common] {
		common++
	}
	for _, tt := range []struct {
		name, id string
		status   int
		want     string
	}{
		{"an unknown run", "nope", http.StatusNotFound, `cannot open run "nope": no such run in ` + f.store.Dir},
		{"a prefix of two runs", a[:common], http.StatusBadRequest, a[:common]},
	} {
		t.Run(tt.name, func(t *testing.T) {
			page := f.do("GET", "/runs/"+tt.id, "")
			require.Equal(t, tt.status, page.Code, "the run's page")
			w := f.do("POST", "/runs/"+tt.id+"/decide", "pause_step=1&kind=approve")
			require.Equal(t, tt.status, w.Code, w.Body.String())
			assert.Contains(t, w.Body.String(), html.EscapeString(tt.want))
		})
	}
	assert.Empty(t, f.got, "no decision may be tried")
}
