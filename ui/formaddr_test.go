package ui

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAFormsAddressOpenedAsAPageGoesToThePageTheFormIsOn: a refused form's
// page has the form's address (/runs/ID/decide, /start); reloaded from the
// address bar or bookmarked, it is a GET, which was a bare "405 Method Not
// Allowed". It now goes to the run's page, or to the specs. Other methods
// and pages are as before.
func TestAFormsAddressOpenedAsAPageGoesToThePageTheFormIsOn(t *testing.T) {
	f := newFixture(t, Options{})
	id := f.addRun(3, nil)
	for _, tt := range []struct{ path, to string }{
		{"/runs/" + id + "/decide", "/runs/" + id},
		{"/runs/" + id + "/resume", "/runs/" + id},
		{"/runs/" + id + "/fork", "/runs/" + id},
		{"/temporal/wf-1/decide", "/temporal/wf-1"},
		{"/start", "/specs"},
	} {
		w := f.do("GET", tt.path, "")
		assert.Equal(t, http.StatusSeeOther, w.Code, tt.path)
		assert.Equal(t, tt.to, w.Header().Get("Location"), tt.path)
	}
	assert.Equal(t, http.StatusMethodNotAllowed, f.do("PUT", "/runs/"+id+"/decide", "").Code)
	assert.Equal(t, http.StatusOK, f.do("GET", "/runs/"+id, "").Code)
}
