//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// openPTY opens a pseudo-terminal: the master (the person's side) and the
// slave (lppctl's terminal).
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatalf("cannot unlock the pty: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatalf("cannot name the pty: %v", e)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

// terminalRun is lppctl running on a pseudo-terminal of its own (a new
// session whose controlling terminal it is, as in a shell).
type terminalRun struct {
	cmd    *exec.Cmd
	master *os.File
	mu     sync.Mutex
	screen strings.Builder
	done   chan struct{}
}

func startOnTerminal(t *testing.T, bin, root string, args ...string) *terminalRun {
	t.Helper()
	master, slave := openPTY(t)
	tr := &terminalRun{cmd: exec.Command(bin, args...), master: master, done: make(chan struct{})}
	tr.cmd.Dir, tr.cmd.Env = root, childEnv("")
	tr.cmd.Stdin, tr.cmd.Stdout, tr.cmd.Stderr = slave, slave, slave
	tr.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := tr.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	go func() {
		defer close(tr.done)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			tr.mu.Lock()
			tr.screen.Write(buf[:n])
			tr.mu.Unlock()
			if err != nil {
				return // EIO once lppctl has exited
			}
		}
	}()
	t.Cleanup(func() { _ = tr.cmd.Process.Kill(); _ = tr.cmd.Wait() })
	return tr
}

func (tr *terminalRun) text() string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.screen.String()
}

func (tr *terminalRun) waitFor(t *testing.T, s string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if strings.Contains(tr.text(), s) {
			return
		}
	}
	t.Fatalf("%q never showed on the terminal:\n%s", s, tr.text())
}

// exit waits for lppctl to end, at most 30 s (it used to wait for ever).
func (tr *terminalRun) exit(t *testing.T) int {
	t.Helper()
	waited := make(chan error, 1)
	go func() { waited <- tr.cmd.Wait() }()
	select {
	case <-waited:
	case <-time.After(30 * time.Second):
		_ = tr.cmd.Process.Kill()
		t.Fatalf("lppctl still waits at the prompt after Ctrl-C:\n%s", tr.text())
	}
	<-tr.done
	return tr.cmd.ProcessState.ExitCode()
}

// TestCtrlCAtAPromptOnATerminal: ^C typed on a real terminal (the line
// discipline sends SIGINT), or a SIGINT sent to lppctl, while it asks a
// person stops the run cleanly: exit 130, the run interrupted in the state
// that asked, and a resume finishes it.
func TestCtrlCAtAPromptOnATerminal(t *testing.T) {
	bin := buildLppctl(t)
	for _, tc := range []struct {
		name, prompt, state string
		args                []string
		ctrlC               func(tr *terminalRun) error
	}{
		{"^C at the plan approval", "Approve this plan?", "approve_plan", nil,
			func(tr *terminalRun) error { _, err := tr.master.Write([]byte{3}); return err }},
		{"SIGINT at the final feedback", "Feedback on this run", "human_feedback", []string{"--yes"},
			func(tr *terminalRun) error { return tr.cmd.Process.Signal(os.Interrupt) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := newProject(t, "hello_skill")
			tr := startOnTerminal(t, bin, root, append([]string{"run", "--spec", "specs/skills_agent.yaml", "--skill", "skills/hello_skill"}, tc.args...)...)
			tr.waitFor(t, tc.prompt)
			if err := tc.ctrlC(tr); err != nil {
				t.Fatal(err)
			}
			if code := tr.exit(t); code != exitInterrupted {
				t.Fatalf("exit %d, want %d:\n%s", code, exitInterrupted, tr.text())
			}
			id := runIDIn(t, root)
			want := regexp.MustCompile(`interrupted in ` + tc.state + ` after \d+ steps?; continue with: lppctl resume ` + id + `\r?\n`)
			if !want.MatchString(tr.text()) {
				t.Errorf("the terminal does not say %s:\n%s", want, tr.text())
			}
			if r := runChild(t, bin, root, "", "runs"); !regexp.MustCompile(id + ` +interrupted `).MatchString(r.out) {
				t.Errorf("runs does not list the run as interrupted:\n%s", r.out)
			}
			r := runChild(t, bin, root, "", "resume", "-q", id) // no terminal now: a question pauses the run
			if tc.state == "approve_plan" {
				if r.code != exitPaused {
					t.Fatalf("resume: exit %d, want %d (asks for the approval again)\n%s", r.code, exitPaused, r.out)
				}
				r = runChild(t, bin, root, "", "resume", "-q", id, "--approve")
			}
			if r.code != exitOK || !strings.Contains(r.out, "completed in done after 28 steps") {
				t.Errorf("resume: exit %d\n%s", r.code, r.out)
			}
		})
	}
}
