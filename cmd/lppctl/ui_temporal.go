package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
	"github.com/lppctl/lppctl/temporal"
	"github.com/lppctl/lppctl/ui"
)

// uiTemporalList bounds the Temporal runs the Runs page lists (the newest).
const uiTemporalList = 200

// temporalSource is lppctl ui --temporal's ui.RunSource: the runs of a
// Temporal server, read as lppctl runs, runs show and runs trace --temporal
// read them (the visibility list, the progress and memory queries, the
// workflow's result once it completed), and decided by lppctl resume
// --temporal itself.
type temporalSource struct {
	tc        client.Client
	addr, ns  string
	root      string // the UI's project root: a worker on it keeps the runs' logs under .lppctl/temporal
	decide    func(context.Context, ui.Decision) (string, error)
	closed    sync.Map // run id → ui.RemoteRun: an ended run's summary never changes
	starts    sync.Map // run id → *temporal.Start: what the run started with
	queryWait time.Duration
}

func newTemporalSource(tc client.Client, addr, ns, root string) *temporalSource {
	s := &temporalSource{tc: tc, addr: addr, ns: ns, root: root, queryWait: 3 * time.Second}
	s.decide = uiResume([]string{"--temporal", addr, "--namespace", ns})
	return s
}

func (s *temporalSource) Name() string { return "Temporal" }

func (s *temporalSource) ResumeFlags() string {
	if s.ns != "" && s.ns != "default" {
		return "--temporal " + s.addr + " --namespace " + s.ns
	}
	return "--temporal " + s.addr
}

// List lists the newest runs of the visibility store, each with where it
// stands (asked of its workflow, a few at a time).
func (s *temporalSource) List(ctx context.Context) ([]ui.RemoteRun, error) {
	sums, err := temporal.ListRuns(ctx, s.tc, uiTemporalList)
	if err != nil {
		return nil, err
	}
	out := make([]ui.RemoteRun, len(sums))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, sum := range sums {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[i] = s.summary(ctx, sum)
		}()
	}
	wg.Wait()
	return out, nil
}

// Summary is one run's summary.
func (s *temporalSource) Summary(ctx context.Context, id string) (*ui.RemoteRun, error) {
	if r, ok := s.closed.Load(id); ok {
		rr := r.(ui.RemoteRun)
		return &rr, nil
	}
	d, err := s.tc.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return nil, fmt.Errorf("cannot find run %s on Temporal: %w", id, runstore.ErrNotFound)
		}
		return nil, fmt.Errorf("cannot find run %s on Temporal: %w", id, err)
	}
	info := d.GetWorkflowExecutionInfo()
	sum := temporal.Summary{RunID: id, Status: visibleStatus(info.GetStatus()), Start: temporal.Begun(info)}
	if ct := info.GetCloseTime(); ct != nil {
		end := ct.AsTime()
		sum.End = &end
	}
	r := s.summary(ctx, sum)
	return &r, nil
}

// visibleStatus names a workflow's status as lppctl runs --temporal does.
func visibleStatus(st enums.WorkflowExecutionStatus) string {
	switch st {
	case enums.WORKFLOW_EXECUTION_STATUS_RUNNING, enums.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW:
		return string(machine.StatusRunning)
	case enums.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		return string(machine.StatusCompleted)
	case enums.WORKFLOW_EXECUTION_STATUS_CANCELED, enums.WORKFLOW_EXECUTION_STATUS_TERMINATED:
		return "cancelled"
	}
	return string(machine.StatusFailed)
}

// summary completes a visibility summary with where the run stands: a
// running run's progress query (paused is a running workflow waiting for
// its Update), a completed run's result (no worker needed), an ended run's
// error. What cannot be asked is said in Error.
func (s *temporalSource) summary(ctx context.Context, sum temporal.Summary) ui.RemoteRun {
	if r, ok := s.closed.Load(sum.RunID); ok {
		return r.(ui.RemoteRun)
	}
	r := ui.RemoteRun{ID: sum.RunID, Status: sum.Status, Start: sum.Start, End: sum.End, LogDir: s.logDir(sum.RunID)}
	p, err := s.progress(ctx, sum.RunID, sum.Status, -1)
	if err != nil {
		r.Error = err.Error()
	}
	if p != nil {
		r.Spec, r.State, r.Steps = p.Spec, p.State, p.Steps
		if (sum.Status == string(machine.StatusRunning) || sum.Status == string(machine.StatusPaused)) && p.Status == machine.StatusPaused {
			// its prompt's resume command names the server, as runs show's does
			r.Status, r.Pause = string(machine.StatusPaused), pauseOnTemporal(p.Pause, sum.RunID, "lppctl resume "+sum.RunID+" "+s.ResumeFlags())
		}
		if p.Error != "" {
			r.Error = p.Error
		}
	}
	if sum.Status == string(machine.StatusFailed) {
		if _, msg, err := temporal.Closed(ctx, s.tc, sum.RunID); err == nil && msg != "" {
			r.Error = msg
		}
	}
	if sum.Status != string(machine.StatusRunning) && sum.Status != string(machine.StatusPaused) {
		s.closed.Store(sum.RunID, r)
	}
	return r
}

