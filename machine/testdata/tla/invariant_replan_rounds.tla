---- MODULE invariant_replan_rounds ----
\* Spec "invariant_replan_rounds" (invariant_replan_rounds.yaml), written by lppctl export --format tla with the
\* abstraction of lppctl check: what an action writes takes every value of
\* the domains below. Check it with TLC and the configuration (.cfg) printed
\* with it; docs/check.md, "TLA+ export", tells how to read it.
EXTENDS Integers, Sequences, FiniteSets, TLC

CONSTANTS
    MaxTransitions, \* limits.max_transitions: a run that makes this many transitions fails
    Nil             \* the value nil (a model value)

\* phase: "enter" when the state is entered, "act" once its action ran and
\* its set applied; steps: the transitions taken.
VARIABLES state, phase, steps, last_error, dir, rounds

vars == <<state, phase, steps, last_error, dir, rounds>>

FinalStates == {"done", "stopped"}

\* The values lppctl check gives what actions write, error texts and payloads.
Dom_dir == {"", "up", "down", "hold"}  \* enum

Init ==
    /\ state = "ask"
    /\ phase = "enter"
    /\ steps = 0
    /\ last_error = ""
    /\ dir = ""
    /\ rounds = 0

\* state ask (invariant_replan_rounds.yaml:12:3): its action pick writes dir; then its set
ask_act ==
    /\ state = "ask"
    /\ phase = "enter"
    /\ steps < MaxTransitions
    /\ \E w_dir \in Dom_dir :
        /\ phase' = "act"
        /\ dir' = w_dir
        /\ rounds' = (rounds + 1)
    /\ UNCHANGED <<state, steps, last_error>>

\* next[0] (invariant_replan_rounds.yaml:16:9): ask -> done when dir == "up"
ask_next_0 ==
    /\ state = "ask"
    /\ phase = "act"
    /\ (dir = "up")
    /\ state' = "done"
    /\ phase' = "enter"
    /\ steps' = steps + 1
    /\ last_error' = ""
    /\ UNCHANGED <<dir, rounds>>

\* next[1] (invariant_replan_rounds.yaml:17:9): ask -> ask when dir == "hold"
ask_next_1 ==
    /\ state = "ask"
    /\ phase = "act"
    /\ ~(dir = "up")
    /\ (dir = "hold")
    /\ state' = "ask"
    /\ phase' = "enter"
    /\ steps' = steps + 1
    /\ last_error' = ""
    /\ UNCHANGED <<dir, rounds>>

\* next[2] (invariant_replan_rounds.yaml:18:9): ask -> stopped when dir == "down"
ask_next_2 ==
    /\ state = "ask"
    /\ phase = "act"
    /\ ~(dir = "up")
    /\ ~(dir = "hold")
    /\ (dir = "down")
    /\ state' = "stopped"
    /\ phase' = "enter"
    /\ steps' = steps + 1
    /\ last_error' = ""
    /\ UNCHANGED <<dir, rounds>>

\* state done (invariant_replan_rounds.yaml:19:3): no action
done_act ==
    /\ state = "done"
    /\ phase = "enter"
    /\ phase' = "act"
    /\ UNCHANGED <<state, steps, last_error, dir, rounds>>

\* state stopped (invariant_replan_rounds.yaml:20:3): no action
stopped_act ==
    /\ state = "stopped"
    /\ phase = "enter"
    /\ phase' = "act"
    /\ UNCHANGED <<state, steps, last_error, dir, rounds>>

\* A run that reached a final state (and ran its action) has ended.
Done ==
    /\ state \in FinalStates
    /\ phase = "act"
    /\ UNCHANGED vars

Next ==
    \/ ask_act
    \/ ask_next_0
    \/ ask_next_1
    \/ ask_next_2
    \/ done_act
    \/ stopped_act
    \/ Done

Spec == Init /\ [][Next]_vars

\* Enums and ranges hold (a set outside them fails the run or the bounds property).
TypeOK ==
    /\ dir \in {"", "up", "down", "hold"}
    /\ rounds \in 0..5

\* The run does not exhaust max_transitions (it would fail with "transition budget exhausted").
Budget == state \notin FinalStates => steps < MaxTransitions

\* No state with next is stuck: a state with next does not wait for events, so
\* where none of its guards holds (nor the event its emit sends) a run with no
\* event pending fails, even when an event from outside could move it (a
\* deadlock for lppctl check; TLC's deadlock check sees only the states no
\* step leaves).
NotStuck ==
    /\ ~(state = "ask" /\ phase = "act" /\ ~(dir = "up") /\ ~(dir = "hold") /\ ~(dir = "down"))

\* invariant "few_rounds" (invariant_replan_rounds.yaml:9:3)
Inv_few_rounds == phase = "enter" => (rounds <= 2)

=============================================================================
