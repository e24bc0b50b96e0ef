package check

import "syscall"

// mapPopulate asks mmap to map every page of a block at once.
const mapPopulate = syscall.MAP_POPULATE
