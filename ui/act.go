package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
)

// Acting on a run (cancel, resume, retry) and starting one are lppctl
// commands that the UI starts as their own processes (Launch), never
// inside the server: the same commands, their own rules and locks, and a
// UI that stops or restarts touches no run. Each button shows its command.

// cli is a command as the page shows it, and the arguments the UI runs it
// with (the store's folder named, Temporal left out, no questions asked).
type cli struct {
	Show string   // "lppctl runs cancel ID"
	Args []string // after "lppctl"
}

// storeFlag is what a shown command needs to find the store: nothing when
// it is the root's default one.
func (s *Server) storeFlag() string {
	if filepath.Clean(s.opts.RunDir) == filepath.Join(s.opts.Root, runstore.DefaultDir) {
		return ""
	}
	return " --run-dir " + shellQuote(s.opts.RunDir)
}

// where are the flags every command the UI runs takes: the store, and no
// Temporal server whatever LPPCTL_TEMPORAL says.
func (s *Server) where() []string { return []string{"--run-dir", s.opts.RunDir, "--temporal="} }

func (s *Server) cancelCLI(id string) cli {
	return cli{Show: "lppctl runs cancel " + shellQuote(id) + s.storeFlag(), Args: append([]string{"runs", "cancel", "--wait", "20s"}, append(s.where(), "--", id)...)}
}

func (s *Server) forkCLI(id string, step int) cli {
	return cli{Show: fmt.Sprintf("lppctl runs fork %s --step %d", shellQuote(id), step) + s.storeFlag(),
		Args: append([]string{"runs", "fork", "--json", "--step", strconv.Itoa(step)}, append(s.where(), "--", id)...)}
}

// remoteCancelCLI cancels a source's run: lppctl runs cancel ID with the
// source's flags (--temporal HOST:PORT).
func (s *Server) remoteCancelCLI(id string) cli {
	flags := s.opts.Source.ResumeFlags()
	return cli{Show: "lppctl runs cancel " + shellQuote(id) + " " + flags, Args: append(append([]string{"runs", "cancel"}, strings.Fields(flags)...), "--", id)}
}

// remoteAct runs the Cancel button of a source's run.
func (s *Server) remoteAct(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if s.opts.Source == nil || s.opts.Exe == "" {
		s.failf(w, http.StatusNotFound, "cannot cancel run %s: this UI has no Temporal server or runs no commands", id)
		return
	}
	c := s.remoteCancelCLI(id)
	p, err := Launch(s.opts.Exe, s.opts.Root, c.Args)
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	back := remotePath(id)
	n := s.outcome(r.Context(), p, "cancel")
	if n.Refused {
		s.render(w, http.StatusConflict, "error.html", errorData{page: page{Title: "Refused", Nav: "runs"}, Status: http.StatusConflict, Message: n.Text, Back: back})
		return
	}
	http.Redirect(w, r, back+"?n="+s.keepNotice(n), http.StatusSeeOther)
}

func (s *Server) resumeCLI(id string) cli {
	return cli{Show: "lppctl resume " + shellQuote(id) + s.storeFlag(), Args: append([]string{"resume", "--no-input", "-q"}, append(s.where(), "--", id)...)}
}

// runActions are the buttons of a store's run page.
type runActions struct {
	Cancel *cli // while a process runs it
	Resume *cli // failed, crashed, interrupted
	Label  string
}

func (s *Server) actionsFor(row runRow) *runActions {
	if s.opts.Exe == "" {
		return nil
	}
	if row.Engine != "" { // a source's run: Cancel (lppctl runs cancel --temporal ...)
		if s.opts.Source == nil || row.Status != string(machine.StatusRunning) {
			return nil
		}
		c := s.remoteCancelCLI(row.ID)
		return &runActions{Cancel: &c}
	}
	switch row.Status {
	case string(machine.StatusRunning):
		c := s.cancelCLI(row.ID)
		return &runActions{Cancel: &c}
	case string(machine.StatusFailed):
		c := s.resumeCLI(row.ID)
		return &runActions{Resume: &c, Label: "Retry"}
	case "crashed", string(machine.StatusInterrupted):
		c := s.resumeCLI(row.ID)
		return &runActions{Resume: &c, Label: "Resume"}
	}
	return nil
}

// act runs the command of a run page's button (cancel, resume) as its own
// process, waits a little for its outcome, and shows it on the run's page.
func (s *Server) act(w http.ResponseWriter, r *http.Request) {
	id, what := r.PathValue("id"), r.PathValue("action")
	back := "/runs/" + url.PathEscape(id)
	if s.opts.Exe == "" {
		s.failf(w, http.StatusNotFound, "cannot %s run %s: this UI runs no commands (it does not know where lppctl is)", what, id)
		return
	}
	run, err := openRun(s.store, id)
	if err != nil {
		s.fail(w, openStatus(err), err)
		return
	}
	row := summarize(run)
	var c cli
	switch what {
	case "cancel":
		c = s.cancelCLI(row.ID)
	case "resume":
		c = s.resumeCLI(row.ID)
	case "fork":
		step, err := strconv.Atoi(r.FormValue("step"))
		if err != nil {
			s.failf(w, http.StatusBadRequest, "cannot fork run %s: the form names no step (%q)", id, r.FormValue("step"))
			return
		}
		c = s.forkCLI(row.ID, step)
	default:
		s.failf(w, http.StatusNotFound, "cannot %s run %s: the UI knows cancel, resume and fork", what, id)
		return
	}
	p, err := Launch(s.opts.Exe, s.opts.Root, c.Args)
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	n := s.outcome(r.Context(), p, what)
	if what == "resume" && specChanged(n.Text) {
		var ok bool
		if n, ok = s.confirmForce(w, r, row.ID, n); !ok {
			return
		}
	}
	if what == "fork" && !n.Refused {
		var forked struct {
			ID    string `json:"id"`
			Step  int    `json:"step"`
			State string `json:"state"`
		}
		if _, out, _ := p.Result(); json.Unmarshal([]byte(out), &forked) == nil && forked.ID != "" {
			n.Text = fmt.Sprintf("forked from run %s after step %d, in %s (%s); Resume continues it", row.ID, forked.Step, forked.State, c.Show)
			back = "/runs/" + url.PathEscape(forked.ID)
		}
	}
	if n.Refused {
		s.render(w, http.StatusConflict, "error.html", errorData{page: page{Title: "Refused", Nav: "runs"}, Status: http.StatusConflict, Message: n.Text, Back: back})
		return
	}
	http.Redirect(w, r, back+"?n="+s.keepNotice(n), http.StatusSeeOther)
}

// outcome waits up to DecideWait for a command the UI started and says how
// it ended: refused (a usage error: nothing was done), what it printed, or
// that it goes on.
func (s *Server) outcome(ctx context.Context, p *Process, what string) notice {
	ctx, cancel := context.WithTimeout(ctx, s.opts.DecideWait)
	defer cancel()
	if !p.Wait(ctx) {
		return notice{Text: fmt.Sprintf("%s: started (pid %d); it goes on in its own process, and this page follows it", what, p.Pid)}
	}
	code, _, _ := p.Result()
	msg := p.Message()
	switch code {
	case 0, 4: // done, or paused again further on
		return notice{Text: msg}
	case 2, 3:
		return notice{Text: msg, Refused: true}
	}
	if strings.Contains(msg, "by another process") || strings.Contains(msg, "in another process") {
		return notice{Text: msg, Refused: true}
	}
	return notice{Text: msg}
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@%+=,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
