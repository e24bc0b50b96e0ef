package actions

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/lppctl/lppctl/gateway"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// Files a spec names (prompt templates, schemas, child specs) are read by
// lppctl, not by a tool, and what they hold goes to the model: a prompt is
// sent, a parse error quotes it. So they may not be files the gateway hides
// from the model (hidden_paths: .env files, private keys, the run
// directory...), or a spec, possibly one a model wrote, would read what a
// read_file call is refused. The policy is the run's (policy, else the
// root's config/tools_config.yaml); where none can be loaded, the default
// hidden_paths.

// hiddenIn returns the hidden_paths pattern of p (nil: the defaults) that
// hides the file at path, relative to root as found or with the links of
// both resolved, or "" when none does.
func hiddenIn(p *gateway.Policy, path, root string) string {
	if root == "" {
		root = "."
	}
	absRoot, err1 := filepath.Abs(root)
	abs, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return ""
	}
	if h := hiddenBelow(p, absRoot, abs); h != "" {
		return h
	}
	realRoot, err1 := filepath.EvalSymlinks(absRoot)
	real, err2 := filepath.EvalSymlinks(abs)
	if err1 != nil || err2 != nil {
		return ""
	}
	return hiddenBelow(p, realRoot, real)
}

// hiddenBelow is the pattern of p hiding abs, relative to root ("" when
// none does, or abs is not below root).
func hiddenBelow(p *gateway.Policy, root, abs string) string {
	if rel, err := filepath.Rel(root, abs); err == nil && filepath.IsLocal(rel) {
		return gateway.HiddenBy(p, rel)
	}
	return ""
}

// errHiddenFile is wrapped by the errors of files a spec names that the
// policy hides.
var errHiddenFile = errors.New("is hidden from the model")

// hiddenFileError is the error of a file a spec names that the policy hides.
func hiddenFileError(name, pattern string) error {
	return fmt.Errorf("file %q %w: it matches the hidden path pattern %q (hidden_paths in the gateway policy), and a file a spec names is sent to the model", name, errHiddenFile, pattern)
}

// hideHint is the fix of a hidden file a spec names.
const hideHint = "a spec may not name .env files, keys or the run directory: name a file the model may read"

// readNamed reads the file a spec names (found by LocateFile from name)
// as mspec.ReadNamedFile does, refusing one that p (nil: the defaults)
// hides.
func readNamed(p *gateway.Policy, name, found, specDir, root string) ([]byte, error) {
	if h := hiddenIn(p, found, root); h != "" {
		return nil, hiddenFileError(name, h)
	}
	return mspec.ReadNamedFile(found, specDir, root)
}

// hidePolicy is the policy whose hidden_paths the files the run's spec names
// are checked against: the gateway's, else the run's policy file, else nil
// (the defaults) when none can be loaded. Loaded once.
func (d *Deps) hidePolicy() *gateway.Policy {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case d.Gateway != nil:
		return d.Gateway.Policy()
	case d.gw != nil:
		return d.gw.Policy()
	}
	if !d.hideLoaded {
		d.hide, _ = d.loadPolicy()
		d.hideLoaded = true
	}
	return d.hide
}

// hiddenFiles reports the file parameters of st (TypeFile, given in the
// spec) that name a file the run's policy hides.
func (k *checker) hiddenFiles(st *mspec.State) {
	a := k.reg.Lookup(st.Do)
	if a == nil {
		return
	}
	for _, ps := range a.Params {
		if ps.Type != mspec.TypeFile {
			continue
		}
		p := findParam(st, ps.Name)
		if p == nil {
			continue
		}
		name, _ := p.Value.(string)
		found, _ := mspec.ResolveFile(name, k.opts.SpecDir, k.opts.Root)
		if found == "" {
			continue
		}
		if h := hiddenIn(k.hidePolicy(), found, k.opts.Root); h != "" {
			k.paramError(st, p, hideHint, "%v", hiddenFileError(name, h))
		}
	}
}

// hidePolicy is the checked run's policy (runPolicy), nil (the defaults)
// when none can be loaded.
func (k *checker) hidePolicy() *gateway.Policy {
	return k.runPolicy().policy
}

// namedReader is readNamed as a reader of the files a spec names, for
// replyschema.Load.
func namedReader(p *gateway.Policy, specDir, root string) func(name, found string) ([]byte, error) {
	return func(name, found string) ([]byte, error) { return readNamed(p, name, found, specDir, root) }
}
