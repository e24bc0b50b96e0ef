package gateway

import "syscall"

// setParentDeathSignal has the kernel kill the script when lppctl dies (a
// kill -9 of the run): a resumed run re-runs the interrupted step, and an
// orphaned script must not go on writing beside it.
func setParentDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
