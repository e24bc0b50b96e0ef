package temporal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/lppctl/lppctl/machine"
)

// Register registers the workflow and the activity with r (a worker, or
// the SDK's test environment or replayer).
func (e *Engine) Register(r interface {
	RegisterWorkflowWithOptions(any, workflow.RegisterOptions)
	RegisterActivityWithOptions(any, activity.RegisterOptions)
}) {
	r.RegisterWorkflowWithOptions(e.Workflow, workflow.RegisterOptions{Name: WorkflowName})
	r.RegisterActivityWithOptions(e.Action, activity.RegisterOptions{Name: ActivityName})
}

// Versioning is how a worker takes part in Temporal's Worker Deployment
// Versioning: its workers are one version (BuildID) of a deployment; a
// run's workflow is pinned to the version that started it, and its
// actions go to workers of that version, so a run never meets a worker
// that lacks an action it uses. New runs go to the deployment's current
// version.
type Versioning struct {
	Off        bool   // unversioned workers (every worker of the queue takes every run)
	Deployment string // default: the task queue
	BuildID    string // default: BuildID(catalog)
}

// BuildID names a version of the workers: the lppctl version and a hash of
// the action catalog and the payload format (CatalogHash), so that two
// builds that offer different actions, or write payloads differently,
// never share one.
func BuildID(catalog *machine.Registry) string {
	v := strings.NewReplacer("+", "-", "/", "-", " ", "-").Replace(Version)
	return v + "." + CatalogHash(catalog)
}

// CatalogHash is a short hash of the actions' names, parameters and writes,
// and of the codec's payload format (CodecFormat): workers that differ in
// either never share a build ID.
func CatalogHash(catalog *machine.Registry) string {
	h := sha256.New()
	fmt.Fprintf(h, "codec %s\n", CodecFormat)
	for _, a := range catalog.Actions() {
		fmt.Fprintf(h, "%s(", a.Name)
		for _, p := range a.Params {
			fmt.Fprintf(h, "%s:%s,", p.Name, p.Type)
		}
		h.Write([]byte(")"))
		for _, w := range a.Writes {
			fmt.Fprintf(h, "%s:%s,", w.Name, w.Type)
		}
		h.Write([]byte("\n"))
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

func (e *Engine) versioning(v Versioning) (Versioning, worker.DeploymentOptions) {
	if v.Off {
		return v, worker.DeploymentOptions{}
	}
	if v.Deployment == "" {
		v.Deployment = e.TaskQueue()
	}
	if v.BuildID == "" {
		v.BuildID = BuildID(e.host.Catalog())
	}
	return v, worker.DeploymentOptions{
		UseVersioning:             true,
		Version:                   worker.WorkerDeploymentVersion{DeploymentName: v.Deployment, BuildID: v.BuildID},
		DefaultVersioningBehavior: workflow.VersioningBehaviorPinned,
	}
}

// DeadlockTimeout is how long a workflow task may run without yielding: up
// to Segment.Transitions inline steps, and the codec's work on large
// payloads, take more than the SDK's 1 s on a loaded machine.
const DeadlockTimeout = 10 * time.Second

// Workers returns this machine's workers: one for the workflows and the
// actions that call no model, one for those that do, whose task queue the
// server holds to llmRPS activities a second (0: no limit) across every
// worker that serves it. Both are the version v of the deployment.
func (e *Engine) Workers(c client.Client, llmRPS float64, v Versioning) []worker.Worker {
	_, dep := e.versioning(v)
	main := worker.New(c, e.TaskQueue(), worker.Options{DeploymentOptions: dep, DeadlockDetectionTimeout: DeadlockTimeout})
	e.Register(main)
	model := worker.New(c, e.ModelQueue(), worker.Options{TaskQueueActivitiesPerSecond: llmRPS, DisableWorkflowWorker: true, DeploymentOptions: dep})
	model.RegisterActivityWithOptions(e.Action, activity.RegisterOptions{Name: ActivityName})
	return []worker.Worker{main, model}
}

// MakeCurrent makes version v (of started workers) the deployment's
// current version: new runs go to its workers. It waits for the server to
// know the version (its workers polled), up to ctx's deadline.
func (e *Engine) MakeCurrent(ctx context.Context, c client.Client, v Versioning) (Versioning, error) {
	v, _ = e.versioning(v)
	if v.Off {
		return v, nil
	}
	h := c.WorkerDeploymentClient().GetHandle(v.Deployment)
	for {
		d, err := h.Describe(ctx, client.WorkerDeploymentDescribeOptions{})
		if err == nil {
			cur := d.Info.RoutingConfig.CurrentVersion
			if cur != nil && cur.BuildID == v.BuildID {
				return v, nil
			}
			known := slices.ContainsFunc(d.Info.VersionSummaries, func(s client.WorkerDeploymentVersionSummary) bool {
				return s.Version.BuildID == v.BuildID
			})
			if known {
				if _, err = h.SetCurrentVersion(ctx, client.WorkerDeploymentSetCurrentVersionOptions{BuildID: v.BuildID, IgnoreMissingTaskQueues: true}); err == nil {
					return v, nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return v, fmt.Errorf("cannot make %s the current version of deployment %s: %w (last: %v)", v.BuildID, v.Deployment, ctx.Err(), err)
		case <-time.After(300 * time.Millisecond):
		}
	}
}
