//go:build linux

package sandbox

// seccompFilter for arm64 (AUDIT_ARCH_AARCH64; no fork or vfork, clone 220, clone3 435).
var seccompFilter = buildFilter(0xc00000b7, -1, -1, 220, 435, false)
