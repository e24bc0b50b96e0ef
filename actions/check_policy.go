package actions

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/lppctl/lppctl/machine/lpp"
	mspec "github.com/lppctl/lppctl/machine/spec"

	"github.com/lppctl/lppctl/gateway"
)

// checkPolicy is the gateway policy a run of the checked spec would load
// (RunPolicy), loaded once.
type checkPolicy struct {
	policy *gateway.Policy // nil: none can be loaded
	shown  string          // its path, relative to the root when inside it
	err    error           // why none can be loaded
}

// RunPolicy loads the gateway policy a run with this root and --policy
// would use: policy, else ROOT/config/tools_config.yaml. It is the one place
// validation learns the policy; a default policy (for specs run outside a
// project) belongs here, so that every check that needs a policy sees it.
func RunPolicy(root, policy string) (*gateway.Policy, string, error) {
	if root == "" {
		root = "."
	}
	path := policy
	if path == "" {
		path = filepath.Join(root, "config", "tools_config.yaml")
	}
	shown := path
	if r, err := filepath.Rel(root, path); err == nil && filepath.IsLocal(r) {
		shown = filepath.ToSlash(r)
	}
	p, err := gateway.LoadPolicy(path)
	return p, shown, err
}

// SpecPolicy is RunPolicy for a run of spec: a blueprint's run in a folder
// without a policy uses its default policy (BlueprintPolicy), as the run
// does (Deps.DefaultPolicy).
func SpecPolicy(spec *mspec.Spec, root, policy string) (*gateway.Policy, string, error) {
	p, shown, err := RunPolicy(root, policy)
	if err != nil && policy == "" && errors.Is(err, fs.ErrNotExist) && spec != nil && lpp.IsBlueprint(spec.Source) {
		p, err = gateway.ParsePolicy(strings.NewReader(BlueprintPolicy(ScriptDirs(spec))), blueprintPolicyName)
		shown = blueprintPolicyName
	}
	return p, shown, err
}

// runPolicy is SpecPolicy for the checker's options, once.
func (k *checker) runPolicy() *checkPolicy {
	if k.pol == nil {
		p, shown, err := SpecPolicy(k.spec, k.opts.Root, k.opts.Policy)
		k.pol = &checkPolicy{policy: p, shown: shown, err: err}
	}
	return k.pol
}
