package lpp

import (
	"regexp"

	mspec "github.com/lppctl/lppctl/machine/spec"
)

// driverWaitRE reads the note of a twin S__wait (waitingState): the state
// the run waits in after the driver's event found no transition of S.
var driverWaitRE = regexp.MustCompile(`^` + genDoc + `(\S+) waiting for an event \(no (\S+) transition passed\)$`)

// DriverEventFailed reports whether state of a translated blueprint is
// where the run waits after the driver fired event on entering a
// blueprint state and none of its transitions passed, and that state (the
// spec's name). The twin lists the driver's event again only when its
// gates read the payload; else sending it again finds no transition
// either (the context has not changed since), and the caller says so.
func DriverEventFailed(spec *mspec.Spec, state, event string) (string, bool) {
	st := spec.State(state)
	if st == nil {
		return "", false
	}
	m := driverWaitRE.FindStringSubmatch(st.Note)
	if m == nil || m[2] != event {
		return "", false
	}
	return m[1], true
}
