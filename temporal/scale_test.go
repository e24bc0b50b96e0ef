package temporal_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/temporal"
)

// loopSpec counts to 23, alternating an inline step (noop) with an
// activity (test.grow, which appends a chunk to a string).
const loopSpec = `lpp: 1
name: loop
context:
  n: {type: int, default: 0}
  text: {type: string, default: ""}
initial: count
limits: {max_transitions: 1000}
states:
  count:
    do: noop
    set: {n: n + 1}
    next: grow
  grow:
    do: test.grow
    next:
      - when: n < 23
        to: count
      - to: done
  done:
    final: true
`

// setLoopSpec grows its text by 100 bytes a step, by set.
var setLoopSpec = `lpp: 1
name: setloop
context:
  text: {type: string, default: ""}
initial: count
limits: {max_transitions: 1000}
states:
  count:
    do: noop
    set: {text: text + "` + strings.Repeat("y", 100) + `"}
    next:
      - when: len(text) < 5000
        to: count
      - to: done
  done:
    final: true
`

// growAction appends chunk to the context's text.
func growAction(chunk string) machine.Action {
	return machine.Action{Name: "test.grow", Writes: []machine.VarSpec{{Name: "text", Type: spec.TypeString}}, Run: func(_ context.Context, c *machine.Call) error {
		s, _ := c.Var("text").(string)
		return c.SetVar("text", s+chunk)
	}}
}

// scaleEnv is a test environment whose payloads go through the claim-check
// codec on a blob store in a temporary folder.
type scaleEnv struct {
	t     *testing.T
	h     *testHost
	opts  temporal.Options
	codec *temporal.Codec
	store *temporal.DirStore
}

func newScaleEnv(t *testing.T, h *testHost, opts temporal.Options) *scaleEnv {
	store, err := temporal.NewDirStore(t.TempDir())
	require.NoError(t, err)
	return &scaleEnv{t: t, h: h, opts: opts, store: store, codec: temporal.NewCodec(store, 256, opts.BlobLimit)}
}

func (s *scaleEnv) env() *testsuite.TestWorkflowEnvironment {
	var ts testsuite.WorkflowTestSuite
	ts.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	env := ts.NewTestWorkflowEnvironment()
	env.SetDataConverter(s.codec.DataConverter())
	env.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: testDeadlockTimeout})
	o := s.opts
	o.Retry = temporal.Retry{Attempts: 2, Base: time.Millisecond, Max: time.Millisecond}
	o.Codec = s.codec
	temporal.NewEngine(s.h, o).Register(env)
	return env
}

// run executes the run to its end, following its continuations as new;
// it returns the result (or the workflow's error) and the executions.
func (s *scaleEnv) run(st temporal.Start) (*temporal.Progress, int, error) {
	for execs := 1; ; execs++ {
		env := s.env()
		env.ExecuteWorkflow(temporal.WorkflowName, st)
		err := env.GetWorkflowError()
		var can *workflow.ContinueAsNewError
		if errors.As(err, &can) {
			st = temporal.Start{}
			require.NoError(s.t, s.codec.DataConverter().FromPayloads(can.Input, &st))
			require.NotNil(s.t, st.Carry, "a continued run carries its records")
			continue
		}
		if err != nil {
			return nil, execs, err
		}
		var p temporal.Progress
		require.NoError(s.t, env.GetWorkflowResult(&p))
		return &p, execs, nil
	}
}

// runApproving executes the run to its end as run does, approving each
// pause it makes (a minute after an execution starts, by the resume
// Update); it returns the result and the pauses answered.
func (s *scaleEnv) runApproving(st temporal.Start) (*temporal.Progress, int) {
	t := s.t
	answered := 0
	for execs := 1; ; execs++ {
		require.Less(t, execs, 20, "the run does not end")
		env := s.env()
		var u update
		env.RegisterDelayedCallback(func() {
			q, err := env.QueryWorkflow(temporal.QueryProgress, -1)
			require.NoError(t, err)
			var now temporal.Progress
			require.NoError(t, q.Get(&now))
			if now.Status == machine.StatusPaused {
				answered++
				env.UpdateWorkflow(temporal.UpdateResume, "u", &u, temporal.Resume{Input: &machine.Input{Kind: "approve"}})
			}
		}, time.Minute)
		env.ExecuteWorkflow(temporal.WorkflowName, st)
		require.NoError(t, u.err)
		err := env.GetWorkflowError()
		var can *workflow.ContinueAsNewError
		if errors.As(err, &can) {
			st = temporal.Start{}
			require.NoError(t, s.codec.DataConverter().FromPayloads(can.Input, &st))
			continue
		}
		require.NoError(t, err)
		var p temporal.Progress
		require.NoError(t, env.GetWorkflowResult(&p))
		return &p, answered
	}
}

