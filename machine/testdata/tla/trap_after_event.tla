---- MODULE trap_after_event ----
\* Spec "trap_after_event" (trap_after_event.yaml), written by lppctl export --format tla with the
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
Dom_n == 0..2  \* range

Init ==
    /\ state = "work"
    /\ phase = "enter"
    /\ steps = 0
    /\ last_error = ""
    /\ n = 0

\* state work (trap_after_event.yaml:9:3): its action count writes n
work_act ==
    /\ state = "work"
    /\ phase = "enter"
    /\ steps < MaxTransitions
    /\ \E w_n \in Dom_n :
        /\ phase' = "act"
        /\ n' = w_n
    /\ UNCHANGED <<state, steps, last_error>>

\* event LOOP (trap_after_event.yaml:19:10): work -> spin
work_LOOP_0 ==
    /\ state = "work"
    /\ phase = "act"
    /\ state' = "spin"
    /\ phase' = "enter"
    /\ steps' = steps + 1
    /\ last_error' = ""
    /\ UNCHANGED <<n>>

\* next[0] (trap_after_event.yaml:11:12): work -> done
work_next_0 ==
    /\ state = "work"
    /\ phase = "act"
    /\ state' = "done"
    /\ phase' = "enter"
    /\ steps' = steps + 1
    /\ last_error' = ""
    /\ UNCHANGED <<n>>

\* state spin (trap_after_event.yaml:12:3): its action count writes n
spin_act ==
    /\ state = "spin"
    /\ phase = "enter"
    /\ steps < MaxTransitions
    /\ \E w_n \in Dom_n :
        /\ phase' = "act"
        /\ n' = w_n
    /\ UNCHANGED <<state, steps, last_error>>

\* next[0] (trap_after_event.yaml:15:9): spin -> done when n > 2
spin_next_0 ==
    /\ state = "spin"
    /\ phase = "act"
    /\ (n > 2)
    /\ state' = "done"
    /\ phase' = "enter"
    /\ steps' = steps + 1
    /\ last_error' = ""
    /\ UNCHANGED <<n>>

\* next[1] (trap_after_event.yaml:16:9): spin -> spin
spin_next_1 ==
    /\ state = "spin"
    /\ phase = "act"
    /\ ~(n > 2)
    /\ state' = "spin"
    /\ phase' = "enter"
    /\ steps' = steps + 1
    /\ last_error' = ""
    /\ UNCHANGED <<n>>

\* state done (trap_after_event.yaml:17:3): no action
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
    \/ work_act
    \/ work_LOOP_0
    \/ work_next_0
    \/ spin_act
    \/ spin_next_0
    \/ spin_next_1
    \/ done_act
    \/ Done

Spec == Init /\ [][Next]_vars

\* Enums and ranges hold (a set outside them fails the run or the bounds property).
TypeOK ==
    /\ n \in 0..2

\* The run does not exhaust max_transitions (it would fail with "transition budget exhausted").
Budget == state \notin FinalStates => steps < MaxTransitions

=============================================================================
