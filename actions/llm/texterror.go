package llm

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// A server (or a proxy in front of it) sometimes answers HTTP 200 with an
// error written as text instead of a reply: "Internal error, try later",
// an HTML page titled "503 Service Temporarily Unavailable". textError reads
// such a body as what it says.

var (
	// saysTransient matches what a server says when it failed for now.
	saysTransient = regexp.MustCompile(`(?i)\b(internal (server )?error|server error|try (it )?(again|later)|temporar(y|ily)|unavailable|overloaded|over capacity|busy|timed out|time-?out|rate.?limit(ed)?|too many requests|bad gateway|50[0-4]|529)\b`)
	// saysError matches what a server says when a request failed.
	saysError = regexp.MustCompile(`(?i)\b(error|exception|failed|failure|not found|invalid|unauthori[sz]ed|forbidden|denied)\b`)
)

// textError reads a 200 body that is not JSON as the error it says, if it
// says one: text (or an HTML page's title) saying the server failed for now
// is transient, retried like a 5xx; text saying another error ("Error:
// model not found") is not, and the error quotes it. It returns nil for a
// body that says neither (a page that is not the API's: the caller says
// so).
func textError(body []byte, contentType string) *replyError {
	ct := strings.TrimSpace(strings.Split(contentType, ";")[0])
	html := strings.Contains(ct, "html") || bytes.HasPrefix(body, []byte("<"))
	if html && htmlTitle.Find(body) == nil {
		return nil // an HTML page's text may say anything: only its title is read
	}
	said := serverSaid(body, contentType)
	in := "in a body that is not JSON"
	if ct != "" && ct != "application/json" {
		in = "in " + ct
	}
	switch {
	case saysTransient.MatchString(said):
		return &replyError{transient: true, msg: fmt.Sprintf("the server answered HTTP 200 with an error %s instead of a reply (%q), taken as a server error", in, said)}
	case saysError.MatchString(said):
		return &replyError{msg: fmt.Sprintf("the server answered HTTP 200 with an error %s instead of a reply (%q)", in, said)}
	}
	return nil
}
