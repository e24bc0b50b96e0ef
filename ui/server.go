// Package ui serves lppctl's local web UI (lppctl ui): the runs with live
// updates, one run's diagram (its path and current state lit), timeline,
// context, L2 and skills.md entries, the decisions a paused run waits for,
// and the specs and L++ blueprints under the project root with their
// diagnostics, a spec's model check and its counterexamples drawn.
//
// It reads runs through machine/runstore and never changes one itself:
// starting, cancelling, resuming and forking a run are lppctl commands run
// as processes of their own (Launch, Options.Exe), so that a UI that stops
// touches no run; a decision goes through Options.Decide, which the command
// wires to lppctl resume run the same way (the same checks, the same run
// lock). Options.Source adds
// runs from elsewhere (lppctl ui --temporal: a Temporal server's), behind an
// interface that keeps the engine's SDK out of this package. The page's
// third-party code (Mermaid) is embedded at build time (go generate ./ui);
// without it, diagrams are drawn by Graphviz's dot on the server, else shown
// as source with a hint.
package ui

import (
	"context"
	"errors"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"os/exec"
	"sync"
	"time"

	"github.com/lppctl/lppctl/internal/promptlog"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// Decision is a person's answer to a paused run, as lppctl resume takes it.
type Decision struct {
	Run       string // the run's ID
	PauseStep int    // the pause it answers: the run's committed steps when it paused
	Kind      string // approve, reject, answer or event
	Text      string // --answer TEXT
	Event     string // --event NAME
	Payload   string // --payload JSON ("" for none)
	Force     bool   // --force: continue with the spec as it is now
}

// Refusal is the error Decide returns when the decision was refused before
// the run was touched (already taken, another process works on the run, a
// wrong answer for the pause): the page says so with 409 Conflict.
type Refusal struct{ Msg string }

func (r *Refusal) Error() string { return r.Msg }

// Options configure a Server.
type Options struct {
	Root   string // the project root: specs are looked for below it
	RunDir string // the runs' directory (runstore)
	// Token, when set, is required on every request (cookie, bearer or
	// ?token=); lppctl ui sets one with --allow-non-loopback.
	Token            string
	AllowNonLoopback bool
	// Decide carries out a decision (lppctl resume) and returns what it
	// printed; a *Refusal when it was refused.
	Decide func(ctx context.Context, d Decision) (string, error)
	// Exe is the lppctl binary that the buttons run as their own processes
	// (cancel, resume, retry, start a run); "" hides those buttons.
	Exe string
	// Source, when set, holds more runs (lppctl ui --temporal): the runs
	// page lists them too, marked with its name; their pages are
	// /temporal/ID and their decisions go through Source.Decide.
	Source RunSource
	// SourcePoll is how often live pages ask the Source whether its runs
	// moved (default 1s; never more often than Poll).
	SourcePoll time.Duration
	// Check decodes and validates a spec file as lppctl validate does
	// (nil: against the built-in actions only).
	Check func(path string, src []byte) (*mspec.Spec, mspec.Diagnostics)
	// Compile compiles a spec that Check found valid, for the Spec page's
	// model check (nil: against the built-in actions only).
	Compile func(spec *mspec.Spec) (*machine.Machine, error)
	// CheckMaxStates bounds the Spec page's model check: the distinct
	// states it explores before stopping with UNKNOWN (default 200,000).
	CheckMaxStates int
	// CheckTimeout bounds the model check's time (default 10s).
	CheckTimeout time.Duration
	// Dot is Graphviz's dot, used when Mermaid is not embedded: "" looks it
	// up on PATH, "-" never uses it.
	Dot string
	// Poll is how often live pages look for changes (default 400ms).
	Poll time.Duration
	// DecideWait is how long a decision's request waits for the run to
	// pause again or end before the page shows it running (default 3s).
	DecideWait time.Duration
	// PageSize is the number of timeline rows per page (default 50).
	PageSize int
}

// Server is the UI's HTTP handler.
type Server struct {
	opts    Options
	store   *runstore.Store
	tmpl    *template.Template
	static  fs.FS
	mermaid bool   // the Mermaid library is embedded
	dot     string // Graphviz's dot, or ""

	mu       sync.Mutex
	notices  map[string]notice // a decision's outcome, shown once on the run page
	bg       sync.WaitGroup    // decisions still running
	end      chan struct{}     // closed by EndStreams
	endOnce  sync.Once
	life     context.Context // ended by EndStreams: decisions stop following their runs
	stop     context.CancelFunc
	checks   chan struct{}                // one model check at a time
	prompts  recent[*promptlog.Index]     // the prompts files of the runs shown last
	journals recent[*runstore.Tail]       // the journals of the runs shown last
	folds    recent[*runFold]             // their folds (the context now, the timeline's walk)
	defaults map[string]map[string]string // specDefaults, by spec hash
	posts    posts                        // the Start and Fork forms posted lately
	// journalChecks are the journals' checks of the Runs and Specs pages.
	journalChecks journalChecks
}

type notice struct {
	Text    string
	Refused bool
}

// New returns the UI's server.
func New(opts Options) (*Server, error) {
	if opts.Poll <= 0 {
		opts.Poll = 400 * time.Millisecond
	}
	if opts.SourcePoll <= 0 {
		opts.SourcePoll = time.Second
	}
	if opts.DecideWait <= 0 {
		opts.DecideWait = 3 * time.Second
	}
	if opts.PageSize <= 0 {
		opts.PageSize = 50
	}
	if opts.CheckMaxStates <= 0 {
		opts.CheckMaxStates = DefaultCheckMaxStates
	}
	if opts.CheckTimeout <= 0 {
		opts.CheckTimeout = DefaultCheckTimeout
	}
	if opts.Decide == nil {
		return nil, errors.New("cannot start the UI: no decision handler")
	}
	tmpl, err := parseTemplates()
	if err != nil {
		return nil, err
	}
	static, err := fs.Sub(assets, "static")
	if err != nil {
		return nil, err
	}
	s := &Server{opts: opts, store: runstore.New(opts.RunDir), tmpl: tmpl, static: static, notices: map[string]notice{}, defaults: map[string]map[string]string{}, end: make(chan struct{}), checks: make(chan struct{}, 1)}
	s.prompts.keep, s.journals.keep, s.folds.keep = promptIndexesKept, journalsKept, foldsKept
	s.life, s.stop = context.WithCancel(context.Background())
	_, err = fs.Stat(static, MermaidFile)
	s.mermaid = err == nil
	switch opts.Dot {
	case "-":
	case "":
		s.dot, _ = exec.LookPath("dot")
	default:
		s.dot = opts.Dot
	}
	return s, nil
}

// Handler returns the UI's routes behind its guards: Host, Origin and token
// checks for every request, cross-origin protection for every write.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.runsPage)
	mux.HandleFunc("GET /runs/{id}", s.runPage)
	mux.HandleFunc("GET /runs/{id}/children/{path...}", s.childPage)
	mux.HandleFunc("POST /runs/{id}/decide", s.decide)
	mux.HandleFunc("POST /runs/{id}/{action}", func(w http.ResponseWriter, r *http.Request) { s.once(w, r, s.act) })
	mux.HandleFunc("POST /start", func(w http.ResponseWriter, r *http.Request) { s.once(w, r, s.start) })
	mux.HandleFunc("GET /temporal/{id}", s.remoteRunPage)
	mux.HandleFunc("POST /temporal/{id}/decide", s.remoteDecide)
	mux.HandleFunc("POST /temporal/{id}/cancel", s.remoteAct)
	// A form's address opened as a page (a refused form's page reloaded
	// from the address bar, a bookmark): the page the form is on, not a
	// bare 405.
	mux.HandleFunc("GET /runs/{id}/{action}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/runs/"+url.PathEscape(r.PathValue("id")), http.StatusSeeOther)
	})
	mux.HandleFunc("GET /temporal/{id}/{action}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/temporal/"+url.PathEscape(r.PathValue("id")), http.StatusSeeOther)
	})
	mux.HandleFunc("GET /start", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/specs", http.StatusSeeOther)
	})
	mux.HandleFunc("GET /events", s.events)
	mux.HandleFunc("GET /specs", s.specsPage)
	mux.HandleFunc("GET /spec", s.specPage)
	mux.Handle("GET /static/", http.StripPrefix("/static", newStaticFiles(s.static)))
	cop := http.NewCrossOriginProtection()
	return s.guard(cop.Handler(mux))
}

// EndStreams ends the live-update streams (they never go idle on their
// own): call it when the server shuts down (http.Server.RegisterOnShutdown).
// It also ends the decisions' wait for their runs: a run started by a
// decision is a process of its own, which goes on.
func (s *Server) EndStreams() {
	s.endOnce.Do(func() {
		close(s.end)
		s.stop()
	})
}

// Wait waits for the decisions still running (their runs keep going after
// the request that made them has been answered).
func (s *Server) Wait() { s.bg.Wait() }
