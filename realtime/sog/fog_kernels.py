"""numba kernels of general Student of Games: public-tree CFR over information-state slots.

They know no game: everything comes through the bundle ``F`` of
:attr:`realtime.sog.fog.PublicStates.kernel_bundle` (public-state kinds and children,
each slot's parent slot and the action its player took, the actor's policy offsets,
and the terminal nodes' slots, chance reaches and payoffs).

Vectors are indexed by slot: ``R0``/``R1`` reaches, ``V0``/``V1`` counterfactual values,
``Q`` the actor's action values (one entry per policy entry). ``states`` lists the
public states a pass visits, parents before children; ``expanded[p]`` says whether
``p``'s children are part of the tree (a non-terminal public state that is not expanded is a
leaf whose values are set before the value pass); ``in_tree[p]`` whether ``p`` itself is;
``allowed[e]`` whether policy entry ``e`` may be played (every entry, except in
perfect-information searches that add actions one at a time).
"""

from __future__ import annotations

from numba import njit

from pokerbot.efg.game import TERMINAL


@njit(cache=True)
def reach_pass(states, root, F, strat, R0, R1):
    """Reaches of every slot of ``states`` (but the root's, which are set) from their parents'."""
    kind, parent, cs, cl, ss0, ss1, ps0, ps1, act0, act1, ao0, ao1, na0, na1, ts, t0, t1, tc, tu0, tu1 = F
    for p in states:
        if p == root:
            continue
        q = parent[p]
        actor = kind[q]
        for s in range(ss0[p], ss0[p + 1]):
            r = R0[ps0[s]]
            if actor == 0:
                r *= strat[ao0[ps0[s]] + act0[s]]
            R0[s] = r
        for s in range(ss1[p], ss1[p + 1]):
            r = R1[ps1[s]]
            if actor == 1:
                r *= strat[ao1[ps1[s]] + act1[s]]
            R1[s] = r


@njit(cache=True)
def value_pass(states, expanded, in_tree, F, strat, regret, ssum, allowed, weight, update, R0, R1, V0, V1, Q, A0, A1):
    """Counterfactual values bottom-up (terminal values exact, leaves preset). With ``update``, the
    actor's regret-matching+ regrets gain ``Q - v`` and its strategy sum ``weight * A * strategy``
    (``A0``/``A1``: the reaches that weight the average, usually ``R0``/``R1``)."""
    kind, parent, cs, cl, ss0, ss1, ps0, ps1, act0, act1, ao0, ao1, na0, na1, ts, t0, t1, tc, tu0, tu1 = F
    for i in range(states.shape[0] - 1, -1, -1):
        p = states[i]
        k = kind[p]
        if k == TERMINAL:
            for s in range(ss0[p], ss0[p + 1]):
                V0[s] = 0.0
            for s in range(ss1[p], ss1[p + 1]):
                V1[s] = 0.0
            for z in range(ts[p], ts[p + 1]):
                V0[t0[z]] += tc[z] * R1[t1[z]] * tu0[z]
                V1[t1[z]] += tc[z] * R0[t0[z]] * tu1[z]
            continue
        if not expanded[p]:
            continue
        for s in range(ss0[p], ss0[p + 1]):
            V0[s] = 0.0
            if k == 0:
                for e in range(ao0[s], ao0[s] + na0[s]):
                    Q[e] = 0.0
        for s in range(ss1[p], ss1[p + 1]):
            V1[s] = 0.0
            if k == 1:
                for e in range(ao1[s], ao1[s] + na1[s]):
                    Q[e] = 0.0
        for j in range(cs[p], cs[p + 1]):
            c = cl[j]
            if not in_tree[c]:
                continue
            for s in range(ss0[c], ss0[c + 1]):
                if k == 0:
                    Q[ao0[ps0[s]] + act0[s]] += V0[s]
                else:
                    V0[ps0[s]] += V0[s]
            for s in range(ss1[c], ss1[c + 1]):
                if k == 1:
                    Q[ao1[ps1[s]] + act1[s]] += V1[s]
                else:
                    V1[ps1[s]] += V1[s]
        if k == 0:
            _decide(ss0[p], ss0[p + 1], ao0, na0, strat, regret, ssum, allowed, weight, update, A0, V0, Q)
        elif k == 1:
            _decide(ss1[p], ss1[p + 1], ao1, na1, strat, regret, ssum, allowed, weight, update, A1, V1, Q)


@njit(cache=True)
def _decide(lo, hi, ao, na, strat, regret, ssum, allowed, weight, update, R, V, Q):
    for s in range(lo, hi):
        v = 0.0
        for e in range(ao[s], ao[s] + na[s]):
            v += strat[e] * Q[e]
        V[s] = v
        if update:
            for e in range(ao[s], ao[s] + na[s]):
                if allowed[e]:
                    r = regret[e] + Q[e] - v
                    regret[e] = r if r > 0.0 else 0.0
                ssum[e] += weight * R[s] * strat[e]


