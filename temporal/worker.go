package temporal

import (
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
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

// Workers returns this machine's workers: one for the workflows and the
// actions that call no model, one for those that do, whose task queue the
// server holds to llmRPS activities a second (0: no limit) across every
// worker that serves it.
func (e *Engine) Workers(c client.Client, llmRPS float64) []worker.Worker {
	main := worker.New(c, e.TaskQueue(), worker.Options{})
	e.Register(main)
	model := worker.New(c, e.ModelQueue(), worker.Options{TaskQueueActivitiesPerSecond: llmRPS, DisableWorkflowWorker: true})
	model.RegisterActivityWithOptions(e.Action, activity.RegisterOptions{Name: ActivityName})
	return []worker.Worker{main, model}
}
