package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/lppctl/lppctl/gateway"
	"github.com/lppctl/lppctl/temporal"
)

// toolEffects is a Temporal worker's record of an action's gateway calls
// (gateway.Effects): a retried activity gives back the results of the calls
// an earlier attempt made instead of making them again.
type toolEffects struct{ rec *temporal.Effects }

func (t toolEffects) Begin(_ context.Context, tool string, args map[string]any) (*gateway.Result, func(gateway.Result), error) {
	b, err := json.Marshal(args) // map keys sorted: the same arguments, the same bytes
	if err != nil {
		return nil, nil, fmt.Errorf("cannot hash the arguments: %w", err)
	}
	prev, found, done, err := t.rec.Begin(tool, b)
	if err != nil {
		return nil, nil, err
	}
	if found {
		var res gateway.Result
		if err := json.Unmarshal(prev, &res); err != nil {
			return nil, nil, fmt.Errorf("cannot read the recorded result of the call: %w", err)
		}
		return &res, nil, nil
	}
	return nil, func(res gateway.Result) {
		b, err := json.Marshal(res)
		if err == nil {
			// A result that cannot be recorded leaves the call begun and
			// not done: a retry makes it again, as without a record.
			_ = done(b)
		}
	}, nil
}