@njit(cache=True)
def _actor(F, p):
    """The actor's slots ``lo .. hi - 1`` of decision state ``p`` and its policy offsets and action counts."""
    kind, parent, cs, cl, ss0, ss1, ps0, ps1, act0, act1, ao0, ao1, na0, na1, ts, t0, t1, tc, tu0, tu1 = F
    if kind[p] == 0:
        return ss0[p], ss0[p + 1], ao0, na0
    return ss1[p], ss1[p + 1], ao1, na1


@njit(cache=True)
def regret_match(states, expanded, F, regret, allowed, strat):
    """Current strategy of every expanded decision of ``states`` from its regrets (uniform over
    the allowed actions where no regret is positive)."""
    kind, parent, cs, cl, ss0, ss1, ps0, ps1, act0, act1, ao0, ao1, na0, na1, ts, t0, t1, tc, tu0, tu1 = F
    for p in states:
        k = kind[p]
        if not expanded[p] or (k != 0 and k != 1):
            continue
        lo, hi, ao, na = _actor(F, p)
        for s in range(lo, hi):
            total = 0.0
            count = 0
            for e in range(ao[s], ao[s] + na[s]):
                if allowed[e]:
                    count += 1
                    if regret[e] > 0.0:
                        total += regret[e]
            for e in range(ao[s], ao[s] + na[s]):
                if not allowed[e]:
                    strat[e] = 0.0
                elif total > 0.0:
                    strat[e] = regret[e] / total if regret[e] > 0.0 else 0.0
                else:
                    strat[e] = 1.0 / count


@njit(cache=True)
def average_into(states, expanded, F, ssum, allowed, out):
    """The normalised strategy sums of every expanded decision of ``states`` (uniform over the
    allowed actions where the sum is zero)."""
    kind, parent, cs, cl, ss0, ss1, ps0, ps1, act0, act1, ao0, ao1, na0, na1, ts, t0, t1, tc, tu0, tu1 = F
    for p in states:
        k = kind[p]
        if not expanded[p] or (k != 0 and k != 1):
            continue
        lo, hi, ao, na = _actor(F, p)
        for s in range(lo, hi):
            total = 0.0
            count = 0
            for e in range(ao[s], ao[s] + na[s]):
                if allowed[e]:
                    total += ssum[e]
                    count += 1
            for e in range(ao[s], ao[s] + na[s]):
                if not allowed[e]:
                    out[e] = 0.0
                elif total > 0.0:
                    out[e] = ssum[e] / total
                else:
                    out[e] = 1.0 / count


@njit(cache=True)
def solve(states, root, iterations, F, strat, regret, ssum, allowed, expanded, in_tree, R0, R1, V0, V1, Q, avg, A0, A1):
    """``iterations`` of CFR+ (regret-matching+, linear averaging, simultaneous updates) on a whole
    subtree (no leaves) from the root reaches in ``R0``/``R1``; leaves the average strategy in
    ``avg`` and its values in ``V0``/``V1``. The average is weighted by each player's own reach
    from a root of ones (``A0``/``A1``, work), so information states the root ranges exclude
    still get a near-equilibrium policy and values."""
    kind, parent, cs, cl, ss0, ss1, ps0, ps1, act0, act1, ao0, ao1, na0, na1, ts, t0, t1, tc, tu0, tu1 = F
    for p in states:
        k = kind[p]
        if k == 0 or k == 1:
            lo, hi, ao, na = _actor(F, p)
            for s in range(lo, hi):
                for e in range(ao[s], ao[s] + na[s]):
                    regret[e] = 0.0
                    ssum[e] = 0.0
    regret_match(states, expanded, F, regret, allowed, strat)
    for s in range(ss0[root], ss0[root + 1]):
        A0[s] = 1.0
    for s in range(ss1[root], ss1[root + 1]):
        A1[s] = 1.0
    for t in range(1, iterations + 1):
        reach_pass(states, root, F, strat, R0, R1)
        reach_pass(states, root, F, strat, A0, A1)
        value_pass(states, expanded, in_tree, F, strat, regret, ssum, allowed, float(t), True, R0, R1, V0, V1, Q, A0, A1)
        regret_match(states, expanded, F, regret, allowed, strat)
    average_into(states, expanded, F, ssum, allowed, avg)
    reach_pass(states, root, F, avg, R0, R1)
    value_pass(states, expanded, in_tree, F, avg, regret, ssum, allowed, 0.0, False, R0, R1, V0, V1, Q, A0, A1)
