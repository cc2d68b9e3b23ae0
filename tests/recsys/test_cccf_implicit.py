"""One-class CCCF and DCF (``feedback="implicit"``, issue 38): the objective over every
user–item pair computed without the dense matrix equals a dense numpy computation, each bit
update picks the better of the bit's two values by brute force, a planted one-class problem
is ranked better than popularity over all items, and the parameter is saved and checked."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit import load_model
from ratkit.exceptions import ParameterError
from ratkit.recsys import CCCF, DCF, Popularity
from ratkit.recsys._code_dcd import predictions
from ratkit.recsys._code_fit import OneClassProblem, Settings, item_major
from ratkit.recsys._code_oneclass import _system, gram
from ratkit.recsys.evaluation import ranking_metrics
from ratkit.testing import RecommenderContract
from tests.cli._helpers import run

G, R_BITS = 2, 3
W0, CONF_SLOPE, ALPHA_U, ALPHA_I = 0.25, 2.0, 0.3, 0.2


def _tiny(seed: int):
    """A 7 × 6 problem with counts 1–3 on ~40 % of the pairs, random codes, weights (one
    zero) and balance targets; ``problem.pred`` set from the codes."""
    rng = np.random.default_rng(seed)
    m, n = 7, 6
    dense = (rng.random((m, n)) < 0.4) * rng.integers(1, 4, (m, n))
    dense[:, 0] = 1.0
    R = sp.csr_matrix(dense.astype(np.float64))
    R.sort_indices()
    B = rng.choice(np.array([-1, 1], dtype=np.int8), (G, m, R_BITS))
    D = rng.choice(np.array([-1, 1], dtype=np.int8), (G, n, R_BITS))
    eta, xi = rng.random((m, G)), rng.random((n, G))
    eta[1, 0] = 0.0
    X, Y = rng.standard_normal((G, m, R_BITS)), rng.standard_normal((G, n, R_BITS))
    s = Settings(
        n_components=G,
        n_bits=R_BITS,
        alpha_user=ALPHA_U,
        alpha_item=ALPHA_I,
        max_iter=1,
        tol=0.0,
        n_sweeps=1,
        init="random",
        init_iter=1,
        rating_scale=None,
        uniform_weights=False,
        feedback="implicit",
        unobserved_weight=W0,
        confidence=CONF_SLOPE,
    )
    target = rng.random(R.nnz) * 3.0
    conf = 1.0 + CONF_SLOPE * R.data
    problem = OneClassProblem(R.indptr, R.indices, *item_major(R), target, eta, xi, s, confidence=conf)
    problem.pred = predictions(R.indptr, R.indices, B, D, eta, xi)
    return problem, R, B, D, X, Y


def _dense_objective(problem, R, B, D, X, Y) -> float:
    """Σ_{all i,j} c_ij (p_ij − r̂_ij)² + balance terms, every pair written out."""
    eta, xi = problem.eta, problem.xi
    S = sum(eta[:, [k]] * xi[:, k][None, :] * (B[k].astype(float) @ D[k].astype(float).T) for k in range(B.shape[0]))
    P, C = np.zeros(R.shape), np.full(R.shape, W0)
    rows = np.repeat(np.arange(R.shape[0]), np.diff(R.indptr))
    P[rows, R.indices] = problem.target
    C[rows, R.indices] = 1.0 + CONF_SLOPE * R.data
    return float(np.sum(C * (P - S) ** 2) + ALPHA_U * np.sum((B - X) ** 2) + ALPHA_I * np.sum((D - Y) ** 2))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_objective_by_the_gram_trick_equals_the_dense_sum(seed):
    problem, R, B, D, X, Y = _tiny(seed)
    assert problem.objective(B, D, X, Y) == pytest.approx(_dense_objective(problem, R, B, D, X, Y), rel=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_each_bit_update_takes_the_better_value_by_brute_force(seed):
    """For random (side, row, component, bit): the DCD rule b_q ← sgn(K(c_q − Σ_{p≠q} A_qp b_p, b_q))
    on the A, c built by the trick, against the dense objective at both values of the bit."""
    problem, R, B, D, X, Y = _tiny(seed)
    rng = np.random.default_rng(100 + seed)
    checked = 0
    for _ in range(12):
        by_user = bool(rng.integers(2))
        rows, cols, aux = (B, D, X) if by_user else (D, B, Y)
        ptr, idx, pos, w_rows, w_cols, alpha = problem._side(by_user)
        k, i, q = int(rng.integers(G)), int(rng.integers(rows.shape[1])), int(rng.integers(R_BITS))
        A, c = np.empty((R_BITS, R_BITS)), np.empty(R_BITS)
        P = gram(cols, w_cols)
        _system(k, i, ptr, idx, pos, rows, cols, w_rows, w_cols, problem.target, problem.confidence, W0, P,
                problem.pred, A, c)  # fmt: skip
        c += alpha * aux[k, i]
        h = c[q] - sum(A[q, p] * rows[k, i, p] for p in range(R_BITS) if p != q)
        chosen = rows[k, i, q] if h == 0 else (1 if h > 0 else -1)
        values = {}
        for bit in (-1, 1):
            rows[k, i, q] = bit
            values[bit] = _dense_objective(problem, R, B, D, X, Y)
        rows[k, i, q] = chosen
        problem.pred = predictions(R.indptr, R.indices, B, D, problem.eta, problem.xi)
        assert values[chosen] <= values[-chosen] + 1e-9
        # flipping the bit changes the objective by 4|ĥ| (the quadratic the trick built)
        assert abs(values[1] - values[-1]) == pytest.approx(4 * abs(h), rel=1e-9, abs=1e-9)
        checked += w_rows[i, k] != 0
    assert checked > 0


def test_a_whole_update_keeps_the_predictions_and_never_raises_the_dense_objective():
    problem, R, B, D, X, Y = _tiny(5)
    before = _dense_objective(problem, R, B, D, X, Y)
    for k in range(G):
        problem._update(True, k, B, D, X, problem.pred, relaxed=False)
        problem._update(False, k, D, B, Y, problem.pred, relaxed=False)
        after = _dense_objective(problem, R, B, D, X, Y)
        assert after <= before + 1e-9
        before = after
        np.testing.assert_allclose(problem.pred, predictions(R.indptr, R.indices, B, D, problem.eta, problem.xi))
        # the Grams refreshed block by block are the Grams of the current codes
        np.testing.assert_allclose(problem._gram(False, D, problem.xi), gram(D, problem.xi), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(problem._gram(True, B, problem.eta), gram(B, problem.eta), rtol=1e-12, atol=1e-12)
        assert problem.objective(B, D, X, Y) == pytest.approx(after, rel=1e-12)


def _planted(seed: int = 0) -> sp.csr_matrix:
    """150 users × 90 items in 3 groups of unequal size: a user likes ~40 % of its group's
    items and ~1 % of the rest; popularity favours the largest group for everybody."""
    rng = np.random.default_rng(seed)
    users = np.repeat([0, 1, 2], [80, 40, 30])
    items = np.repeat([0, 1, 2], 30)
    same = users[:, None] == items[None, :]
    dense = rng.random((150, 90)) < np.where(same, 0.4, 0.01)
    return sp.csr_matrix(dense.astype(np.float64))


def test_a_planted_one_class_problem_is_ranked_better_than_popularity_over_all_items():
    matrix = _planted()
    rng = np.random.default_rng(1)
    coo = matrix.tocoo()
    held = rng.random(coo.nnz) < 0.2
    train = sp.csr_matrix((coo.data[~held], (coo.row[~held], coo.col[~held])), shape=matrix.shape)
    test = sp.csr_matrix((coo.data[held], (coo.row[held], coo.col[held])), shape=matrix.shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        models = {
            "cccf": CCCF(n_components=3, n_bits=4, feedback="implicit", unobserved_weight=1.0, random_state=0),
            "dcf": DCF(n_bits=8, feedback="implicit", unobserved_weight=1.0, random_state=0),
            "popularity": Popularity(),
        }
        ndcg = {name: ranking_metrics(model.fit(train), train, test, k=10)["ndcg"] for name, model in models.items()}
    assert ndcg["cccf"] > ndcg["popularity"] + 0.05, ndcg
    assert ndcg["dcf"] > ndcg["popularity"] + 0.05, ndcg


def test_the_explicit_fit_of_one_class_data_is_refused_and_the_implicit_one_is_not():
    ones = _planted()
    with pytest.raises(Exception, match="rating scale"):
        CCCF(n_components=2, n_bits=4).fit(ones)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = CCCF(n_components=2, n_bits=4, feedback="implicit", random_state=0).fit(ones)
    assert model.rating_scale_ == [0.0, 1.0]
    assert np.all(np.diff(model.objective_history_) <= 1e-9 * np.abs(model.objective_history_[:-1]))


@pytest.mark.parametrize("cls", [CCCF, DCF])
def test_save_and_load_keep_the_feedback_and_the_rankings(cls, tmp_path):
    kw = {"n_components": 2} if cls is CCCF else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = cls(n_bits=4, feedback="implicit", unobserved_weight=0.7, confidence=3.0, random_state=0, **kw)
        model.fit(_planted())
    path = tmp_path / "model.zip"
    model.save(path)
    loaded = load_model(path)
    assert type(loaded) is cls
    assert loaded.feedback == "implicit"
    assert loaded.get_params() == model.get_params()
    users = np.arange(10)
    liked = _planted()[users]
    for got, want in zip(loaded.recommend(users, liked, N=5), model.recommend(users, liked, N=5)):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("cls", [CCCF, DCF])
@pytest.mark.parametrize("bad", ["one-class", "Implicit", 1, None])
def test_a_bad_feedback_is_refused_naming_it(cls, bad):
    with pytest.raises(ParameterError, match=r"'feedback' parameter of (CCCF|DCF).*\"implicit\".*" + repr(bad)):
        cls(feedback=bad).fit(_planted())


def test_a_rating_scale_with_one_class_feedback_is_refused():
    with pytest.raises(ParameterError, match="rating_scale=\\(1, 5\\)"):
        CCCF(feedback="implicit", rating_scale=(1, 5)).fit(_planted())


@pytest.mark.parametrize("name", ["unobserved_weight", "confidence"])
def test_bad_one_class_weights_are_refused(name):
    with pytest.raises(ParameterError, match=name):
        DCF(feedback="implicit", **{name: -1.0}).fit(_planted())


def test_explicit_stays_the_default():
    assert CCCF().feedback == "explicit" and DCF().feedback == "explicit"
    assert CCCF().get_params()["feedback"] == "explicit"


def test_evaluate_on_one_class_data_uses_the_implicit_mode_and_says_so(tmp_path, capsys):
    coo = _planted().tocoo()
    data = tmp_path / "clicks.csv"
    data.write_text("".join(f"u{u},i{i},1\n" for u, i in zip(coo.row, coo.col)))
    model = tmp_path / "dcf.zip"
    argv = ["recsys", "evaluate", "--data", data, "--format", "csv", "--model", "dcf", "--quiet", "-o", model]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert "dcf: one-class data" in err and 'feedback="implicit"' in err
    assert load_model(model).feedback == "implicit"
    # given explicitly, the parameter is kept and nothing is said
    code, _, err = run([*argv, "--param", 'feedback="implicit"'], capsys)
    assert code == 0 and "one-class data" not in err


# The recommender contract on one-class data (its planted blocks: 60 users × 32 items, 60 % of
# each block liked). w₀ = 0.3: at the default w₀ = 1 the few unseen items of a block are fitted
# towards 0 as hard as the cold ones, and 6 (CCCF) or 7 (DCF) of the 60 users then score one cold
# item above one of their unseen block items, which the contract's strict per-user order refuses.


class TestOneClassCCCFContract(RecommenderContract):
    def make_model(self):
        return CCCF(n_components=4, n_bits=8, bandwidth=2.0, feedback="implicit", unobserved_weight=0.3, random_state=0)


class TestOneClassDCFContract(RecommenderContract):
    def make_model(self):
        return DCF(n_bits=16, feedback="implicit", unobserved_weight=0.3, random_state=0)
