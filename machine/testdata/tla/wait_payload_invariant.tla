---- MODULE wait_payload_invariant ----
\* Spec "wait_payload_invariant" (wait_payload_invariant.yaml), written by lppctl export --format tla with the
\* abstraction of lppctl check: what an action writes takes every value of
\* the domains below. Check it with TLC and the configuration (.cfg) printed
\* with it; docs/check.md, "TLA+ export", tells how to read it.
EXTENDS Integers, Sequences, FiniteSets, TLC

CONSTANTS
    MaxTransitions, \* limits.max_transitions: a run that makes this many transitions fails
    Nil             \* the value nil (a model value)

\* phase: "enter" when the state is entered, "act" once its action ran and
\* its set applied; steps: the transitions taken.
VARIABLES state, phase, steps, last_error, level

vars == <<state, phase, steps, last_error, level>>

FinalStates == {"done"}

\* The values lppctl check gives what actions write, error texts and payloads.
Payloads_SET == {[level |-> 0], [level |-> 2], [level |-> 3], [level |-> 4], [level |-> 9], [level |-> 10], [level |-> 11]}

Init ==
    /\ state = "ask"
    /\ phase = "enter"
    /\ steps = 0
    /\ last_error = ""
    /\ level = 0

\* state ask (wait_payload_invariant.yaml:11:3): no action
ask_act ==
    /\ state = "ask"
    /\ phase = "enter"
    /\ steps < MaxTransitions
    /\ phase' = "act"
    /\ UNCHANGED <<state, steps, last_error, level>>

\* on SET[0] (wait_payload_invariant.yaml:14:11): ask -> done when event.payload.level != 3
ask_SET_0 ==
    /\ state = "ask"
    /\ phase = "act"
    /\ \E payload \in Payloads_SET :
        /\ (payload.level # 3)
        /\ state' = "done"
        /\ phase' = "enter"
        /\ steps' = steps + 1
        /\ last_error' = ""
        /\ level' = payload.level

\* state done (wait_payload_invariant.yaml:15:3): no action
done_act ==
    /\ state = "done"
    /\ phase = "enter"
    /\ phase' = "act"
    /\ UNCHANGED <<state, steps, last_error, level>>

\* A run that reached a final state (and ran its action) has ended.
Done ==
    /\ state \in FinalStates
    /\ phase = "act"
    /\ UNCHANGED vars

Next ==
    \/ ask_act
    \/ ask_SET_0
    \/ done_act
    \/ Done

Spec == Init /\ [][Next]_vars

\* The run does not exhaust max_transitions (it would fail with "transition budget exhausted").
Budget == state \notin FinalStates => steps < MaxTransitions

\* invariant "level_small" (wait_payload_invariant.yaml:8:3)
Inv_level_small == phase = "enter" => (level < 10)

=============================================================================
