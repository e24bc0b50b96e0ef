package temporal

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// CancelSummary returns where a cancelled run stopped, with its records
// by reference (Flatten reads them), as its workflow recorded them in the
// cancellation's details: read from the server, no worker needed. It
// returns nil and no error when the cancellation has none (a run
// cancelled by a worker before they were recorded, a terminated run).
func CancelSummary(ctx context.Context, c client.Client, runID string) (*Progress, error) {
	werr := c.GetWorkflow(ctx, runID, "").Get(ctx, nil)
	var ce *temporal.CanceledError
	if !errors.As(werr, &ce) || !ce.HasDetails() {
		return nil, nil
	}
	var p Progress
	if err := ce.Details(&p); err != nil {
		return nil, fmt.Errorf("cannot read where run %s stopped: %w", runID, err)
	}
	if p.RunID == "" { // details of another kind
		return nil, nil
	}
	return &p, nil
}
