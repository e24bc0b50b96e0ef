package ui

import (
	"bytes"
	"fmt"
	"net/http"
)

// page is what every template gets besides its own data.
type page struct {
	Title string
	Nav   string // the nav item lit: runs or specs
	Live  string // the SSE URL that tells the page to refresh ("" for none)
	RunID string
	// Self is the page's own URL when the browser's is not (a form's
	// answer, shown at the URL it was posted to): live updates read it.
	Self string
}

// render executes a template into a buffer first, so that a template error
// is a clean 500 and never half a page.
func (s *Server) render(w http.ResponseWriter, status int, name string, data any) {
	var b bytes.Buffer
	if err := s.tmpl.ExecuteTemplate(&b, name, data); err != nil {
		http.Error(w, "cannot render the page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

type errorData struct {
	page
	Status  int
	Message string
	Back    string
}

// fail shows an error page (the message escaped like everything else).
func (s *Server) fail(w http.ResponseWriter, status int, err error) {
	s.render(w, status, "error.html", errorData{page: page{Title: http.StatusText(status)}, Status: status, Message: err.Error(), Back: "/"})
}

// failf is fail with a formatted message.
func (s *Server) failf(w http.ResponseWriter, status int, format string, args ...any) {
	s.fail(w, status, fmt.Errorf(format, args...))
}
