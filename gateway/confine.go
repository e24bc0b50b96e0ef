package gateway

import (
	"fmt"
	"io/fs"
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
	o.Read = []string{g.rootPath + "/" + g.sandboxReadDir(script)}
	return o, func() { os.RemoveAll(dir) }, nil
}

// sandboxReadDir is the project folder a confined script may read besides
// its own fresh one: its skill folder, else the script's folder.
func (g *Gateway) sandboxReadDir(script string) string {
	if sd := g.skillDir(script); sd != "" {
		return sd
	}
	return path.Dir(script)
}

// maxSandboxReadScan is how many entries of the folder a confined script
// may read are looked at for hidden paths; a larger folder is refused.
var maxSandboxReadScan = 10000 // a variable for tests

// checkSandboxReadable refuses a confined run whose readable folder holds
// a hidden path (a .env a person put beside a generated skill, a key) or a
// file with another name the checks cannot clear (hard links): the OS
// sandbox grants the whole folder, so the model's code could print it.
func (g *Gateway) checkSandboxReadable(script string) *refusal {
	dir := g.sandboxReadDir(script)
	why := fmt.Sprintf("%s runs in the OS sandbox, which lets it read the folder %s", script, dir)
	seen := 0
	var found *refusal
	var linked []fs.FileInfo // files with several names: their names are looked for in one walk
	var linkedAt []string
	_ = fs.WalkDir(g.root.FS(), dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: the sandboxed script cannot read it either
		}
		if seen++; seen > maxSandboxReadScan {
			found = refuse(ruleHidden, "%s, which holds more than %d entries, too many to check for hidden paths; hidden paths are never shown to the model: make the folder smaller", why, maxSandboxReadScan)
			return fs.SkipAll
		}
		if pat := g.policy.hiddenBy(p); pat != "" {
			found = refuse(ruleHidden, "%s, and it holds %s, which matches the hidden path pattern %q (hidden_paths in the policy); hidden paths are never shown to the model: move it out of %s", why, quote(p), pat, dir)
			return fs.SkipAll
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if fi, err := d.Info(); err == nil && linkCount(fi) > 1 {
			linked, linkedAt = append(linked, fi), append(linkedAt, p)
		}
		return nil
	})
	if found != nil || len(linked) == 0 {
		return found
	}
	names, complete := g.namesOfAll(linked)
	for i, fi := range linked {
		if r := g.hardLinkRefusal(why+", and its file", linkedAt[i], linkCount(fi), names[i], complete[i]); r != nil {
			return r
		}
	}
	return nil
}

// confinedEnv is env without the variables inherit_for gives a skill (its
// endpoint and token): confined code has no network to use them on.
//
// With walled (the sandbox of safe_py_runner.sandbox, not the writable root
// of WithConfinedScripts), it adds LPPCTL_SANDBOX=MODE, with which the
// project's scripts (_lpp_common.main_guard) say that a refused read or
// write is the sandbox's, and which setting confines them.
func (g *Gateway) confinedEnv(env []string, walled bool) []string {
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
	if walled {
		out = append(out, "LPPCTL_SANDBOX="+g.policy.Runner.Sandbox)
	}
	return out
}

// sandboxAvailable is osbox.Available (a variable for tests).
var sandboxAvailable = osbox.Available
