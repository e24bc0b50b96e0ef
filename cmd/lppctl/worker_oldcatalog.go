//go:build lppctl_old_catalog

package main

// A build with the tag lppctl_old_catalog is an older lppctl for the
// mixed-fleet test (engine_temporal_fleet_test.go): its workers lack
// spec.check.
func init() { droppedActions = []string{"spec.check"} }
