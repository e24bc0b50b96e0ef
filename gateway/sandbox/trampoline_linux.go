package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"syscall"
	"unsafe"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// init turns a process started by Command into the trampoline: it never
// returns to the program that imported this package.
func init() {
	if len(os.Args) < 3 || os.Args[0] != trampolineName {
		return
	}
	if err := trampoline(os.Args[1], os.Args[2], os.Args[3:]); err != nil {
		fmt.Fprintf(os.Stderr, "[SANDBOX] cannot confine the program: %v\n", err)
		os.Exit(126)
	}
	panic("unreachable: the trampoline executes the program or exits")
}

// trampoline applies the plan to this process and executes path.
func trampoline(planJSON, path string, args []string) error {
	runtime.LockOSThread() // seccomp is per thread: install it on the one that executes
	var p plan
	if err := json.Unmarshal([]byte(planJSON), &p); err != nil {
		return fmt.Errorf("bad plan: %w", err)
	}
	for _, l := range []struct {
		res int
		val uint64
	}{
		{syscall.RLIMIT_CPU, p.CPU},
		{syscall.RLIMIT_FSIZE, p.FileSize},
		{rlimitNPROC, p.Procs},
		{syscall.RLIMIT_CORE, 0},
	} {
		if err := syscall.Setrlimit(l.res, &syscall.Rlimit{Cur: l.val, Max: l.val}); err != nil {
			return fmt.Errorf("setrlimit %d: %w", l.res, err)
		}
	}
	// Go raised the soft limit of open files to the hard one; the program
	// gets the usual 1024 (syscall.Exec would restore the soft limit, but
	// the last step executes the program by a raw system call).
	var nofile syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &nofile); err != nil {
		return fmt.Errorf("getrlimit NOFILE: %w", err)
	}
	nofile.Cur = min(nofile.Max, maxOpenFiles)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &nofile); err != nil {
		return fmt.Errorf("setrlimit NOFILE: %w", err)
	}
	abi, err := llsyscall.LandlockGetABIVersion()
	if err != nil || abi < minABI {
		return fmt.Errorf("the kernel has Landlock ABI %d (needs %d): %v", abi, minABI, err)
	}
	rules := []landlock.Rule{
		landlock.RWDirs(p.Dir),
		landlock.RWFiles("/dev/null").IgnoreIfMissing(),
	}
	if len(p.ReadDirs) > 0 {
		rules = append(rules, landlock.RODirs(p.ReadDirs...).IgnoreIfMissing())
	}
	if len(p.ReadFiles) > 0 {
		rules = append(rules, landlock.ROFiles(p.ReadFiles...).IgnoreIfMissing())
	}
	// No network rule: every TCP bind and connect is refused (and the
	// process has a network namespace of its own, with no interfaces up).
	// Enforced on this thread only (it is locked, and it executes the
	// program): the all-threads way reads /proc/PID/task, which in a new
	// PID namespace names another process.
	fd, flags, err := landlock.V7.BestEffort().NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	if fd < 0 {
		return fmt.Errorf("landlock: nothing to enforce")
	}
	defer syscall.Close(fd)
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, prNoNewPrivs, 1, 0, 0, 0, 0); e != 0 {
		return fmt.Errorf("no_new_privs: %w", e)
	}
	if err := llsyscall.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	if err := installSeccomp(); err != nil {
		return fmt.Errorf("seccomp: %w", err)
	}
	return limitAndExec(p, path, args)
}

// limitAndExec sets the address-space limit and executes path, or (probe)
// exits 0. The limit is set last, by a raw system call that execve follows
// at once: from the moment it holds, this Go runtime cannot map any more
// memory, and an allocation that needs a fresh span, a new thread or the
// race detector's next trace part kills the trampoline ("fatal error:
// runtime: out of memory", exit 2) instead of starting the program. So
// everything execve needs is allocated first, no garbage collection runs
// (it allocates work buffers), only this goroutine may run, and the last
// step calls nothing that allocates.
func limitAndExec(p plan, path string, args []string) error {
	if !p.Probe {
		if err := syscall.Access(path, 1 /* X_OK */); err != nil {
			return fmt.Errorf("cannot execute %s: %w", path, err)
		}
	}
	argv0, err := syscall.BytePtrFromString(path)
	if err != nil {
		return err
	}
	argv, err := syscall.SlicePtrFromStrings(append([]string{path}, args...))
	if err != nil {
		return err
	}
	envv, err := syscall.SlicePtrFromStrings(os.Environ())
	if err != nil {
		return err
	}
	final := finalStep{
		limit: syscall.Rlimit{Cur: p.Memory, Max: p.Memory},
		path:  argv0, argv: &argv[0], envv: &envv[0],
		probe: p.Probe,
		msg:   []byte("[SANDBOX] cannot confine the program: cannot execute " + path + " under the address-space limit: errno "),
	}
	runtime.GOMAXPROCS(1)  // no other goroutine runs (and allocates) while this one holds the only P
	debug.SetGCPercent(-1) // waits for a running collection to end, and starts none
	runtime.Gosched()      // a fresh time slice: no preemption request is due
	final.run()            // returns only when the address-space limit cannot be set
	return fmt.Errorf("setrlimit AS: %w", final.errno)
}

// finalStep is what the trampoline's last instructions need, prepared
// while it may still allocate.
type finalStep struct {
	limit      syscall.Rlimit
	path       *byte
	argv, envv **byte
	probe      bool
	msg        []byte // written, with the errno, when execve fails
	errno      syscall.Errno
}

