package temporal

import (
	"context"
	"encoding/json"
	"time"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/spec"
)

// Host supplies a worker's actions. Every worker of a task queue must offer
// the same catalog (the same lppctl version): the workflow compiles specs
// against it, and a replay on another worker must decide the same.
type Host interface {
	// Catalog returns the actions' declarations (parameters, writes); the
	// workflow never runs their handlers, except the pure built-ins.
	Catalog() *machine.Registry
	// Open returns the registry whose handlers run one action execution of
	// run on this machine, and what releases it.
	Open(ctx context.Context, run RunInfo) (*machine.Registry, func(), error)
	// ModelAction reports whether the named action calls a model: it runs
	// on the model task queue, under the shared rate limit.
	ModelAction(name string) bool
}

// RunInfo is what a Host learns of the run whose action it runs.
type RunInfo struct {
	RunID    string
	SpecPath string
	Spec     *spec.Spec
	Agent    json.RawMessage
	// Files are the run's pinned prompt templates (Start.Files).
	Files map[string][]byte
	// Seq, Action and Attempt name the action execution: its step, the
	// action, and the activity's attempt (1 the first time). An
	// effect's record (Effects) is keyed by the first two.
	Seq     int
	Action  string
	Attempt int
}

// Retry bounds the retries of an activity that failed for a transient
// cause (a worker that died, a timeout, an error that says it is
// temporary). Action errors are never retried: they take the state's
// on_error route, as in a local run, unless they say a service is
// unavailable (machine.ErrUnavailable): then the run waits in the state and
// tries the action again (remote).
type Retry struct {
	Attempts int           // total attempts, first included
	Base     time.Duration // first backoff; doubles each retry
	Max      time.Duration // longest backoff
}

// Options configure an Engine.
type Options struct {
	TaskQueue string        // default DefaultTaskQueue
	Retry     Retry         // default 4 attempts, 1s, 20s (the model clients' bounds)
	Timeout   time.Duration // one attempt of an action; default 10m
	Heartbeat time.Duration // a worker that stays silent this long is taken as dead; default 10s
	Segment   Segment       // when a run continues as new
	// BlobLimit bounds a context variable's and an action result's JSON
	// (default DefaultBlobLimit): a run over it fails, saying which value.
	BlobLimit int
	// Codec is the payload codec of the workers' client: the workflow
	// stores the records of an execution that continues as new with it
	// (default: one on a store in this process's memory, for tests).
	Codec *Codec
}

// Segment bounds one workflow execution of a run: past any of these the
// run continues as new at its next quiet step (no event pending), carrying
// its records by reference. Temporal's own limits are 51,200 events and
// 50 MB of history per execution.
type Segment struct {
	Transitions int // default 2,000 (a workflow task runs inline steps without yielding)
	Events      int // default 10,000
	Bytes       int // default 8 MB
	// Records bounds the JSON of the values the execution's records hold
	// (the variables each step changed, whole, and its memory operations):
	// default 32 MB. Continuing as new stores them (in the workflow task
	// that ends the execution, which must not outlast its timeout), and a
	// list that grows at every step makes them grow with the square of the
	// steps. 0 in a recorded bound: none (executions started before it).
	Records int
	// Busy bounds the time a worker spends on the execution's steps that
	// do not wait (inline steps: noop, log, emit, set, guards): default
	// 2 s, checked every BusyCheck steps. A workflow task runs such steps
	// without yielding, and a replay of the execution (another worker, a
	// query of a closed run) runs them all again in one task: past the
	// task's 10 s timeout the task is given again and times out again, and
	// the run never moves. 0 in a recorded bound: none (executions started
	// before it).
	Busy time.Duration
}

func (o Options) withDefaults() Options {
	if o.TaskQueue == "" {
		o.TaskQueue = DefaultTaskQueue
	}
	if o.Retry.Attempts <= 0 {
		o.Retry.Attempts = 4
	}
	if o.Retry.Base <= 0 {
		o.Retry.Base = time.Second
	}
	if o.Retry.Max <= 0 {
		o.Retry.Max = 20 * time.Second
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Minute
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = 10 * time.Second
	}
	if o.Segment.Transitions <= 0 {
		o.Segment.Transitions = 2000
	}
	if o.Segment.Events <= 0 {
		o.Segment.Events = 10000
	}
	if o.Segment.Bytes <= 0 {
		o.Segment.Bytes = 8 << 20
	}
	if o.Segment.Records <= 0 {
		o.Segment.Records = 32 << 20
	}
	if o.Segment.Busy <= 0 {
		o.Segment.Busy = 2 * time.Second
	}
	if o.BlobLimit <= 0 {
		o.BlobLimit = DefaultBlobLimit
	}
	if o.Codec == nil {
		o.Codec = NewCodec(newMemStore(), 0, o.BlobLimit)
	}
	return o
}

// Engine is the workflow and the activity of one worker.
type Engine struct {
	host  Host
	opts  Options
	codec *Codec
}

// NewEngine returns the engine of a worker whose actions host supplies.
func NewEngine(host Host, opts Options) *Engine {
	opts = opts.withDefaults()
	return &Engine{host: host, opts: opts, codec: opts.Codec}
}

// Catalog is the actions this worker offers.
func (e *Engine) Catalog() *machine.Registry { return e.host.Catalog() }

// TaskQueue is the queue of the workflows and the actions that call no model.
func (e *Engine) TaskQueue() string { return e.opts.TaskQueue }

// ModelQueue is the queue of the actions that call a model.
func (e *Engine) ModelQueue() string { return e.opts.TaskQueue + ModelQueueSuffix }
