package main

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/lppctl/lppctl/actions"
	"github.com/lppctl/lppctl/internal/fsx"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/lpp"
	"github.com/lppctl/lppctl/machine/runstore"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
	"github.com/lppctl/lppctl/ui"
)

func uiCommand() *cli.Command {
	return &cli.Command{
		Name:      "ui",
		Usage:     "serve a local web UI: runs, their diagrams and timelines, decisions, specs",
		ArgsUsage: " ",
		Description: `Serves a web app embedded in lppctl: the runs (live, searchable), one run's
diagram with its path and current state lit, its timeline, its context and
memory after any step, its child machines and skills.md entries; buttons that
start a run of a spec (a form built from its context), cancel, resume, retry
or fork a run and answer a pause (lppctl resume --approve, --reject, --answer
or --event), each run as the lppctl command it shows, in a process of its own:
stopping the UI touches no run; every spec under the root with its validate
diagnostics and a Check button (lppctl check, bounded by --max-states and
--check-timeout) that draws each counterexample; every L++ blueprint drawn.
It needs no network.

It listens on loopback only unless --allow-non-loopback, which then requires
a token (printed in the URL). Requests with another Host (DNS rebinding) or
another site's Origin are refused.

With --temporal HOST:PORT (or LPPCTL_TEMPORAL) it lists the runs of that
Temporal server too, marked Temporal, with their pages and decisions (those
of lppctl runs show|trace and resume --temporal).`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "addr", Value: "127.0.0.1:8780", Usage: "listen on `HOST:PORT` (port 0: any free one)"},
			&cli.StringFlag{Name: "root", Usage: "the project `DIR`: its .lppctl/runs and the specs under it (default: the current directory or the nearest folder above it holding config/tools_config.yaml, as run finds it)"},
			&cli.BoolFlag{Name: "allow-non-loopback", Usage: "listen on a non-loopback address too (a token is then required)"},
			&cli.IntFlag{Name: "max-states", Value: ui.DefaultCheckMaxStates, Usage: "stop the Spec page's Check (UNKNOWN verdicts) after `N` distinct states"},
			&cli.DurationFlag{Name: "check-timeout", Value: ui.DefaultCheckTimeout, Usage: "stop the Spec page's Check (UNKNOWN verdicts) after `DURATION`"},
		}, append(runStoreFlags(), uiTemporalFlags()...)...),
		Action: uiAction,
	}
}

func uiAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("lppctl ui takes no arguments (got %q): use --addr and --root", c.Args().First())
	}
	addr, allow := c.String("addr"), c.Bool("allow-non-loopback")
	if err := ui.CheckAddr(addr, allow); err != nil {
		return withCode(exitUsage, err)
	}
	if c.Int("max-states") <= 0 {
		return usageErrorf("--max-states must be positive, not %d", c.Int("max-states"))
	}
	if c.Duration("check-timeout") <= 0 {
		return usageErrorf("--check-timeout must be positive, not %s", c.Duration("check-timeout"))
	}
	// Every page reads specs under LPPCTL_MAX_BYTES: one that cannot be
	// read is refused here, as validate refuses it, rather than a Specs
	// page listing no spec.
	if _, err := fsx.MaxBytes(""); err != nil {
		return withCode(exitUsage, err)
	}
	root, err := filepath.Abs(cmp.Or(projectRootFlag(c), "."))
	if err != nil {
		return err
	}
	runDir := storeFrom(c).Dir
	if abs, err := filepath.Abs(runDir); err == nil {
		runDir = abs
	}
	token := ""
	if allow {
		var b [16]byte
		_, _ = rand.Read(b[:])
		token = hex.EncodeToString(b[:])
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot serve the UI: cannot find the lppctl binary that its buttons run: %w", err)
	}
	opts := ui.Options{
		Root: root, RunDir: runDir, Token: token, AllowNonLoopback: allow, Exe: exe,
		Decide: uiDecide(exe, root, runDir), Check: uiCheck(root), Compile: uiCompile(root),
		CheckMaxStates: c.Int("max-states"), CheckTimeout: c.Duration("check-timeout"),
	}
	where := runDir
	if addr := c.String("temporal"); addr != "" {
		tc, err := dialTemporal(c, c.Context)
		if err != nil {
			return err
		}
		defer tc.Close()
		opts.Source = newTemporalSource(tc, addr, c.String("namespace"), root)
		where += " and on Temporal " + addr
	}
	srv, err := ui.New(opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("cannot serve the UI on %s: the port is in use (another lppctl ui?); give another with --addr, e.g. --addr 127.0.0.1:0 for any free one", addr)
	}
	if err != nil {
		return fmt.Errorf("cannot serve the UI: %w", err)
	}
	url := "http://" + ln.Addr().String() + "/"
	if token != "" {
		url += "?token=" + token
	}
	fmt.Fprintf(c.App.Writer, "lppctl ui: serving %s on %s (runs in %s); Ctrl-C stops it\n", root, url, where)
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serveUI(ctx, ln, srv)
}

// serveUI serves until ctx ends, then lets decisions in flight reach a
// clean stop (their runs take the same signal) before returning.
func serveUI(ctx context.Context, ln net.Listener, srv *ui.Server) error {
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10}
	hs.RegisterOnShutdown(srv.EndStreams)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("cannot serve the UI: %w", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(shut)
	srv.Wait()
	return nil
}

