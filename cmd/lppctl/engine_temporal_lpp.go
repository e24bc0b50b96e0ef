package main

import (
	"fmt"

	"github.com/lppctl/lppctl/machine/lpp"
)

// workflowSource is the spec text a run of the spec src (read from path)
// starts its workflow with: src, or for an L++ blueprint its translation, as lppctl import
// lpp writes it (the workflow reads specs, not blueprints; the compute
// mapping beside the blueprint is read here, where the run is started).
func workflowSource(path string, src []byte) ([]byte, error) {
	if !lpp.IsBlueprint(src) {
		return src, nil
	}
	f, err := parseSpecFile(path, src, "")
	if err != nil {
		return nil, err
	}
	if f.tr == nil {
		return nil, fmt.Errorf("cannot translate %s for Temporal: run lppctl validate %s", path, path)
	}
	return f.tr.Text(), nil
}
