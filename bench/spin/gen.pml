/*
 * The transition system of gen-*.yaml (see README.md): S states s0..s{S-1}
 * (S = N - 1, the non-final ones) and K counters in [0, TOP]. One d_step per
 * outcome of s_i's action `pick` (dir = up, down, hold), each running s_i's
 * next list in order: the first transition whose guard holds fires.
 * pc == S is the final state done; `break` ends the process there.
 *
 *   spin -DS=61 -DK=7 -a gen.pml          (the 1e6 model: 61 x 4^7 + 1 pairs)
 *   spin -DS=24 -DK=6 -a gen.pml          (the 1e5 model: 24 x 4^6 + 1 pairs)
 *   add -DSEED=1: the seeded deadlock (gen-*-deadlock.yaml)
 */
#ifndef TOP
#define TOP 3
#endif
#ifndef SEED
#define SEED 0
#endif

byte pc;
byte c[K];

/* the sum of the counters, spelled out (Promela has no loops in expressions) */
#define SUMALL (c[0] + c[1] + c[2] + c[3] + c[4] + c[5] + SUM6)
#if K == 7
#define SUM6 c[6]
#else
#define SUM6 0
#endif

#define UP (pc % K)
#define DOWN ((pc + 1) % K)
/* the seeded deadlock: in s{S/2}, nothing fires while c[0] == TOP && c[1] == 0 */
#define BLOCKED (SEED && pc == S / 2 && c[0] == TOP && c[1] == 0)

active proctype gen() {
	do
	:: d_step { pc < S && !BLOCKED ->       /* dir = up */
		if
		:: SUMALL == TOP * K -> pc = S; c[0] = 0; c[1] = 0; c[2] = 0; c[3] = 0; c[4] = 0; c[5] = 0; c[K - 1] = 0
		:: else ->
			if
			:: c[UP] < TOP -> c[UP]++
			:: else -> skip
			fi;
			pc = (pc + 1) % S
		fi }
	:: d_step { pc < S && !BLOCKED ->       /* dir = down */
		if
		:: SUMALL == TOP * K -> pc = S; c[0] = 0; c[1] = 0; c[2] = 0; c[3] = 0; c[4] = 0; c[5] = 0; c[K - 1] = 0
		:: c[DOWN] > 0 && SUMALL != TOP * K -> c[DOWN]--; pc = (pc + 3) % S
		:: else -> pc = (pc + 1) % S
		fi }
	:: d_step { pc < S && !BLOCKED ->       /* dir = hold */
		if
		:: SUMALL == TOP * K -> pc = S; c[0] = 0; c[1] = 0; c[2] = 0; c[3] = 0; c[4] = 0; c[5] = 0; c[K - 1] = 0
		:: else -> pc = (pc + 1) % S
		fi }
	:: pc == S -> break
	od
}
