package ui

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestStaticServesFilesNotListings: /static/ serves the embedded files and
// no listing of their folders (it listed them).
func TestStaticServesFilesNotListings(t *testing.T) {
	f := newFixture(t, Options{})
	for _, tt := range []struct {
		path string
		code int
	}{
		{"/static/app.js", http.StatusOK},
		{"/static/style.css", http.StatusOK},
		{"/static/", http.StatusNotFound},
		{"/static/vendor/", http.StatusNotFound},
		{"/static/vendor", http.StatusNotFound},
		{"/static/nope.js", http.StatusNotFound},
	} {
		w := f.do("GET", tt.path, "")
		assert.Equal(t, tt.code, w.Code, "%s: %s", tt.path, w.Body.String())
		if tt.code == http.StatusNotFound {
			assert.NotContains(t, w.Body.String(), "app.js", tt.path)
		}
	}
}
