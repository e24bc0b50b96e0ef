// Package sandbox runs a program that lppctl does not trust (Python the
// model wrote) confined by the operating system: it may write only inside
// one folder, read only that folder, the paths its caller names and the
// interpreter's own files, open no network connection, see none of
// lppctl's environment, and use bounded memory, CPU time, file size, open
// files and processes. It dies with lppctl.
//
// On Linux it needs Landlock (ABI 4 or later: files and TCP) and user
// namespaces (the process gets its own user, PID and network namespaces).
// Available says whether this kernel has them. Elsewhere nothing runs.
//
//	if err := sandbox.Available(); err != nil { refuse, saying err }
//	cmd, err := sandbox.Command(ctx, sandbox.Options{Dir: dir, Read: []string{skillDir}, Env: env}, python, "./x.py")
//	cmd.Stdin, cmd.Stdout, cmd.Stderr = ...
//	err = cmd.Run()
//
// A binary that uses Command must let the package's init run (importing
// it is enough): Command starts the running executable again as a small
// trampoline that applies the limits and then executes the program.
package sandbox

import (
	"context"
	"errors"
	"os/exec"
	"time"
)

// Defaults of Options.
const (
	DefaultMemory   = 1 << 30          // address space, bytes
	DefaultCPU      = 60 * time.Second // CPU time
	DefaultFileSize = 64 << 20         // largest file written, bytes
	DefaultProcs    = 32               // processes and threads inside the sandbox
)

// Options say what the confined program may do.
type Options struct {
	// Dir is the only folder the program may write (and it may read it);
	// HOME and TMPDIR are set inside it. Required.
	Dir string
	// Read lists more files and folders it may read (and execute), e.g.
	// the folder of the script it runs. The interpreter's installation and
	// the system's libraries are added by Command.
	Read []string
	// Env is the program's whole environment: pass only what it needs (no
	// keys). HOME and TMPDIR are overridden.
	Env []string
	// Memory, CPU, FileSize and Procs bound the address space, the CPU
	// time, the size of any file written and the number of processes; 0
	// means the default.
	Memory   uint64
	CPU      time.Duration
	FileSize uint64
	Procs    uint64
}

// ErrUnavailable is wrapped by Available's and Command's errors when the
// kernel cannot confine a program.
var ErrUnavailable = errors.New("the OS sandbox is not available")

// Available reports nil when this system can confine a program as Command
// does, else an error wrapping ErrUnavailable that says what is missing.
// The answer is computed once per process.
func Available() error { return available() }

// Command returns a command that runs path with args under o's limits. The
// caller sets Stdin, Stdout, Stderr and Dir (a folder the program may
// read), and may set Cancel and WaitDelay; Command sets SysProcAttr (its
// own process group, killed when lppctl dies) and Env. Kill the whole
// sandbox with KillGroup.
func Command(ctx context.Context, o Options, path string, args ...string) (*exec.Cmd, error) {
	return command(ctx, o, path, args)
}

func (o Options) withDefaults() Options {
	if o.Memory == 0 {
		o.Memory = DefaultMemory
	}
	if o.CPU == 0 {
		o.CPU = DefaultCPU
	}
	if o.FileSize == 0 {
		o.FileSize = DefaultFileSize
	}
	if o.Procs == 0 {
		o.Procs = DefaultProcs
	}
	return o
}
