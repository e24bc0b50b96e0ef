package gateway

import (
	"path/filepath"
	"sync"
)

// defaultHidden is a policy holding only the default hidden_paths, for
// HiddenBy without a policy.
var defaultHidden = sync.OnceValue(func() *Policy {
	p := &Policy{}
	for _, raw := range defaultHiddenPaths {
		h, err := compileHidden(raw)
		if err != nil {
			panic("gateway: default hidden path " + raw + ": " + err.Error()) // a constant of this file
		}
		p.Hidden = append(p.Hidden, h)
	}
	return p
})

// HiddenBy returns the hidden_paths pattern of p that hides rel, a path
// relative to the project root (either separator), or "" when none does.
// A nil p stands for the default hidden_paths: files a spec names (prompt
// templates, schemas, child specs) are sent to the model, and must not be
// hidden files even where no policy is loaded.
func HiddenBy(p *Policy, rel string) string {
	if p == nil {
		p = defaultHidden()
	}
	return p.hiddenBy(filepath.ToSlash(filepath.Clean(rel)))
}
