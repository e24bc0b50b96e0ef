package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// Process is an lppctl command that the UI started as its own process
// (Launch): a run, a resume, a cancel. It outlives the UI: stopping or
// restarting lppctl ui touches no run.
type Process struct {
	Pid    int
	done   chan struct{}
	code   int
	stdout string
	stderr string

	mu  sync.Mutex
	out *os.File // its output while it runs (nil once read back)
}

// Launch starts exe (lppctl) with args in dir as its own process: in a
// session of its own (so the UI's Ctrl-C or end does not reach it), with no
// input, its output in temporary files read back when it ends.
func Launch(exe, dir string, args []string) (*Process, error) {
	if exe == "" {
		return nil, errors.New("cannot start lppctl: the UI does not know where its binary is")
	}
	out, err := os.CreateTemp("", "lppctl-ui-*.out")
	if err != nil {
		return nil, fmt.Errorf("cannot start lppctl: %w", err)
	}
	errf, err := os.CreateTemp("", "lppctl-ui-*.err")
	if err != nil {
		out.Close()
		os.Remove(out.Name())
		return nil, fmt.Errorf("cannot start lppctl: %w", err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, out, errf
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	detach(cmd)
	if err := cmd.Start(); err != nil {
		for _, f := range []*os.File{out, errf} {
			f.Close()
			os.Remove(f.Name())
		}
		return nil, fmt.Errorf("cannot start lppctl: %w", err)
	}
	// The files need no name once the process has them: nothing is left
	// behind however the UI ends.
	os.Remove(out.Name())
	os.Remove(errf.Name())
	p := &Process{Pid: cmd.Process.Pid, done: make(chan struct{}), out: out}
	go func() {
		err := cmd.Wait()
		p.code = 0
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			p.code = ee.ExitCode()
		case err != nil:
			p.code = -1
		}
		read := func(f *os.File) string {
			defer f.Close()
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return ""
			}
			b, _ := io.ReadAll(io.LimitReader(f, 1<<20))
			return string(b)
		}
		p.mu.Lock()
		p.stdout, p.stderr = read(out), read(errf)
		p.out = nil
		p.mu.Unlock()
		close(p.done)
	}()
	return p, nil
}

// FirstLine is the first line the process printed, once it printed it
// whole ("" before): read while it runs (lppctl run --deltas names its run
// on its first line, before its first step).
func (p *Process) FirstLine() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.stdout
	if p.out != nil {
		b := make([]byte, 4096)
		n, _ := p.out.ReadAt(b, 0)
		out = string(b[:n])
	}
	line, _, whole := strings.Cut(out, "\n")
	if !whole {
		return ""
	}
	return line
}

// Wait waits for the process to end, or ctx; it tells whether it ended.
func (p *Process) Wait(ctx context.Context) bool {
	select {
	case <-p.done:
		return true
	case <-ctx.Done():
		return false
	}
}

// Done is closed when the process has ended.
func (p *Process) Done() <-chan struct{} { return p.done }

// Result is the exit code and output of an ended process.
func (p *Process) Result() (code int, stdout, stderr string) {
	<-p.done
	return p.code, p.stdout, p.stderr
}

// Message is what an ended process said last: its last "lppctl: " error
// line, else its last line of output.
func (p *Process) Message() string {
	code, out, errs := p.Result()
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if msg, ok := strings.CutPrefix(lines[i], "lppctl: "); ok && code != 0 {
			return strings.Join(append([]string{msg}, lines[i+1:]...), "\n")
		}
	}
	if s := strings.TrimSpace(out); s != "" {
		return s[strings.LastIndexByte(s, '\n')+1:]
	}
	return strings.TrimSpace(errs)
}