// run sets the address-space limit, then executes the program (or, for a
// probe, exits 0). It allocates nothing and is not preemptible (nosplit): when
// execve fails it writes msg and the errno and exits 126 itself, since
// nothing that may allocate can run once the limit holds. It returns only
// when the limit could not be set (then nothing has changed).
//
//go:nosplit
//go:norace
func (f *finalStep) run() {
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, 0, syscall.RLIMIT_AS, uintptr(unsafe.Pointer(&f.limit)), 0, 0, 0); e != 0 {
		f.errno = e
		return
	}
	if f.probe {
		syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 0, 0, 0)
	}
	_, _, e := syscall.RawSyscall(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(f.path)), uintptr(unsafe.Pointer(f.argv)), uintptr(unsafe.Pointer(f.envv)))
	var digits [20]byte
	i := len(digits) - 1
	digits[i] = '\n'
	for n := uint64(e); ; n /= 10 {
		i--
		digits[i] = byte('0' + n%10)
		if n < 10 {
			break
		}
	}
	syscall.RawSyscall(syscall.SYS_WRITE, 2, uintptr(unsafe.Pointer(&f.msg[0])), uintptr(len(f.msg)))
	syscall.RawSyscall(syscall.SYS_WRITE, 2, uintptr(unsafe.Pointer(&digits[i])), uintptr(len(digits)-i))
	syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 126, 0, 0)
}

// maxOpenFiles is the soft limit of open files of the confined program.
const maxOpenFiles = 1024

// rlimitNPROC is RLIMIT_NPROC (not in package syscall).
const rlimitNPROC = 6

// sockFilter and sockFprog are the kernel's struct sock_filter and sock_fprog.
type sockFilter struct {
	code   uint16
	jt, jf uint8
	k      uint32
}

type sockFprog struct {
	len    uint16
	filter *sockFilter
}

// BPF and seccomp constants.
const (
	bpfLdWAbs    = 0x20
	bpfJeqK      = 0x15
	bpfJgeK      = 0x35
	bpfJsetK     = 0x45
	bpfRetK      = 0x06
	retAllow     = 0x7fff0000
	retErrno     = 0x00050000
	cloneThread  = 0x00010000
	prSetSeccomp = 22
	modeFilter   = 2
	prNoNewPrivs = 38
)

// installSeccomp refuses new processes (fork, vfork, clone without
// CLONE_THREAD; clone3 says ENOSYS so libc falls back to clone) on this
// thread and what it executes. Threads stay allowed. (RLIMIT_NPROC alone
// does not bind a process whose user is root, not even in a namespace.)
func installSeccomp() error {
	f := seccompFilter
	if f == nil {
		return fmt.Errorf("no filter for %s", runtime.GOARCH)
	}
	prog := sockFprog{len: uint16(len(f)), filter: &f[0]}
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, prNoNewPrivs, 1, 0, 0, 0, 0); e != 0 {
		return e
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetSeccomp, modeFilter, uintptr(unsafe.Pointer(&prog))); e != 0 {
		return e
	}
	return nil
}

// buildFilter returns the filter for one architecture; fork and vfork are
// -1 where the architecture has no such system call.
func buildFilter(arch uint32, fork, vfork, clone, clone3 int32, x32 bool) []sockFilter {
	const eperm, enosys = 1, 38
	// Instructions, with jumps to the three returns at the end.
	var f []sockFilter
	// Jump targets are filled in below, relative to each instruction.
	type jmp struct {
		at     int
		jt, jf string
	}
	var jumps []jmp
	add := func(code uint16, k uint32, jt, jf string) {
		if jt != "" || jf != "" {
			jumps = append(jumps, jmp{len(f), jt, jf})
		}
		f = append(f, sockFilter{code: code, k: k})
	}
	add(bpfLdWAbs, 4, "", "")      // arch
	add(bpfJeqK, arch, "", "deny") // another ABI (i386 on amd64): refuse everything
	add(bpfLdWAbs, 0, "", "")      // syscall number
	if x32 {
		add(bpfJgeK, 0x40000000, "deny", "") // the x32 ABI
	}
	if fork >= 0 {
		add(bpfJeqK, uint32(fork), "deny", "")
	}
	if vfork >= 0 {
		add(bpfJeqK, uint32(vfork), "deny", "")
	}
	add(bpfJeqK, uint32(clone3), "enosys", "")
	add(bpfJeqK, uint32(clone), "", "allow")
	add(bpfLdWAbs, 16, "", "")                  // clone's flags (low 32 bits of args[0])
	add(bpfJsetK, cloneThread, "allow", "deny") // a thread is fine, a process is not
	labels := map[string]int{}
	labels["allow"] = len(f)
	f = append(f, sockFilter{code: bpfRetK, k: retAllow})
	labels["deny"] = len(f)
	f = append(f, sockFilter{code: bpfRetK, k: retErrno | eperm})
	labels["enosys"] = len(f)
	f = append(f, sockFilter{code: bpfRetK, k: retErrno | enosys})
	for _, j := range jumps {
		if j.jt != "" {
			f[j.at].jt = uint8(labels[j.jt] - j.at - 1)
		}
		if j.jf != "" {
			f[j.at].jf = uint8(labels[j.jf] - j.at - 1)
		}
	}
	return f
}
