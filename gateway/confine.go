package gateway

import (
	"os"
	"path"
	"strings"

	osbox "github.com/lppctl/lppctl/gateway/sandbox"
)

// Values of safe_py_runner.sandbox: which scripts run in the OS sandbox
// (package sandbox: no file outside its folder, no network, no new
// processes, bounded memory and file sizes, no lppctl environment).
const (
	SandboxGenerated = "generated" // scripts of generated skills (the default)
	SandboxAll       = "all"       // every script
	SandboxOff       = "off"       // none
)

// GeneratedMarker is the file that marks a skill folder as model-written
// (lppctl skills install writes it): with safe_py_runner.sandbox
// "generated", its scripts run in the OS sandbox.
const GeneratedMarker = ".lppctl-generated"

// ruleSandboxUnavailable refuses model-written code where the kernel cannot
// confine it.
const ruleSandboxUnavailable = "sandbox-unavailable"

// confinement is what WithConfinedScripts and WithUnconfined set.
type confinement struct {
	all        bool // every script runs confined, the root is its folder
	unconfined bool // where the sandbox is unavailable, run unconfined instead of refusing
}

// WithConfinedScripts runs every script in the OS sandbox, allowed to write
// the whole root (a throw-away copy: spec.sandbox's dry runs), whatever the
// policy's safe_py_runner.sandbox says.
func WithConfinedScripts() Option { return func(o *options) { o.confine.all = true } }

// WithUnconfined is the person's opt-out (lppctl --unconfined): where the
// kernel cannot confine a script that should be, it runs unconfined
// instead of being refused.
func WithUnconfined() Option { return func(o *options) { o.confine.unconfined = true } }

// confined reports whether script (root-relative) must run in the sandbox.
func (g *Gateway) confined(script string) bool {
	if g.confine.all {
		return true
	}
	switch g.policy.Runner.Sandbox {
	case SandboxAll:
		return true
	case SandboxOff:
		return false
	}
	dir := g.skillDir(script)
	if dir == "" {
		return false
	}
	_, err := g.root.Lstat(path.Join(dir, GeneratedMarker))
	return err == nil
}

// skillDir is the skill folder (skills/NAME) a script lies in, or "".
func (g *Gateway) skillDir(script string) string {
	parts := strings.Split(script, "/")
	if len(parts) < 3 || parts[0] != "skills" {
		return ""
	}
	return parts[0] + "/" + parts[1]
}

// sandboxOptions returns the sandbox of a confined run of script, and a
// cleanup: the root itself for WithConfinedScripts (a throw-away copy),
// else a fresh folder, with the script's skill folder readable.
func (g *Gateway) sandboxOptions(script string, env []string) (osbox.Options, func(), error) {
	o := osbox.Options{Env: env, CPU: g.policy.Runner.Timeout}
	if g.confine.all {
		o.Dir = g.rootPath
		return o, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "lppctl-script-")
	if err != nil {
		return o, nil, err
	}
	o.Dir = dir
	read := path.Dir(script)
	if sd := g.skillDir(script); sd != "" {
		read = sd
	}
	o.Read = []string{g.rootPath + "/" + read}
	return o, func() { os.RemoveAll(dir) }, nil
}

// confinedEnv is env without the variables inherit_for gives a skill (its
// endpoint and token): confined code has no network to use them on.
func (g *Gateway) confinedEnv(env []string) []string {
	drop := map[string]bool{}
	for _, keys := range g.policy.Runner.Env.InheritFor {
		for _, k := range keys {
			drop[k] = true
		}
	}
	out := env[:0:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !drop[k] {
			out = append(out, kv)
		}
	}
	return out
}

// sandboxAvailable is osbox.Available (a variable for tests).
var sandboxAvailable = osbox.Available
