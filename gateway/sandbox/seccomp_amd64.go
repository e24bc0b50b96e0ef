//go:build linux

package sandbox

// seccompFilter for x86-64 (AUDIT_ARCH_X86_64; fork 57, vfork 58, clone 56, clone3 435).
var seccompFilter = buildFilter(0xc000003e, 57, 58, 56, 435, true)
