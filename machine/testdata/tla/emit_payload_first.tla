---- MODULE emit_payload_first ----
\* Spec "emit_payload_first" (emit_payload_first.yaml), written by lppctl export --format tla with the
\* abstraction of lppctl check: what an action writes takes every value of
\* the domains below. Check it with TLC and the configuration (.cfg) printed
\* with it; docs/check.md, "TLA+ export", tells how to read it.
EXTENDS Integers, Sequences, FiniteSets, TLC

CONSTANTS
    MaxTransitions, \* limits.max_transitions: a run that makes this many transitions fails
    Nil             \* the value nil (a model value)

\* phase: "enter" when the state is entered, "act" once its action ran and
\* its set applied; steps: the transitions taken.
VARIABLES state, phase, steps, last_error, n, got, emitted

vars == <<state, phase, steps, last_error, n, got, emitted>>

FinalStates == {"done"}

\* The values lppctl check gives what actions write, error texts and payloads.
Dom_n == 0..3  \* range
Payloads_GO == {[v |-> 0, tag |-> "x", note |-> ""], [v |-> 1, tag |-> "x", note |-> ""], [v |-> 2, tag |-> "x", note |-> ""], [v |-> 3, tag |-> "x", note |-> ""], [v |-> 4, tag |-> "x", note |-> ""], [v |-> 0, tag |-> "y", note |-> ""], [v |-> 1, tag |-> "y", note |-> ""], [v |-> 2, tag |-> "y", note |-> ""], [v |-> 3, tag |-> "y", note |-> ""], [v |-> 4, tag |-> "y", note |-> ""], [v |-> 0, tag |-> "x", note |-> "-"], [v |-> 1, tag |-> "x", note |-> "-"], [v |-> 2, tag |-> "x", note |-> "-"], [v |-> 3, tag |-> "x", note |-> "-"], [v |-> 4, tag |-> "x", note |-> "-"], [v |-> 0, tag |-> "y", note |-> "-"], [v |-> 1, tag |-> "y", note |-> "-"], [v |-> 2, tag |-> "y", note |-> "-"], [v |-> 3, tag |-> "y", note |-> "-"], [v |-> 4, tag |-> "y", note |-> "-"], [v |-> 0, tag |-> "x", note |-> "other"], [v |-> 1, tag |-> "x", note |-> "other"], [v |-> 2, tag |-> "x", note |-> "other"], [v |-> 3, tag |-> "x", note |-> "other"], [v |-> 4, tag |-> "x", note |-> "other"], [v |-> 0, tag |-> "y", note |-> "other"], [v |-> 1, tag |-> "y", note |-> "other"], [v |-> 2, tag |-> "y", note |-> "other"], [v |-> 3, tag |-> "y", note |-> "other"], [v |-> 4, tag |-> "y", note |-> "other"]}

Init ==
    /\ state = "a"
    /\ phase = "enter"
    /\ steps = 0
    /\ last_error = ""
    /\ n = 0
    /\ got = 0
    /\ emitted = Nil

\* state a (emit_payload_first.yaml:17:3): its action count writes n
a_act ==
    /\ state = "a"
    /\ phase = "enter"
    /\ steps < MaxTransitions
    /\ \E w_n \in Dom_n :
        /\ phase' = "act"
        /\ n' = w_n
    /\ UNCHANGED <<state, steps, last_error, got, emitted>>

\* next[0] (emit_payload_first.yaml:19:11): a -> b
a_next_0 ==
    /\ state = "a"
    /\ phase = "act"
    /\ state' = "b"
    /\ phase' = "enter"
    /\ steps' = steps + 1
    /\ last_error' = ""
    /\ emitted' = Nil
    /\ UNCHANGED <<n, got>>

\* state b (emit_payload_first.yaml:20:3): its action emit writes nothing; it emits GO with the payload emitted
b_act ==
    /\ state = "b"
    /\ phase = "enter"
    /\ steps < MaxTransitions
    /\ phase' = "act"
    /\ emitted' = [v |-> (n + 1), tag |-> "x", note |-> "-"]
    /\ UNCHANGED <<state, steps, last_error, n, got>>

\* on GO[0], emitted (emit_payload_first.yaml:24:12): b -> c when event.payload.v > 1
b_emits_GO_0 ==
    /\ state = "b"
    /\ phase = "act"
    /\ (emitted.v > 1)
    /\ state' = "c"
    /\ phase' = "enter"
    /\ steps' = steps + 1
    /\ last_error' = ""
    /\ got' = emitted.v
    /\ emitted' = Nil
    /\ UNCHANGED <<n>>

\* on GO[0] (emit_payload_first.yaml:24:12): b -> c when event.payload.v > 1
b_GO_0 ==
    /\ state = "b"
    /\ phase = "act"
    /\ ~(emitted.v > 1)
    /\ \E payload \in Payloads_GO :
        /\ (payload.v > 1)
        /\ state' = "c"
        /\ phase' = "enter"
        /\ steps' = steps + 1
        /\ last_error' = ""
        /\ got' = payload.v
        /\ emitted' = Nil
    /\ UNCHANGED <<n>>

\* next[0] (emit_payload_first.yaml:25:11): b -> done
b_next_0 ==
    /\ state = "b"
    /\ phase = "act"
    /\ ~(emitted.v > 1)
    /\ state' = "done"
    /\ phase' = "enter"
    /\ steps' = steps + 1
    /\ last_error' = ""
    /\ emitted' = Nil
    /\ UNCHANGED <<n, got>>

\* state c (emit_payload_first.yaml:26:3): no action
c_act ==
    /\ state = "c"
    /\ phase = "enter"
    /\ steps < MaxTransitions
    /\ phase' = "act"
    /\ UNCHANGED <<state, steps, last_error, n, got, emitted>>

\* next[0] (emit_payload_first.yaml:27:12): c -> done when got != 3
c_next_0 ==
    /\ state = "c"
    /\ phase = "act"
    /\ (got # 3)
    /\ state' = "done"
    /\ phase' = "enter"
    /\ steps' = steps + 1
    /\ last_error' = ""
    /\ emitted' = Nil
    /\ UNCHANGED <<n, got>>

\* state done (emit_payload_first.yaml:28:3): no action
done_act ==
    /\ state = "done"
    /\ phase = "enter"
    /\ phase' = "act"
    /\ UNCHANGED <<state, steps, last_error, n, got, emitted>>

\* A run that reached a final state (and ran its action) has ended.
Done ==
    /\ state \in FinalStates
    /\ phase = "act"
    /\ UNCHANGED vars

Next ==
    \/ a_act
    \/ a_next_0
    \/ b_act
    \/ b_emits_GO_0
    \/ b_GO_0
    \/ b_next_0
    \/ c_act
    \/ c_next_0
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
    /\ ~(state = "c" /\ phase = "act" /\ ~(got # 3))

=============================================================================
