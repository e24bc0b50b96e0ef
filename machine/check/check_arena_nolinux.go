//go:build unix && !linux

package check

// mapPopulate: no MAP_POPULATE here; pages are mapped as they are touched.
const mapPopulate = 0
