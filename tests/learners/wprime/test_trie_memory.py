"""The trie route's memory fixes of issue 37 change no number: RationalSVC(cosine(ngram(3)))
with F normalised in place and the W′ layout read from F's own int32 indices gives the
alpha_, coef_ and decision values, bit for bit, of the route before them — F normalised on a
copy by the numpy divisions of the time, and laid out from csr_arrays' int64 copies — and
those of LinearDCDSVC on the explicitly normalised counts up to round-off."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ratkit.automata.kernels import algebra, cosine, ngram
from ratkit.learners import LinearDCDSVC, RationalSVC
from ratkit.learners.dcd import rows as dcd_rows
from ratkit.learners.wprime import _trie


def _corpus(n: int = 60, seed: int = 5) -> tuple[list[str], np.ndarray, list[str]]:
    rng = np.random.default_rng(seed)
    words = ["oil", "bank", "acquire", "share", "merger", "price", "grain", "the", "of", "to"]
    X = [" ".join(rng.choice(words, size=int(rng.integers(3, 12)))) for _ in range(n)]
    y = np.array([1 if ("acquire" in x or "merger" in x) else -1 for x in X])
    test = [" ".join(rng.choice(words, size=6)) for _ in range(15)]
    return X, y, test


def _old_unit_rows(F, kernel, full=None, copy=True):
    """unit_rows before issue 37: a copy of F and the masked repeat / fancy-index divisions."""
    F = sp.csr_matrix(F, dtype=np.float64, copy=True)
    F.sum_duplicates()
    G = F if full is None else sp.csr_matrix(full, dtype=np.float64)
    counts_g = np.diff(G.indptr)
    m, n = np.zeros(G.shape[0]), np.zeros(G.shape[0])
    for i in np.flatnonzero(counts_g):
        m[i] = np.abs(G.data[G.indptr[i] : G.indptr[i + 1]]).max()
        s = G.data[G.indptr[i] : G.indptr[i + 1]] / m[i]
        n[i] = np.sqrt(np.add.reduceat(s * s, [0])[0])
    counts = np.diff(F.indptr)
    keep = np.repeat(m > 0, counts)
    F.data[~keep] = 0.0
    F.data[keep] /= np.repeat(m, counts)[keep]
    F.data[keep] /= np.repeat(n, counts)[keep]
    F.eliminate_zeros()
    return F


def _dense(a):
    return np.asarray(a.toarray() if sp.issparse(a) else a)


KW = dict(C=1.0, tol=1e-3, max_iter=1000, random_state=0, fit_intercept=False)


def test_trie_fit_is_bit_identical_to_the_route_before_the_memory_fixes(monkeypatch):
    X, y, test = _corpus()
    seen = []
    real_from_csr = dcd_rows.IndexedRows.from_csr.__func__

    def spy(cls, indptr, cols, *args, **kwargs):
        seen.append(cols.dtype)
        return real_from_csr(cls, indptr, cols, *args, **kwargs)

    monkeypatch.setattr(dcd_rows.IndexedRows, "from_csr", classmethod(spy))
    now = RationalSVC(cosine(ngram(3)), representation="trie", **KW).fit(X, y)
    assert seen == [np.int32]  # F's own indices, no int64 copy

    with monkeypatch.context() as m:
        m.setattr(algebra, "unit_rows", _old_unit_rows)
        m.setattr(_trie, "csr_own_arrays", dcd_rows.csr_arrays)
        before = RationalSVC(cosine(ngram(3)), representation="trie", **KW).fit(X, y)
        before_decision = before.decision_function(test)
        before_train = before.decision_function(X)
    assert seen[-1] == np.int64

    assert np.array_equal(now.alpha_, before.alpha_)
    assert np.array_equal(_dense(now.coef_), _dense(before.coef_))
    assert np.array_equal(now.decision_function(test), before_decision)
    assert np.array_equal(now.decision_function(X), before_train)

    # an independent solver on the explicitly normalised counts: the same optimum up to round-off
    vocabulary, counts = ngram(3).fit_features(X)
    dense = counts.toarray()
    unit = sp.csr_matrix(dense / np.linalg.norm(dense, axis=1)[:, None])
    ref = LinearDCDSVC(**KW).fit(unit, y)
    test_counts = ngram(3).transform_features(vocabulary, test).toarray()
    full = np.array([np.sqrt(ngram(3).gram([t])[0, 0]) for t in test])
    expected = ref.decision_function(sp.csr_matrix(test_counts / full[:, None]))
    np.testing.assert_allclose(now.decision_function(test), expected, atol=1e-6)
