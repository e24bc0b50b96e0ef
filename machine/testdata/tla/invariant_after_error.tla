---- MODULE invariant_after_error ----
\* Spec "invariant_after_error" (invariant_after_error.yaml), written by lppctl export --format tla with the
\* abstraction of lppctl check: what an action writes takes every value of
\* the domains below. Check it with TLC and the configuration (.cfg) printed
\* with it; docs/check.md, "TLA+ export", tells how to read it.
EXTENDS Integers, Sequences, FiniteSets, TLC

CONSTANTS
    MaxTransitions, \* limits.max_transitions: a run that makes this many transitions fails
    Nil             \* the value nil (a model value)

\* phase: "enter" when the state is entered, "act" once its action ran and
\* its set applied; steps: the transitions taken.
VARIABLES state, phase, steps, last_error

vars == <<state, phase, steps, last_error>>

FinalStates == {"done"}

\* The values lppctl check gives what actions write, error texts and payloads.
ErrorValues == {"error"}  \* last_error of a failed action

Init ==
    /\ state = "send"
    /\ phase = "enter"
    /\ steps = 0
    /\ last_error = ""

\* state send (invariant_after_error.yaml:9:3): its action call writes nothing
send_act ==
    /\ state = "send"
    /\ phase = "enter"
    /\ steps < MaxTransitions
    /\ phase' = "act"
    /\ UNCHANGED <<state, steps, last_error>>

\* on_error of send (invariant_after_error.yaml:12:15): its action fails
send_on_error ==
    /\ state = "send"
    /\ phase = "enter"
    /\ steps < MaxTransitions
    /\ \E err \in ErrorValues :
        /\ state' = "report"
        /\ phase' = "enter"
        /\ steps' = steps + 1
        /\ last_error' = err

\* next[0] (invariant_after_error.yaml:11:12): send -> report
send_next_0 ==
    /\ state = "send"
    /\ phase = "act"
    /\ state' = "report"
    /\ phase' = "enter"
    /\ steps' = steps + 1
    /\ last_error' = ""

\* state report (invariant_after_error.yaml:13:3): no action
report_act ==
    /\ state = "report"
    /\ phase = "enter"
    /\ steps < MaxTransitions
    /\ phase' = "act"
    /\ UNCHANGED <<state, steps, last_error>>

\* next[0] (invariant_after_error.yaml:14:12): report -> done
report_next_0 ==
    /\ state = "report"
    /\ phase = "act"
    /\ state' = "done"
    /\ phase' = "enter"
    /\ steps' = steps + 1
    /\ last_error' = ""

\* state done (invariant_after_error.yaml:15:3): no action
done_act ==
    /\ state = "done"
    /\ phase = "enter"
    /\ phase' = "act"
    /\ UNCHANGED <<state, steps, last_error>>

\* A run that reached a final state (and ran its action) has ended.
Done ==
    /\ state \in FinalStates
    /\ phase = "act"
    /\ UNCHANGED vars

Next ==
    \/ send_act
    \/ send_on_error
    \/ send_next_0
    \/ report_act
    \/ report_next_0
    \/ done_act
    \/ Done

Spec == Init /\ [][Next]_vars

\* The run does not exhaust max_transitions (it would fail with "transition budget exhausted").
Budget == state \notin FinalStates => steps < MaxTransitions

\* invariant "no_pending_error" (invariant_after_error.yaml:6:3)
Inv_no_pending_error == phase = "enter" /\ state \in {"report"} => (last_error = "")

=============================================================================
