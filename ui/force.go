package ui

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// A run whose spec file (or a prompt template it names) changed since it
// began is refused by lppctl resume, which lists what differs and offers
// --force. The UI offers the same: Resume shows resume's refusal, the
// differences, and a button that runs lppctl resume ID --force once they
// were seen. The confirmation names the refusal it answers (its text's
// hash): when what differs changed again meanwhile, the new differences
// are shown to confirm instead, and when the file was restored the run
// resumes as it is, without --force.

// forceMarker ends resume's refusal of a changed spec or template ("resume
// with --force to continue with the new spec, or restore ...").
const forceMarker = "resume with --force to continue with the "

// specChanged tells a refusal of resume that --force would overcome.
func specChanged(msg string) bool { return strings.Contains(msg, forceMarker) }

// NeedsForce tells an error of lppctl resume that refused a run whose spec
// or prompt templates changed since it began (nothing was done; --force
// continues it).
func NeedsForce(msg string) bool { return specChanged(msg) }

// refusalKey names a refusal's text, for the confirmation that answers it.
func refusalKey(msg string) string {
	sum := sha256.Sum256([]byte(msg))
	return hex.EncodeToString(sum[:12])
}

func (s *Server) forceCLI(id string) cli {
	return cli{Show: "lppctl resume " + shellQuote(id) + " --force" + s.storeFlag(), Args: append([]string{"resume", "--no-input", "-q", "--force"}, append(s.where(), "--", id)...)}
}

// forceData is the page that asks to confirm lppctl resume --force.
type forceData struct {
	page
	Base    string // the run's page
	RunID   string
	Message string // resume's refusal: what differs
	Key     string // refusalKey(Message)
	Again   bool   // a confirmation was posted for other differences
	Force   cli
}

// confirmForce answers a Resume (or Retry) that resume refused because the
// spec changed: with a confirmation posted for this very refusal, it runs
// lppctl resume --force and returns its outcome; else it shows the
// differences and the button that confirms them, and returns false.
func (s *Server) confirmForce(w http.ResponseWriter, r *http.Request, id string, refusal notice) (notice, bool) {
	if r.PostForm.Get("force") == "1" && r.PostForm.Get("seen") == refusalKey(refusal.Text) {
		c := s.forceCLI(id)
		p, err := Launch(s.opts.Exe, s.opts.Root, c.Args)
		if err != nil {
			s.fail(w, http.StatusInternalServerError, err)
			return notice{}, false
		}
		n := s.outcome(r.Context(), p, "resume --force")
		if !n.Refused {
			n.Text = fmt.Sprintf("resumed with the spec as it is now (%s): %s", c.Show, n.Text)
		}
		return n, true
	}
	title := "The spec changed since the run began"
	if strings.Contains(refusal.Text, "with the templates as they are now") {
		title = "Its prompt templates changed since the run began"
	}
	d := forceData{page: page{Title: title, Nav: "runs"}, Base: "/runs/" + url.PathEscape(id), RunID: id,
		Message: refusal.Text, Key: refusalKey(refusal.Text), Again: r.PostForm.Get("force") == "1", Force: s.forceCLI(id)}
	s.render(w, http.StatusConflict, "force.html", d)
	return notice{}, false
}