// uiDecide carries out a decision from the UI with the resume command
// itself, run as its own process (exe, in root): the same checks, the same
// run lock, the same journal entries as lppctl resume RUN_ID
// --approve|--reject|--answer TEXT|--event NAME, with --pause-step so that
// only the pause the page showed is answered. The run goes on in that
// process: a UI that stops (ctx ends) stops waiting for it, never the run.
func uiDecide(exe, root, runDir string) func(context.Context, ui.Decision) (string, error) {
	return func(ctx context.Context, d ui.Decision) (string, error) {
		// --temporal= : a run of the store, whatever LPPCTL_TEMPORAL says.
		// A long answer or payload goes as a file (ui.ValueFlag): one
		// argument holds at most 128 KiB.
		args, err := resumeArgs(d, []string{"--run-dir", runDir, "--temporal="}, func(flag, value string) (string, error) {
			return ui.ValueFlag(runDir, flag, value)
		})
		if err != nil {
			return "", &ui.Refusal{Msg: err.Error()}
		}
		p, err := ui.Launch(exe, root, args[1:])
		if err != nil { // nothing was done: the page keeps what was typed
			return "", &ui.Refusal{Msg: err.Error()}
		}
		if !p.Wait(ctx) {
			return fmt.Sprintf("the decision goes on in its own process (pid %d)", p.Pid), nil
		}
		code, _, _ := p.Result()
		msg := p.Message()
		switch {
		case code == exitOK, code == exitPaused: // answered; done, or paused again further on
			return msg, nil
		case code == exitUsage, strings.Contains(msg, "by another process"), strings.Contains(msg, "in another process"), ui.NeedsForce(msg):
			return "", &ui.Refusal{Msg: msg}
		}
		return "", fmt.Errorf("the run stopped: %s", msg)
	}
}

// resumeArgs is the resume command of a decision (args[0] is "lppctl");
// value gives the answer's text or the payload (the argument
// "--answer=TEXT", or a file's flag), nil for in the argument.
func resumeArgs(d ui.Decision, where []string, value func(flag, value string) (string, error)) ([]string, error) {
	if value == nil {
		value = func(flag, v string) (string, error) { return "--" + flag + "=" + v, nil }
	}
	args := append([]string{"lppctl", "resume", "--no-input", "-q", "--pause-step", strconv.Itoa(d.PauseStep)}, where...)
	if d.Force {
		args = append(args, "--force")
	}
	switch d.Kind {
	case "approve", "reject":
		args = append(args, "--"+d.Kind)
	case "answer":
		arg, err := value("answer", d.Text)
		if err != nil {
			return nil, err
		}
		args = append(args, arg)
	case "event":
		args = append(args, "--event="+d.Event)
		if d.Payload != "" {
			arg, err := value("payload", d.Payload)
			if err != nil {
				return nil, err
			}
			args = append(args, arg)
		}
	default:
		return nil, &ui.Refusal{Msg: fmt.Sprintf("unknown decision %q", d.Kind)}
	}
	return append(args, "--", d.Run), nil
}

// uiResume is uiDecide with where the run is (where: resume's flags that
// name the store, or the Temporal server).
func uiResume(where []string) func(context.Context, ui.Decision) (string, error) {
	return func(ctx context.Context, d ui.Decision) (string, error) {
		args, err := resumeArgs(d, where, nil) // in-process: no argument limit
		if err != nil {
			return "", err
		}
		var out, errb bytes.Buffer
		app := newApp(strings.NewReader(""), &out, &errb)
		err = app.RunContext(ctx, args)
		// The summary: the last line -q prints (a banner may come first).
		msg := strings.TrimSpace(out.String())
		msg = msg[strings.LastIndexByte(msg, '\n')+1:]
		if err == nil {
			return msg, nil
		}
		var locked *runstore.LockedError
		switch code := exitCode(err); {
		case code == exitPaused: // answered; the run paused again further on
			return cmp.Or(err.Error(), msg), nil
		case code == exitUsage, errors.As(err, &locked):
			return "", &ui.Refusal{Msg: err.Error()}
		}
		return "", fmt.Errorf("the run stopped: %w", err)
	}
}

// uiCheck decodes and validates a spec as lppctl validate --root does.
func uiCheck(root string) func(string, []byte) (*mspec.Spec, mspec.Diagnostics) {
	return func(path string, src []byte) (*mspec.Spec, mspec.Diagnostics) {
		reg, err := buildRegistry(agentConfig{Root: root}, nil)
		if err != nil {
			return mspec.Parse(path, src)
		}
		if lpp.ReadAsBlueprint(path, src) { // as lppctl validate reads it: translated, its diagnostics in the JSON
			f, diags, err := validateSpecFile(path, src, reg, actions.CheckOptions{Root: root}, validate.WithRoot(root))
			if err != nil {
				return nil, mspec.Diagnostics{{Severity: mspec.SevError, File: path, Msg: err.Error()}}
			}
			return f.Spec, diags
		}
		spec, diags := validate.Check(path, src, reg, validate.WithRoot(root))
		if spec != nil {
			diags = append(diags, actions.CheckSpec(spec, reg, actions.CheckOptions{Root: root})...)
			diags.Sort()
		}
		return spec, diags
	}
}

// uiCompile compiles a spec for the Spec page's model check against the
// registry uiCheck validated it with, as lppctl check does.
func uiCompile(root string) func(*mspec.Spec) (*machine.Machine, error) {
	return func(spec *mspec.Spec) (*machine.Machine, error) {
		reg, err := buildRegistry(agentConfig{Root: root}, nil)
		if err != nil {
			return nil, err
		}
		return machine.Compile(spec, reg)
	}
}

// uiTemporalFlags are the flags of temporalFlags that lppctl ui takes: the
// server and its namespace (no task queue: the UI serves no workflow).
func uiTemporalFlags() []cli.Flag {
	var out []cli.Flag
	for _, f := range temporalFlags() {
		if f.Names()[0] != "task-queue" {
			out = append(out, f)
		}
	}
	return out
}
