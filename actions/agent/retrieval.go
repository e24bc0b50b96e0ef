package agent

import (
	"sync"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/skills"
)

// embedState is the run's embedder for ranking library skills, built at its
// first use from Deps.Embeddings. Once it failed (a configuration error, or
// the provider during a search) it is down for the rest of the process:
// the prompts' skills are ranked with BM25, after one warning.
type embedState struct {
	mu      sync.Mutex
	built   bool
	e       skills.Embedder
	model   string
	down    error
	warned  bool
	pending error // a failure to warn about
}

func (d *Deps) embeds() *embedState {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.emb == nil {
		d.emb = &embedState{}
	}
	return d.emb
}

// libraryOptions are the options the agent opens the skill library with:
// the run's iteration, and the embedder of Deps.Embeddings (openai[:model],
// ollama[:model]; "" or none: BM25) while it works, so the prompts' skills
// are ranked as `lppctl skills search --embeddings` ranks them. A provider
// failure reaches warnFallback, which records it; embedWarn says so once.
func (d *Deps) libraryOptions(c *machine.Call) []skills.Option {
	opts := []skills.Option{skills.WithRun(d.ResolveRunID(c.RunID))}
	st := d.embeds()
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.built {
		st.built = true
		e, model, err := skills.NewEmbedder(d.Embeddings, d.Env)
		if err != nil {
			st.down, st.pending = err, err
		}
		st.e, st.model = e, model
	}
	if st.e == nil || st.down != nil {
		return opts
	}
	return append(opts, skills.WithEmbedder(st.e, st.model), skills.WithFallback(func(err error) {
		st.mu.Lock()
		defer st.mu.Unlock()
		if st.down == nil {
			st.down, st.pending = err, err
		}
	}))
}

// embedWarn warns, once per process, that the library skills are ranked
// with BM25 because the embedder failed.
func (d *Deps) embedWarn(c *machine.Call) {
	st := d.embeds()
	st.mu.Lock()
	err := st.pending
	st.pending = nil
	first := err != nil && !st.warned
	if first {
		st.warned = true
	}
	st.mu.Unlock()
	if first {
		c.Warnf("relevant skills ranked with BM25 for the rest of the run: %v", err)
	}
}