// A run longer than a segment continues as new, carrying its records by
// reference, and ends exactly as a local run: same state, steps, context;
// its result lists every step once, in order.
func TestWorkflowContinuesAsNewAndEndsLikeALocalRun(t *testing.T) {
	for _, tc := range []struct {
		name    string
		segment int
	}{
		{"one execution", 0},
		{"segments of 7 transitions", 7},
		{"segments of 1 transition", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &testHost{root: t.TempDir(), extra: []machine.Action{growAction(strings.Repeat("x", 100))}}
			rel := writeSpec(t, h.root, "loop.yaml", loopSpec)
			local := localRun(t, h, rel, "run-loop")
			s := newScaleEnv(t, h, temporal.Options{Segment: temporal.Segment{Transitions: tc.segment}})
			p, execs, err := s.run(startOf(t, h.root, rel, "run-loop", nil))
			require.NoError(t, err)
			want := 1
			if tc.segment > 0 {
				want = (local.Seq() + tc.segment - 1) / tc.segment
			}
			assert.Equal(t, want, execs, "executions")
			assertEndsLikeLocal(t, local, p)
		})
	}
}

// assertEndsLikeLocal: the run completed as the local run did (state,
// steps, context), and its result lists every step once, in order.
func assertEndsLikeLocal(t *testing.T, local *machine.Run, p *temporal.Progress) {
	t.Helper()
	assert.Equal(t, machine.StatusCompleted, p.Status)
	assert.Equal(t, local.State(), p.State)
	assert.Equal(t, local.Seq(), p.Steps)
	assert.Equal(t, canon(local.Vars()), canon(p.Vars))
	require.NoError(t, p.Flatten())
	require.Len(t, p.Records, local.Seq())
	for i, rec := range p.Records {
		assert.Equal(t, i+1, rec.Seq)
	}
}

