---- MODULE deadlock_counter_value ----
\* Spec "deadlock_counter_value" (deadlock_counter_value.yaml), written by lppctl export --format tla with the
\* abstraction of lppctl check: what an action writes takes every value of
\* the domains below. Check it with TLC and the configuration (.cfg) printed
\* with it; docs/check.md, "TLA+ export", tells how to read it.
EXTENDS Integers, Sequences, FiniteSets, TLC

CONSTANTS
    MaxTransitions, \* limits.max_transitions: a run that makes this many transitions fails
    Nil             \* the value nil (a model value)

\* phase: "enter" when the state is entered, "act" once its action ran and
\* its set applied; steps: the transitions taken.
VARIABLES state, phase, steps, last_error, n

vars == <<state, phase, steps, last_error, n>>

FinalStates == {"done"}

\* The values lppctl check gives what actions write, error texts and payloads.
Dom_n == 0..3  \* range

Init ==
    /\ state = "measure"
    /\ phase = "enter"
    /\ steps = 0
    /\ last_error = ""
    /\ n = 0

\* state measure (deadlock_counter_value.yaml:9:3): its action count writes n
measure_act ==
    /\ state = "measure"
    /\ phase = "enter"
    /\ steps < MaxTransitions
    /\ \E w_n \in Dom_n :
        /\ phase' = "act"
        /\ n' = w_n
    /\ UNCHANGED <<state, steps, last_error>>

\* next[0] (deadlock_counter_value.yaml:12:9): measure -> route
measure_next_0 ==
    /\ state = "measure"
    /\ phase = "act"
    /\ state' = "route"
    /\ phase' = "enter"
    /\ steps' = steps + 1
    /\ last_error' = ""
    /\ UNCHANGED <<n>>

\* state route (deadlock_counter_value.yaml:13:3): no action
route_act ==
    /\ state = "route"
    /\ phase = "enter"
    /\ steps < MaxTransitions
    /\ phase' = "act"
    /\ UNCHANGED <<state, steps, last_error, n>>

\* next[0] (deadlock_counter_value.yaml:15:9): route -> done when n < 2
route_next_0 ==
    /\ state = "route"
    /\ phase = "act"
    /\ (n < 2)
    /\ state' = "done"
    /\ phase' = "enter"
    /\ steps' = steps + 1
    /\ last_error' = ""
    /\ UNCHANGED <<n>>

\* next[1] (deadlock_counter_value.yaml:16:9): route -> done when n > 2
route_next_1 ==
    /\ state = "route"
    /\ phase = "act"
    /\ ~(n < 2)
    /\ (n > 2)
    /\ state' = "done"
    /\ phase' = "enter"
    /\ steps' = steps + 1
    /\ last_error' = ""
    /\ UNCHANGED <<n>>

\* state done (deadlock_counter_value.yaml:17:3): no action
done_act ==
    /\ state = "done"
    /\ phase = "enter"
    /\ phase' = "act"
    /\ UNCHANGED <<state, steps, last_error, n>>

\* A run that reached a final state (and ran its action) has ended.
Done ==
    /\ state \in FinalStates
    /\ phase = "act"
    /\ UNCHANGED vars

Next ==
    \/ measure_act
    \/ measure_next_0
    \/ route_act
    \/ route_next_0
    \/ route_next_1
    \/ done_act
    \/ Done

Spec == Init /\ [][Next]_vars

\* Enums and ranges hold (a set outside them fails the run or the bounds property).
TypeOK ==
    /\ n \in 0..3

\* The run does not exhaust max_transitions (it would fail with "transition budget exhausted").
Budget == state \notin FinalStates => steps < MaxTransitions

\* No state with next is stuck: a state with next does not wait for events, so
\* where none of its guards holds (nor the event its emit sends) a run with no
\* event pending fails, even when an event from outside could move it (a
\* deadlock for lppctl check; TLC's deadlock check sees only the states no
\* step leaves).
NotStuck ==
    /\ ~(state = "route" /\ phase = "act" /\ ~(n < 2) /\ ~(n > 2))

=============================================================================
