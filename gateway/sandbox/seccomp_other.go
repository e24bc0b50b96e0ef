//go:build linux && !amd64 && !arm64

package sandbox

// seccompFilter is nil where the sandbox has no filter: Available refuses.
var seccompFilter []sockFilter