// A context variable over the blob limit fails the run (not cancels it),
// with a message that names it, its size and the limit.
func TestWorkflowFailsAtTheBlobLimitNamingTheValue(t *testing.T) {
	for _, tc := range []struct {
		name, spec, chunk string
		want              string
	}{
		{"a context variable set by set", setLoopSpec, "",
			`cannot record step 10: context variable text (set by step 10 in state count) is 1002 B, over the blob limit of 1000 B: keep large data in files, or raise the limit (lppctl worker --blob-limit)`},
		{"an action's result", loopSpec, strings.Repeat("y", 2000),
			`action failed: test.grow in state "grow": the result of action test.grow at step 2 is 2.0 KB, over the blob limit of 1000 B: keep large data in files, or raise the limit (lppctl worker --blob-limit)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &testHost{root: t.TempDir(), extra: []machine.Action{growAction(tc.chunk)}}
			rel := writeSpec(t, h.root, "loop.yaml", tc.spec)
			s := newScaleEnv(t, h, temporal.Options{BlobLimit: 1000})
			_, _, err := s.run(startOf(t, h.root, rel, "run-big", nil))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// The steps of a run that failed at the blob limit are sent as step lines
// in pieces the codec stores under that limit, page after page, though the
// lines of its steps hold more than the limit.
func TestStepLinesAreSentUnderTheBlobLimit(t *testing.T) {
	h := &testHost{root: t.TempDir(), extra: []machine.Action{growAction("")}}
	rel := writeSpec(t, h.root, "loop.yaml", setLoopSpec)
	s := newScaleEnv(t, h, temporal.Options{BlobLimit: 1000})
	env := s.env()
	env.ExecuteWorkflow(temporal.WorkflowName, startOf(t, h.root, rel, "run-big", nil))
	require.ErrorContains(t, env.GetWorkflowError(), "over the blob limit of 1000 B")
	from, pages := 0, 0
	for more := true; more; pages++ {
		v, err := env.QueryWorkflow(temporal.QueryProgress, from, temporal.ProgressLines)
		require.NoError(t, err)
		var p temporal.Progress
		require.NoError(t, v.Get(&p))
		more = p.More
		require.NotEmpty(t, p.Lines)
		for _, piece := range p.Lines {
			assert.LessOrEqual(t, len(piece), 499, "a piece of the lines")
		}
		require.NoError(t, p.Flatten())
		for _, rec := range p.Records {
			from++
			require.Equal(t, from, rec.Seq)
		}
	}
	assert.Equal(t, 9, from, "the steps before the one over the limit")
	assert.Greater(t, pages, 1, "pages")
}

// Large values cross by reference: the workflow's input, the activities'
// inputs and results hold references only, each value stored once.
func TestCodecSendsLargeValuesByReferenceStoredOnce(t *testing.T) {
	h := &testHost{root: t.TempDir(), extra: []machine.Action{growAction(strings.Repeat("z", 10000))}}
	rel := writeSpec(t, h.root, "loop.yaml", loopSpec)
	s := newScaleEnv(t, h, temporal.Options{})
	big := strings.Repeat("big value ", 50_000)
	st := startOf(t, h.root, rel, "run-ref", map[string]any{"text": big})
	ps, err := s.codec.DataConverter().ToPayloads(st)
	require.NoError(t, err)
	require.Less(t, ps.Size(), 1024, "the workflow's input holds references")
	blobs := func() int {
		n := 0
		_ = filepath.WalkDir(s.store.Where(), func(_ string, d fs.DirEntry, _ error) error {
			if d != nil && !d.IsDir() {
				n++
			}
			return nil
		})
		return n
	}
	stored := blobs()
	_, err = temporal.NewCodec(s.store, 256, 0).DataConverter().ToPayloads(st) // another process's codec
	require.NoError(t, err)
	assert.Equal(t, stored, blobs(), "the same values are stored once")
	var back temporal.Start
	require.NoError(t, s.codec.DataConverter().FromPayloads(ps, &back))
	assert.Equal(t, string(st.Vars), string(back.Vars))
	assert.Equal(t, string(st.Spec), string(back.Spec))
	p, _, err := s.run(st)
	require.NoError(t, err)
	assert.Len(t, p.Vars["text"], len(big)+23*10000)
}

func canon(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// loopAskSpec pauses for an approval between two loops.
const loopAskSpec = `lpp: 1
name: loopask
context:
  n: {type: int, default: 0}
  answer: {type: string, default: ""}
initial: count
states:
  count:
    do: noop
    set: {n: n + 1}
    next:
      - when: n == 4
        to: ask
      - when: n < 9
        to: count
      - to: done
  ask:
    do: test.ask
    next: count
  done:
    final: true
`

// A run that continues as new every 3 transitions pauses in a later
// execution; the resume Update answers it there (the run rebuilt from the
// execution's checkpoint and records), and it ends with every step once.
func TestWorkflowResumedAfterItContinuedAsNew(t *testing.T) {
	h := &testHost{root: t.TempDir(), extra: []machine.Action{askAction}}
	rel := writeSpec(t, h.root, "loopask.yaml", loopAskSpec)
	s := newScaleEnv(t, h, temporal.Options{Segment: temporal.Segment{Transitions: 3}})
	p, answered := s.runApproving(startOf(t, h.root, rel, "run-loopask", nil))
	assert.Equal(t, 1, answered, "the run paused once")
	assert.Equal(t, machine.StatusCompleted, p.Status)
	assert.Equal(t, `{"answer":"approve","n":9}`, canon(p.Vars))
	require.NoError(t, p.Flatten())
	require.Len(t, p.Records, p.Steps)
	inputs := 0
	for i, rec := range p.Records {
		assert.Equal(t, i+1, rec.Seq)
		if rec.Input != nil && rec.Input.Kind == "approve" {
			inputs++
		}
	}
	assert.Equal(t, 1, inputs, "the step that took the answer")
}

// listLoopSpec appends a 200-byte item to a list at each of 400 steps: its
// records hold the list whole at every step, ~16 MB in all, but share its
// array (the run appends in place), and its step lines hold what it grew by.
var listLoopSpec = `lpp: 1
name: listloop
context:
  n: {type: int, default: 0}
  xs: {type: list, default: []}
initial: grow
limits: {max_transitions: 1000}
states:
  grow:
    do: noop
    set: {n: n + 1, xs: 'concat(xs, [string(n) + "` + strings.Repeat("z", 195) + `"])'}
    next:
      - when: n < 400
        to: grow
      - to: done
  done:
    final: true
`

// listRebuiltSpec puts a 200-byte item in front of a list at each of 400
// steps: a new list every step, whole in every record, ~16 MB in all.
var listRebuiltSpec = strings.Replace(listLoopSpec, `'concat(xs, [string(n) + "`+strings.Repeat("z", 195)+`"])'`,
	`'concat([string(n) + "`+strings.Repeat("z", 195)+`"], xs)'`, 1)

// A run whose records grow large continues as new once they pass
// Segment.Records (what they hold in the worker's memory; storing them is
// part of the workflow task that ends the execution), and ends as a local
// run does. A list appended to counts as the items appended: the records
// share its array.
func TestWorkflowContinuesAsNewWhenItsRecordsGrowLarge(t *testing.T) {
	for _, tc := range []struct {
		name, spec string
		records    int
		many       bool
	}{
		{"a list rebuilt at every step, records bounded at 1 MB", listRebuiltSpec, 1 << 20, true},
		{"a list appended to, records bounded at 1 MB", listLoopSpec, 1 << 20, false},
		{"a list rebuilt at every step, the default bound, 32 MB", listRebuiltSpec, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &testHost{root: t.TempDir()}
			rel := writeSpec(t, h.root, "listloop.yaml", tc.spec)
			local := localRun(t, h, rel, "run-list")
			s := newScaleEnv(t, h, temporal.Options{Segment: temporal.Segment{Records: tc.records}})
			p, execs, err := s.run(startOf(t, h.root, rel, "run-list", nil))
			require.NoError(t, err)
			if tc.many {
				// Step k holds ~200k bytes: 1 MB of records by step ~100,
				// then sooner in each execution as the list grows.
				assert.Greater(t, execs, 4, "executions")
			} else {
				assert.Equal(t, 1, execs, "executions")
			}
			assertEndsLikeLocal(t, local, p)
		})
	}
}

// A progress query from step N in an earlier execution sends that
// execution's records alone, with more to come (a follower reads a run one
// execution at a time, and never again what it has read).
func TestProgressQuerySendsOneExecutionAtATime(t *testing.T) {
	h := &testHost{root: t.TempDir()}
	rel := writeSpec(t, h.root, "listloop.yaml", listLoopSpec)
	s := newScaleEnv(t, h, temporal.Options{Segment: temporal.Segment{Transitions: 50}})
	st := startOf(t, h.root, rel, "run-pages", nil)
	var env *testsuite.TestWorkflowEnvironment
	for execs := 1; ; execs++ {
		env = s.env()
		env.ExecuteWorkflow(temporal.WorkflowName, st)
		var can *workflow.ContinueAsNewError
		if !errors.As(env.GetWorkflowError(), &can) {
			require.NoError(t, env.GetWorkflowError())
			require.Equal(t, 9, execs, "executions of 50 transitions")
			break
		}
		st = temporal.Start{}
		require.NoError(t, s.codec.DataConverter().FromPayloads(can.Input, &st))
		require.Len(t, st.Carry.Ends, execs, "the steps at the end of each execution")
		assert.Equal(t, 50*execs, st.Carry.Ends[execs-1])
	}
	for _, tc := range []struct{ from, segments, first int }{
		{0, 1, 1},
		{120, 1, 101},
		{300, 1, 301},
		{399, 1, 351},
		{400, 0, 401},
	} {
		v, err := env.QueryWorkflow(temporal.QueryProgress, tc.from)
		require.NoError(t, err)
		var p temporal.Progress
		require.NoError(t, v.Get(&p))
		assert.Equal(t, tc.segments, len(p.Segments), "segments sent from step %d", tc.from)
		require.NoError(t, p.Flatten())
		require.NotEmpty(t, p.Records)
		assert.Equal(t, tc.first, p.Records[0].Seq, "the first record sent from step %d", tc.from)
		assert.Equal(t, tc.segments > 0, p.More, "more after the records sent from step %d", tc.from)
		if tc.segments > 0 {
			assert.Equal(t, tc.first+49, p.Records[len(p.Records)-1].Seq, "one execution's records from step %d", tc.from)
		}
	}
}

// A progress page holds at most PageBytes of values (but one record), as
// records (a client from before step lines) or as step lines: a follower of
// a run whose records are large reads them a few MB at a time.
func TestProgressPagesAreBoundedInBytes(t *testing.T) {
	for _, want := range []string{"", temporal.ProgressLines} {
		t.Run("as "+cmp.Or(want, "records"), func(t *testing.T) {
			pages := readPages(t, listRebuiltSpec, want, func(p *temporal.Progress) int {
				if want == "" {
					size := 0
					for _, rec := range p.Records {
						b, err := json.Marshal(rec.Vars)
						require.NoError(t, err)
						size += len(b)
					}
					return size
				}
				assert.Empty(t, p.Records, "step lines instead of records")
				return len(p.Lines)
			})
			for i, pg := range pages {
				if pg.records > 1 {
					assert.LessOrEqual(t, pg.bytes, temporal.PageBytes+200*1024, "page %d: %d records", i+1, pg.records)
				}
			}
			assert.Greater(t, len(pages), 2, "pages of a 16 MB run")
		})
	}
}

// A follower that asks for step lines reads a run whose list grows at
// every step in what it grew by: the list whole once, then the items
// appended (as records, it is sent whole at every step, ~16 MB).
func TestProgressLinesSendWhatGrew(t *testing.T) {
	total := 0
	pages := readPages(t, listLoopSpec, temporal.ProgressLines, func(p *temporal.Progress) int {
		assert.Empty(t, p.Records, "step lines instead of records")
		return len(p.Lines)
	})
	for _, pg := range pages {
		total += pg.bytes
	}
	assert.Less(t, total, 400*(200+300), "bytes of step lines for 400 appends of 200 bytes")
}

type page struct{ records, bytes int }

// readPages runs spec to its end and reads its progress page after page,
// each page's records (checked in order) and what size says it weighs.
func readPages(t *testing.T, spec, want string, size func(*temporal.Progress) int) []page {
	t.Helper()
	h := &testHost{root: t.TempDir()}
	rel := writeSpec(t, h.root, "listloop.yaml", spec)
	s := newScaleEnv(t, h, temporal.Options{})
	env := s.env()
	env.ExecuteWorkflow(temporal.WorkflowName, startOf(t, h.root, rel, "run-bytes", nil))
	require.NoError(t, env.GetWorkflowError())
	var pages []page
	for from := 0; ; {
		v, err := env.QueryWorkflow(temporal.QueryProgress, from, want)
		require.NoError(t, err)
		var p temporal.Progress
		require.NoError(t, v.Get(&p))
		pg := page{bytes: size(&p)}
		require.NoError(t, p.Flatten())
		require.NotEmpty(t, p.Records)
		for i, rec := range p.Records {
			require.Equal(t, from+1+i, rec.Seq)
		}
		pg.records = len(p.Records)
		pages = append(pages, pg)
		from = p.Records[len(p.Records)-1].Seq
		if !p.More {
			require.Equal(t, 401, from, "every step, page after page")
			return pages
		}
	}
}

// A run whose list grows at every step keeps its records as what the list
// grew by, in the executions it stored and in its result: ~16 MB of values
// whole, a few hundred KB of step lines (each execution's first line holds
// the list whole).
func TestRecordsAreStoredAsWhatGrew(t *testing.T) {
	h := &testHost{root: t.TempDir()}
	rel := writeSpec(t, h.root, "listloop.yaml", listLoopSpec)
	local := localRun(t, h, rel, "run-list")
	s := newScaleEnv(t, h, temporal.Options{Segment: temporal.Segment{Transitions: 100}})
	p, execs, err := s.run(startOf(t, h.root, rel, "run-list", nil))
	require.NoError(t, err)
	assert.Equal(t, 5, execs, "executions of 100 transitions")
	require.Len(t, p.Segments, execs)
	size := 0
	for _, seg := range p.Segments {
		size += len(seg)
	}
	assert.Less(t, size, 1<<20, "bytes of the records in the result")
	assertEndsLikeLocal(t, local, p)
}
