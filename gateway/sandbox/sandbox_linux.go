package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"

	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"

	"github.com/lppctl/lppctl/internal/envname"
)

// trampolineName is argv[0] of the running executable started again as
// the sandbox's trampoline (see init in trampoline_linux.go).
const trampolineName = "lppctl-sandbox-trampoline"

// minABI is the oldest Landlock ABI the sandbox accepts: 4 restricts TCP
// bind and connect as well as files (Linux 6.7).
const minABI = 4

// systemRead are the system folders and files every program may read:
// the dynamic loader's libraries and its cache, time zones, randomness.
var systemRead = []string{
	"/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin",
	"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
	"/dev/urandom", "/dev/random",
}

// plan is what the trampoline applies before it executes the program.
type plan struct {
	Dir       string   `json:"dir"`
	ReadDirs  []string `json:"read_dirs"`
	ReadFiles []string `json:"read_files"`
	Memory    uint64   `json:"memory"`
	CPU       uint64   `json:"cpu"` // seconds
	FileSize  uint64   `json:"file_size"`
	Procs     uint64   `json:"procs"`
	Probe     bool     `json:"probe,omitempty"` // apply everything, then exit 0
}

var (
	availOnce sync.Once
	availErr  error
)

func available() error {
	availOnce.Do(func() { availErr = probe() })
	return availErr
}

// probe checks Landlock's ABI, then starts the trampoline once in probe
// mode: namespaces, rlimits, Landlock and seccomp applied for real.
func probe() error {
	if seccompFilter == nil {
		return fmt.Errorf("%w: no seccomp filter for this architecture", ErrUnavailable)
	}
	abi, err := llsyscall.LandlockGetABIVersion()
	if err != nil {
		return fmt.Errorf("%w: Landlock is not enabled in this kernel (%v); it needs Linux 6.7 or later with landlock in the lsm= boot parameter", ErrUnavailable, err)
	}
	if abi < minABI {
		return fmt.Errorf("%w: the kernel's Landlock ABI is %d; it needs %d or later (Linux 6.7) to refuse network connections", ErrUnavailable, abi, minABI)
	}
	dir, err := os.MkdirTemp("", "lppctl-sandbox-probe-")
	if err != nil {
		return fmt.Errorf("%w: cannot create a probe folder: %v", ErrUnavailable, err)
	}
	defer os.RemoveAll(dir)
	cmd, err := start(context.Background(), plan{Dir: dir, Memory: DefaultMemory, CPU: 5, FileSize: DefaultFileSize, Procs: DefaultProcs, Probe: true}, nil, "/bin/true", nil)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: the probe failed: %v %s (user namespaces may be disabled: see /proc/sys/user/max_user_namespaces)", ErrUnavailable, err, strings.TrimSpace(string(out)))
	}
	return nil
}

func command(ctx context.Context, o Options, path string, args []string) (*exec.Cmd, error) {
	if err := available(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	if o.Dir == "" {
		return nil, errors.New("cannot sandbox: no folder given")
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, fmt.Errorf("cannot sandbox: %w", err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("cannot sandbox: %s is not a folder", dir)
	}
	p := plan{Dir: dir, Memory: o.Memory, CPU: uint64((o.CPU + 999_999_999) / 1e9), FileSize: o.FileSize, Procs: o.Procs}
	reads := append(append([]string(nil), o.Read...), interpreterDirs(path)...)
	reads = append(reads, systemRead...)
	seen := map[string]bool{}
	for _, r := range reads {
		a, err := filepath.Abs(r)
		if err != nil || seen[a] {
			continue
		}
		seen[a] = true
		fi, err := os.Stat(a)
		switch {
		case err != nil:
		case fi.IsDir():
			p.ReadDirs = append(p.ReadDirs, a)
		default:
			p.ReadFiles = append(p.ReadFiles, a)
		}
	}
	sort.Strings(p.ReadDirs)
	sort.Strings(p.ReadFiles)
	return start(ctx, p, o.Env, path, args)
}

// interpreterDirs returns the installation a program lives in: for
// PREFIX/bin/python3 (and the file it links to), PREFIX; else its folder.
func interpreterDirs(path string) []string {
	var out []string
	for _, p := range []string{path, evalSymlinks(path)} {
		if p == "" || !filepath.IsAbs(p) {
			continue
		}
		d := filepath.Dir(p)
		if filepath.Base(d) == "bin" {
			d = filepath.Dir(d)
		}
		out = append(out, d)
	}
	return out
}

func evalSymlinks(p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	return r
}

// start builds the command that runs the trampoline with the plan.
func start(ctx context.Context, p plan, env []string, path string, args []string) (*exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot find lppctl's own executable to start the sandbox: %w", err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, self)
	cmd.Args = append([]string{trampolineName, string(b), path}, args...)
	cmd.Env = scrubEnv(env, p.Dir)
	cmd.Dir = p.Dir
	uid, gid := os.Getuid(), os.Getgid()
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid:     true,
		Pdeathsig:   syscall.SIGKILL,
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID | syscall.CLONE_NEWNET | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
	}
	cmd.Cancel = func() error { return KillGroup(cmd) }
	return cmd, nil
}

// scrubEnv is env with HOME and TMPDIR inside dir, and without anything
// named like a credential or a provider's setting, or whose value holds a
// password (DATABASE_URL=postgres://u:pw@h/db): a caller's mistake must not
// hand a key to model-written code.
func scrubEnv(env []string, dir string) []string {
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if k == "HOME" || k == "TMPDIR" || k == "TMP" || k == "TEMP" || envname.Credential(k) || envname.Provider(k) || envname.CredentialValue(v) != "" {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "HOME="+dir, "TMPDIR="+dir)
}

// KillGroup kills the sandboxed program and every process it started.
func KillGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err == syscall.ESRCH {
		return nil
	}
	return err
}
