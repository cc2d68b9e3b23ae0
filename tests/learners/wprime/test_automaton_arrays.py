"""The automaton W′ on arrays (issue 22): compiled minimisation, walk programs, the same optimum.

Oracles: the previous implementations, rebuilt here from what they were made of (the numpy
minimisation :func:`merge_equivalent` and path numbering, the pattern-by-pattern
intersection :func:`epoch_automaton` over the whole augmented rows, and the walk of Φ′_i at
every step, :func:`epoch_automaton_walk`), lexicographic ranks by brute force, and the trie
representation.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit.automata import kernels
from ratkit.learners import RationalSVC
from ratkit.learners.dcd import active_gram as ag
from ratkit.learners.dcd._solver import solve
from ratkit.learners.dcd.epochs import inverse_diagonal
from ratkit.learners.dcd.rows import csr_arrays
from ratkit.learners.wprime import PatternTrie
from ratkit.learners.wprime._automaton import AutomatonWPrime, PatternAutomaton, merge_equivalent
from ratkit.learners.wprime._automaton_arrays import minimal_dfa
from ratkit.learners.wprime._patterns import code_labels, sorted_lcp
from ratkit.learners.wprime._protocol import TrainingSet, primal_inputs

from ._automaton_reference import WalkRows, epoch_automaton, epoch_automaton_walk


def _strings(seed: int, n: int, alphabet: str = "abc", lo: int = 3, hi: int = 14) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(lo, hi))) for _ in range(n)]


def _old_from_trie(trie: PatternTrie):
    """The previous PatternAutomaton.from_trie: numpy merge of equal futures, paths numbered
    in Python. Returns (start, arc_off, arc_lab, arc_dst, arc_inc, final, n_paths)."""
    live = np.ones(trie.n_states, dtype=bool)
    node_cls, n_states, _ = merge_equivalent(trie, live, trie.final.astype(np.float64), np.ones(trie.n_states))
    rep = np.full(n_states, -1, dtype=np.int64)
    rep[node_cls[::-1]] = np.arange(trie.n_states)[::-1]
    deg = trie.n_children[rep]
    arc_off = np.zeros(n_states + 1, dtype=np.int64)
    np.cumsum(deg, out=arc_off[1:])
    kids = trie.children[
        np.repeat(trie.child_offsets[rep], deg) + (np.arange(arc_off[-1]) - np.repeat(arc_off[:-1], deg))
    ]
    arc_lab, arc_dst, final = trie.label[kids], node_cls[kids], trie.final[rep]
    count = np.zeros(n_states, dtype=np.int64)
    inc = np.zeros(arc_dst.shape[0], dtype=np.int64)
    for q in range(n_states):
        c = int(final[q])
        for a in range(arc_off[q], arc_off[q + 1]):
            inc[a] = c
            c += count[arc_dst[a]]
        count[q] = c
    start = int(node_cls[0])
    return start, arc_off, arc_lab, arc_dst, inc, final, int(count[start])


def _language(start, arc_off, arc_lab, arc_dst, arc_inc, final):
    """Every accepted string with the number its path sums to, by depth-first search."""
    out, stack = {}, [(start, (), 0)]
    while stack:
        q, z, s = stack.pop()
        if final[q]:
            out[z] = s
        for a in range(arc_off[q], arc_off[q + 1]):
            stack.append((int(arc_dst[a]), z + (int(arc_lab[a]),), s + int(arc_inc[a])))
    return out


@pytest.mark.parametrize("seed", range(60))
def test_compiled_minimal_dfa_matches_the_previous_construction(seed):
    rng = random.Random(seed)
    L = rng.randint(1, 4)
    pats = sorted({tuple(rng.randint(1, L) for _ in range(rng.randint(0, 5))) for _ in range(rng.randint(1, 30))})
    base = L + 1
    codes = np.array([sum(d * base ** (len(p) - 1 - k) for k, d in enumerate(p)) for p in pats], dtype=np.int64)
    trie = PatternTrie.from_codes(codes, base)
    new, old = minimal_dfa(trie), _old_from_trie(trie)
    assert new[-1] == old[-1] == len(pats)
    assert (new[5].shape[0], new[2].shape[0]) == (old[5].shape[0], old[2].shape[0])  # states, arcs
    lang_new, lang_old = _language(*new[:6]), _language(*old[:6])
    assert lang_new == lang_old == {p: r for r, p in enumerate(pats)}  # lexicographic ranks
    # the walk programs reach the same path numbers, with or without shared prefixes
    aut = PatternAutomaton.from_trie(trie)
    order = np.array(rng.sample(range(len(pats)), len(pats)), dtype=np.int64)
    rows = WalkRows.from_csr(np.array([0, len(pats)]), order, np.ones(len(pats)), codes, base, fold_own=False)
    assert rows.slots(aut.arrays).tolist() == order.tolist()


def test_walk_rejects_patterns_outside_the_automaton():
    base = 3
    trie = PatternTrie.from_codes(np.array([1 * 3 + 2, 2 * 3 + 2]), base)  # ab, bb
    aut = PatternAutomaton.from_trie(trie)
    codes = np.array([1 * 3 + 2, 1 * 3 + 1, 2, 2 * 3 + 2])  # ab, aa, b, bb
    rows = WalkRows.from_csr(np.array([0, 4]), np.arange(4), np.ones(4), codes, base, fold_own=False)
    assert rows.slots(aut.arrays).tolist() == [0, -1, -1, 1]


def _old_epoch(data: TrainingSet, aut: PatternAutomaton, y, qinv, alpha, w, C):
    """The previous automaton pass: every pattern of the augmented row [s, Φ′_i] intersected."""
    inputs = primal_inputs(data)
    F = inputs.F
    if data.bias > 0:
        F = sp.hstack([sp.csr_matrix(np.full((F.shape[0], 1), data.bias)), F], format="csr")
    indptr, cols, vals = csr_arrays(F)
    vlab, vlen = code_labels(inputs.patterns, inputs.base)
    phi = (indptr, cols, vals, sorted_lcp(indptr, cols, vlab), vlab, vlen)
    width = vlab.shape[1] + 1
    scratch = (np.zeros(width, np.int64), np.zeros(width, np.int64), np.zeros(int(np.diff(indptr).max()), np.int64))
    return lambda active, size, max_old, min_old: epoch_automaton(
        active, size, max_old, min_old, phi, aut.arrays, scratch, y, qinv, C, alpha, w
    )


@pytest.mark.parametrize(
    "kernel", [kernels.ngram(3), kernels.cosine(kernels.ngram(2)), kernels.cosine(kernels.ngram(4))]
)
@pytest.mark.parametrize("bias", [0.0, 1.0])
def test_passes_take_the_previous_steps(kernel, bias):
    """Same α, same f(α) after every pass (Δf exact), same W′ as the previous implementation
    (the exact passes, without the float32 cache of Q_AA)."""
    X = _strings(7, 60)
    y = np.array([1.0 if s.count("a") > s.count("b") else -1.0 for s in X])
    data = TrainingSet(kernel, X, bias=bias, cache_size=1e-9)  # exact passes: no float32 cache of Q_AA
    rep = AutomatonWPrime.build(data)
    qinv = inverse_diagonal(rep.diagonal)
    C = 1.0
    alpha_old, w_old = np.zeros(len(X)), np.zeros(rep.automaton.n_paths)
    old = solve(
        _old_epoch(data, rep.automaton, y, qinv, alpha_old, w_old, C),
        len(X),
        tol=1e-6,
        max_iter=500,
        rng=np.random.RandomState(0),
    )
    alpha_new = np.zeros(len(X))
    new = solve(rep.epoch(0, y, qinv, C, alpha_new), len(X), tol=1e-6, max_iter=500, rng=np.random.RandomState(0))
    assert new.converged and new.n_iter == old.n_iter
    np.testing.assert_allclose(alpha_new, alpha_old, rtol=0, atol=1e-10)
    np.testing.assert_allclose(new.dual_objective, old.dual_objective, rtol=1e-10, atol=1e-12)
    # the final W′: the walked weights and the folded ones written out
    coef = rep.solution(alpha_new[None], y[None])["coef_"][0]
    expected = w_old[rep.position][1:] if bias > 0 else w_old[rep.position]
    np.testing.assert_allclose(coef, expected, rtol=0, atol=1e-10)
    # the dual objective recomputed from α: ½‖W′‖² − Σα
    full = np.concatenate([[bias * (alpha_new * y).sum()], coef]) if bias > 0 else coef
    assert new.dual_objective[-1] == pytest.approx(0.5 * full @ full - alpha_new.sum(), rel=1e-9)


@pytest.mark.parametrize("kernel", [kernels.ngram(3), kernels.cosine(kernels.ngram(3))])
def test_automaton_fit_equals_trie_fit_multiclass(kernel):
    X = _strings(11, 90, alphabet="abcd")
    y = np.array([max("abc", key=s.count) for s in X])  # three classes, one-vs-rest
    kw = dict(C=1.0, fit_intercept=True, tol=1e-6, max_iter=5000, random_state=0, cache_size=1e-6)
    trie = RationalSVC(kernel, representation="trie", **kw).fit(X, y)
    aut = RationalSVC(kernel, representation="automaton", **kw).fit(X, y)
    assert aut.converged_ and aut.alpha_.shape == (3, len(X))
    np.testing.assert_allclose(aut.alpha_, trie.alpha_, atol=1e-8)
    np.testing.assert_allclose(
        aut.convergence_["dual_objective"][-1], trie.convergence_["dual_objective"][-1], rtol=1e-9
    )
    T = _strings(12, 30, alphabet="abcd")
    np.testing.assert_allclose(aut.decision_function(T), trie.decision_function(T), atol=1e-7)
    assert (aut.predict(T) == trie.predict(T)).all()
    # W′ sizes: the trie of the training patterns and its minimal automaton, as the previous construction
    inputs = primal_inputs(TrainingSet(kernel, X, bias=1.0))
    pt = PatternTrie.from_codes(inputs.patterns, inputs.base)
    old = _old_from_trie(pt)
    assert aut.wprime_size_ == {
        "trie_states": pt.n_states,
        "trie_arcs": pt.n_arcs,
        "automaton_states": old[5].shape[0],
        "automaton_arcs": old[2].shape[0],
    }


def _walk_rows(data: TrainingSet) -> WalkRows:
    """Every Φ′_i (ε first with an intercept) as the walk program of the previous implementation."""
    inputs = primal_inputs(data)
    indptr, cols, vals = csr_arrays(inputs.F)
    shift = 1 if data.bias > 0 else 0
    return WalkRows.from_csr(indptr, cols + shift, vals, inputs.patterns, inputs.base, data.bias)


def _per_step_walk_epoch(rep: AutomatonWPrime, r: WalkRows, y, qinv, alpha, w, C):
    """The previous pass of this representation: Φ′_i walked through the automaton at every step."""
    scratch = r.scratch()
    return lambda active, size, max_old, min_old: epoch_automaton_walk(
        active, size, max_old, min_old, r.program, r.data, r.own, rep.automaton.arrays, scratch, y, qinv, C, alpha, w
    )


@pytest.mark.parametrize("kernel", [kernels.ngram(3), kernels.cosine(kernels.ngram(4))])
@pytest.mark.parametrize("bias", [0.0, 1.0])
def test_the_walk_once_reaches_the_paths_of_the_per_step_walk(kernel, bias):
    """The path number of every walked entry is its pattern's lexicographic rank among the
    training patterns (brute force), and the passes on those numbers take the steps of the
    per-step walk: same α, same f after every pass, same weight on every path."""
    X = _strings(3, 70)
    y = np.array([1.0 if s.count("ab") >= s.count("ba") else -1.0 for s in X])
    data = TrainingSet(kernel, X, bias=bias, cache_size=1e-9)  # exact passes: no float32 cache of Q_AA
    rep = AutomatonWPrime.build(data)
    inputs = primal_inputs(data)
    labels, lengths = code_labels(inputs.patterns, inputs.base)
    strings = [tuple(labels[j, : lengths[j]]) for j in range(labels.shape[0])]
    rank = {z: r for r, z in enumerate(sorted(strings))}
    assert rep.automaton.n_paths == len(rank)
    # the walked entries of row i: ε first (with an intercept), then the columns other rows share, in CSR order
    indptr, cols, _ = csr_arrays(inputs.F)
    shift = 1 if bias > 0 else 0
    df = np.bincount(cols, minlength=inputs.F.shape[1])
    expected = []
    for i in range(len(X)):
        c = cols[indptr[i] : indptr[i + 1]]
        expected += ([rank[()]] if bias > 0 else []) + [rank[strings[j + shift]] for j in c[df[c] >= 2]]
    assert rep.rows.slots.tolist() == expected
    # ... and the numbers the walk of every Φ′_i through the automaton (the per-step walk) reaches
    walks = _walk_rows(data)
    assert walks.slots(rep.automaton.arrays).tolist() == expected
    qinv = inverse_diagonal(rep.diagonal)
    C = 2.0
    alpha_ref, w_ref = np.zeros(len(X)), np.zeros(rep.automaton.n_paths)
    ref = solve(
        _per_step_walk_epoch(rep, walks, y, qinv, alpha_ref, w_ref, C),
        len(X),
        tol=1e-6,
        max_iter=3000,
        rng=np.random.RandomState(1),
    )
    alpha = np.zeros(len(X))
    new = solve(rep.epoch(0, y, qinv, C, alpha), len(X), tol=1e-6, max_iter=3000, rng=np.random.RandomState(1))
    assert ref.converged and new.n_iter == ref.n_iter > 2
    np.testing.assert_allclose(alpha, alpha_ref, rtol=0, atol=1e-12)
    np.testing.assert_allclose(new.dual_objective, ref.dual_objective, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(rep._w[0], w_ref, rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "kernel", [kernels.ngram(2), kernels.ngram(4), kernels.cosine(kernels.ngram(3)), kernels.cosine(kernels.ngram(5))]
)
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_automaton_fit_equals_trie_fit_within_1e_10(kernel, fit_intercept):
    """Multiclass one-vs-rest, shrinking on: α, the dual objective, decision values and
    predictions of the automaton equal the trie's (no float32 cache on the trie's side)."""
    X = _strings(21, 80, alphabet="abcd", lo=2, hi=16)
    y = np.array([max("abcd", key=s.count) for s in X])  # up to four classes
    kw = dict(C=1.5, fit_intercept=fit_intercept, tol=1e-7, max_iter=5000, random_state=3, cache_size=1e-9)
    trie = RationalSVC(kernel, representation="trie", **kw).fit(X, y)
    aut = RationalSVC(kernel, representation="automaton", **kw).fit(X, y)
    assert aut.representation_ == "automaton" and aut.converged_ and trie.converged_
    assert aut.alpha_.shape == (len(trie.classes_), len(X)) and len(trie.classes_) >= 3
    assert aut.n_iter_ == trie.n_iter_
    np.testing.assert_allclose(aut.alpha_, trie.alpha_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(
        aut.convergence_["dual_objective"], trie.convergence_["dual_objective"], rtol=1e-10, atol=1e-10
    )
    np.testing.assert_allclose(aut.coef_, trie.coef_, rtol=0, atol=1e-10)
    T = _strings(22, 40, alphabet="abcd", lo=2, hi=16)
    np.testing.assert_allclose(aut.decision_function(T), trie.decision_function(T), rtol=0, atol=1e-10)
    assert (aut.predict(T) == trie.predict(T)).all()


@pytest.mark.parametrize("kernel", [kernels.ngram(3), kernels.cosine(kernels.ngram(4))])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_automaton_cached_passes_equal_the_trie_cached_passes(kernel, fit_intercept, monkeypatch):
    """With the float32 cache of Q_AA (built as soon as shrinking leaves a set: the ski-rental
    costs set to 0) the automaton runs the trie's cached passes on its path numbers: same α,
    same f after every pass, same W′ as the trie's cached fit — and that fit is the exact one's
    optimum within the cache's float32 drift, the tolerance of the trie's cached passes."""
    for name in ("ENTRY_COST", "PAIR_COST"):
        monkeypatch.setattr(ag, name, 0.0)
    calls = {"cached": 0}
    cached = ag.epoch_cached

    def counting(*args):
        calls["cached"] += 1
        return cached(*args)

    monkeypatch.setattr(ag, "epoch_cached", counting)
    X = _strings(23, 80, alphabet="abcd", lo=2, hi=16)
    y = np.array([max("abcd", key=s.count) for s in X])
    kw = dict(C=1.5, fit_intercept=fit_intercept, tol=1e-7, max_iter=5000, random_state=3)
    trie = RationalSVC(kernel, representation="trie", cache_size=200.0, **kw).fit(X, y)
    trie_passes = calls["cached"]
    aut = RationalSVC(kernel, representation="automaton", cache_size=200.0, **kw).fit(X, y)
    assert trie_passes > 0 and calls["cached"] - trie_passes == trie_passes  # the cache ran, as often
    assert aut.converged_ and trie.converged_ and aut.n_iter_ == trie.n_iter_
    np.testing.assert_allclose(aut.alpha_, trie.alpha_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(
        aut.convergence_["dual_objective"], trie.convergence_["dual_objective"], rtol=1e-10, atol=1e-10
    )
    np.testing.assert_allclose(aut.coef_, trie.coef_, rtol=0, atol=1e-10)
    # the optimum of the exact passes (no cache), within the cached passes' drift
    exact = RationalSVC(kernel, representation="automaton", cache_size=1e-9, **kw).fit(X, y)
    assert calls["cached"] == 2 * trie_passes
    f_exact, f_cached = exact.convergence_["dual_objective"][-1], aut.convergence_["dual_objective"][-1]
    assert f_cached == pytest.approx(f_exact, rel=1e-6)
    T = _strings(24, 40, alphabet="abcd", lo=2, hi=16)
    np.testing.assert_allclose(aut.decision_function(T), trie.decision_function(T), rtol=0, atol=1e-10)
    assert (aut.predict(T) == exact.predict(T)).all()
