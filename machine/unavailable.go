package machine

import "errors"

// ErrUnavailable marks an action error that says something the action needs
// is unavailable (a service down, not answering within its time, after the
// action's own retries), not what the action found: such an error is not
// routed through the state's on_error. The run fails in place, in the state
// whose action failed, and resuming it runs that action again. Test with
// errors.Is; mark an error with Unavailable.
var ErrUnavailable = errors.New("unavailable")

// Unavailable marks err as ErrUnavailable, keeping its text and its chain
// (nil stays nil).
func Unavailable(err error) error {
	if err == nil {
		return nil
	}
	return &unavailableError{err}
}

type unavailableError struct{ err error }

func (e *unavailableError) Error() string        { return e.err.Error() }
func (e *unavailableError) Unwrap() error        { return e.err }
func (e *unavailableError) Is(target error) bool { return target == ErrUnavailable }
