package agent

import (
	"sync"

	"github.com/lppctl/lppctl/actions"
)

// Deps is what the Skills Agent's actions take: the dependencies every
// action takes (actions.Deps: the configuration from the command line, the
// run's I/O, the model and the gateway built at their first use), and what
// only the agent's actions keep for the run (the skill library's embedder).
// Actions binds one Deps to the actions.Deps it is registered with.
type Deps struct {
	*actions.Deps

	mu  sync.Mutex
	emb *embedState // the embedder of Embeddings (retrieval.go)
}
