package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
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
	os.Exit(0) // probe
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
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: p.Memory, Max: p.Memory}); err != nil {
		return fmt.Errorf("setrlimit AS: %w", err)
	}
	if p.Probe {
		return nil
	}
	return syscall.Exec(path, append([]string{path}, args...), os.Environ())
}

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
