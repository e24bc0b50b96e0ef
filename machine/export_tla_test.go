package machine_test

import (
	"path/filepath"
	"testing"

	"github.com/lppctl/lppctl/machine"
)

// TestExportTLAGolden exports specs of the seeded-defect corpus (a deadlock,
// invariants, an event with a payload, an on_error route, final_requires)
// and compares the module and its TLC configuration with golden files.
func TestExportTLAGolden(t *testing.T) {
	for _, name := range []string{
		"deadlock_counter_value",
		"invariant_replan_rounds",
		"wait_payload_invariant",
		"invariant_after_error",
		"final_requires_map",
		"trap_after_event",
	} {
		t.Run(name, func(t *testing.T) {
			m := checkSpecFile(t, filepath.Join("testdata", "check", name+".yaml"))
			mod, err := machine.ExportTLA(m)
			if err != nil {
				t.Fatal(err)
			}
			if mod.Name != name {
				t.Errorf("module name %q, want %q", mod.Name, name)
			}
			checkGoldenFile(t, filepath.Join("testdata", "tla", name+".tla"), mod.Module)
			checkGoldenFile(t, filepath.Join("testdata", "tla", name+".cfg"), mod.Config)
		})
	}
}