// progress asks where a run stands, with its records from step from+1
// (none for -1): the progress query, as runs show and runs trace
// --temporal ask; for a completed run, the workflow's result (the same
// progress, final, with no worker needed), for a cancelled one the summary
// in its cancellation.
func (s *temporalSource) progress(ctx context.Context, id, status string, from int) (*temporal.Progress, error) {
	if status == string(machine.StatusCompleted) {
		if res, err := temporal.Result(ctx, s.tc, id); err == nil {
			if from < 0 {
				res.Records = nil
			} else {
				res.Records = res.Records[min(from, len(res.Records)):]
			}
			return res, nil
		}
	}
	if status == string(temporal.StatusCancelled) { // where it stopped, in its cancellation
		if res, err := temporal.CancelSummary(ctx, s.tc, id); err == nil && res != nil && res.Flatten() == nil {
			if from < 0 {
				res.Records = nil
			} else {
				res.Records = res.Records[min(from, len(res.Records)):]
			}
			return res, nil
		}
	}
	qctx, cancel := context.WithTimeout(ctx, s.queryWait)
	defer cancel()
	if from < 0 {
		return temporal.Query(qctx, s.tc, id, from)
	}
	return temporal.QueryAll(qctx, s.tc, id, from)
}

// Run is a run with its spec (the one it started with), steps, context and
// memory.
func (s *temporalSource) Run(ctx context.Context, id string) (*ui.RemoteRun, error) {
	r, err := s.Summary(ctx, id)
	if err != nil {
		return nil, err
	}
	st, err := s.start(ctx, id)
	if err != nil {
		return nil, err
	}
	r.SpecPath, r.SpecSrc = st.SpecPath, st.Spec
	var cfg agentConfig
	if len(st.Agent) > 0 && json.Unmarshal(st.Agent, &cfg) == nil && cfg.Skill != "" {
		r.SkillDir = cfg.rebased(s.root).Skill
	}
	if p, err := s.progress(ctx, id, r.Status, 0); err == nil {
		r.Records, r.Vars = p.Records, p.Vars
	} else if r.Error == "" {
		r.Error = err.Error()
	}
	mctx, cancel := context.WithTimeout(ctx, s.queryWait)
	defer cancel()
	if mem, err := temporal.Memory(mctx, s.tc, id); err == nil {
		r.Memory = mem
	}
	return r, nil
}

// start reads what the run started with from its first history event: the
// spec by content, so the diagram is the one the run follows whatever
// happened to the file since.
func (s *temporalSource) start(ctx context.Context, id string) (*temporal.Start, error) {
	if st, ok := s.starts.Load(id); ok {
		return st.(*temporal.Start), nil
	}
	st, err := temporalStart(ctx, s.tc, s.root, id)
	if err != nil {
		return nil, err
	}
	s.starts.Store(id, st)
	return st, nil
}

// temporalStart reads what run id started with from its first history
// event (its values read through root's blob store when the client's codec
// is not known).
func temporalStart(ctx context.Context, tc client.Client, root, id string) (*temporal.Start, error) {
	it := tc.GetWorkflowHistory(ctx, id, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	if !it.HasNext() {
		return nil, fmt.Errorf("cannot read how run %s started: its history is empty", id)
	}
	ev, err := it.Next()
	if err != nil {
		return nil, fmt.Errorf("cannot read how run %s started: %w", id, err)
	}
	attrs := ev.GetWorkflowExecutionStartedEventAttributes()
	if attrs == nil {
		return nil, fmt.Errorf("cannot read how run %s started: its first event is %s", id, ev.GetEventType())
	}
	var st temporal.Start
	if err := converterOf(tc, root).FromPayloads(attrs.GetInput(), &st); err != nil {
		return nil, fmt.Errorf("cannot read how run %s started: %w", id, err)
	}
	return &st, nil
}

// logDir is where a worker on the UI's root keeps the run's llm.jsonl and
// audit.jsonl ("" when no worker here ran it).
func (s *temporalSource) logDir(id string) string {
	dir := filepath.Join(s.root, ".lppctl", "temporal", id)
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return dir
	}
	return ""
}

// Decide is lppctl resume RUN_ID --temporal HOST:PORT with the decision's
// flags, in-process.
func (s *temporalSource) Decide(ctx context.Context, d ui.Decision) (string, error) {
	return s.decide(ctx, d)
}
