---- MODULE final_requires_map ----
\* Spec "final_requires_map" (final_requires_map.yaml), written by lppctl export --format tla with the
\* abstraction of lppctl check: what an action writes takes every value of
\* the domains below. Check it with TLC and the configuration (.cfg) printed
\* with it; docs/check.md, "TLA+ export", tells how to read it.
EXTENDS Integers, Sequences, FiniteSets, TLC

CONSTANTS
    MaxTransitions, \* limits.max_transitions: a run that makes this many transitions fails
    Nil             \* the value nil (a model value)

\* phase: "enter" when the state is entered, "act" once its action ran and
\* its set applied; steps: the transitions taken.
VARIABLES state, phase, steps, last_error, plan_error, ok

vars == <<state, phase, steps, last_error, plan_error, ok>>

FinalStates == {"done"}

\* The values lppctl check gives what actions write, error texts and payloads.
Dom_ok == BOOLEAN  \* bool

Init ==
    /\ state = "plan"
    /\ phase = "enter"
    /\ steps = 0
    /\ last_error = ""
    /\ plan_error = ""
    /\ ok = FALSE

\* state plan (final_requires_map.yaml:10:3): its action flag writes ok
plan_act ==
    /\ state = "plan"
    /\ phase = "enter"
    /\ steps < MaxTransitions
    /\ \E w_ok \in Dom_ok :
        /\ phase' = "act"
        /\ ok' = w_ok
    /\ UNCHANGED <<state, steps, last_error, plan_error>>

\* next[0] (final_requires_map.yaml:13:9): plan -> done when ok
plan_next_0 ==
    /\ state = "plan"
    /\ phase = "act"
    /\ ok
    /\ state' = "done"
    /\ phase' = "enter"
    /\ steps' = steps + 1
    /\ last_error' = ""
    /\ UNCHANGED <<plan_error, ok>>

\* next[1] (final_requires_map.yaml:14:9): plan -> done
plan_next_1 ==
    /\ state = "plan"
    /\ phase = "act"
    /\ ~ok
    /\ state' = "done"
    /\ phase' = "enter"
    /\ steps' = steps + 1
    /\ last_error' = ""
    /\ plan_error' = "no plan"
    /\ UNCHANGED <<ok>>

\* state done (final_requires_map.yaml:15:3): no action
done_act ==
    /\ state = "done"
    /\ phase = "enter"
    /\ phase' = "act"
    /\ UNCHANGED <<state, steps, last_error, plan_error, ok>>

\* A run that reached a final state (and ran its action) has ended.
Done ==
    /\ state \in FinalStates
    /\ phase = "act"
    /\ UNCHANGED vars

Next ==
    \/ plan_act
    \/ plan_next_0
    \/ plan_next_1
    \/ done_act
    \/ Done

Spec == Init /\ [][Next]_vars

\* Enums and ranges hold (a set outside them fails the run or the bounds property).
TypeOK ==
    /\ ok \in BOOLEAN

\* The run does not exhaust max_transitions (it would fail with "transition budget exhausted").
Budget == state \notin FinalStates => steps < MaxTransitions

\* final_requires "plan_ok" of state "done" (final_requires_map.yaml:18:7): checked when the run ends there
Final_done_plan_ok == state = "done" /\ phase = "act" => (plan_error = "")

=============================================================================
