// Package mapfile reads the small file next to an L++ blueprint that tells
// lppctl how to run it (BLUEPRINT.lppctl.yaml for BLUEPRINT.json): the
// Python script and function of each compute unit, and the driver's events.
// It knows no blueprint: machine/lpp checks a blueprint's units against a
// Mapping (CheckUnits) and translates with it.
package mapfile
