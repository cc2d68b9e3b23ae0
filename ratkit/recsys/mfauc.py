"""MFAUC: matrix factorisation that maximises a smooth surrogate of every user's AUC."""

from __future__ import annotations

import logging
import numbers
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

import numpy as np
import scipy.sparse as sp
from tqdm.auto import tqdm

from ratkit._convergence import warn_not_converged
from ratkit._validation import check_choice, check_int, check_random_state, check_real
from ratkit.exceptions import ParameterError, SolverError
from ratkit.fitted import Array, Bool, Fitted, Int
from ratkit.plugins import register
from ratkit.recsys._linalg import svd_factors
from ratkit.recsys._mfauc_objective import LOSSES, loss_and_derivative, phi_and_derivative
from ratkit.recsys._mfauc_sgd import Problem, SGDSettings, run_sgd
from ratkit.recsys._renamed import given_as, resolve, warn_renamed
from ratkit.recsys.base import FactorRecommender

__all__ = ["MFAUC"]

log = logging.getLogger(__name__)


@register("recommender", "mfauc")
class MFAUC(FactorRecommender):
    r"""Matrix factorisation ``S = UVᵀ`` minimising the MFAUC objective (Optimisation 3).

    ``θ(U, V) = (1/m) Σ_i Σ_{p∈ω_i} g_i(p) φ(Σ_{q∈ω̄_i} g'_i(q) L(u_iᵀv_p − u_iᵀv_q))
    + (λ/2)(‖U‖²_F + ‖V‖²_F)``, where ``ω_i`` are user ``i``'s relevant items (non-zero
    entries of ``user_items``) and ``ω̄_i`` the others. Solved by averaged SGD with
    sub-sampled gradients; the fitted factors are the averages ``(Ū, V̄)``.

    Parameters
    ----------
    n_factors : int
        Rank of the factorisation (the paper's ``k``).
    loss : {"square", "squared_hinge", "hinge", "logistic", "sigmoid"}
        The surrogate ``L`` of the indicator ``[γ ≤ 0]``.
    regularization : float
        Regularisation ``λ`` on ``‖U‖²_F + ‖V‖²_F`` (implicit's name for it).
    rho : float or None
        ``None`` for ``φ(x) = x`` (plain AUC surrogate); ``ρ > 0`` for
        ``φ(x) = tanh(ρx)``, which weights the top of each user's ranking more.
    beta : float or sequence of float
        ``β`` of the logistic and sigmoid losses. An increasing sequence is a schedule:
        the iterations are shared equally among its values, each stage starting from
        the previous one (a continuation towards the step function).
    tau : float
        Exponent ``τ′ ≥ 0`` of the item distributions ``g ∝ p̂^τ′``, ``g′ ∝ (1 − p̂)^τ′``;
        0 gives the uniform distributions.
    kappa_users : int
        ``κ_W``, users sampled per item gradient.
    kappa_items : int
        ``κ_Y``, relevant and irrelevant items sampled per user term.
    learning_rate : float
        ``α``, the SGD step.
    max_grad_norm : float or None
        Each row's stochastic gradient is rescaled to at most this norm before the step
        (``None``: no clipping). The authors' code normalises every row gradient to unit
        norm; clipping keeps small gradients as they are and stops the unbounded square
        loss from diverging on popular items.
    max_iter : int
        ``T``, the most iterations (one iteration = ``max(m, n)`` row steps). The default,
        200, lets the defaults converge on MovieLens 100K (bench/RESULTS.md, "MFAUC's
        default max_iter").
    tol : float
        Stop when the monitored objective at ``(Ū, V̄)`` changes by at most this
        fraction between iterations.
    init : {"gaussian", "svd"}
        Random ``N(0, init_scale²)`` factors, or the truncated SVD of the 0/1 matrix.
    init_scale : float
        Standard deviation of the Gaussian initialisation.
    batch_size : int
        Rows of ``U`` and of ``V`` updated together in one vectorised step (distinct rows,
        so this only changes how often ``U`` and ``V`` see each other's updates); 1
        reproduces the paper's single-row steps.
    random_state : None, int or numpy Generator
        Seeds the initialisation, permutations and all sampling.
    show_progress : bool
        Show a tqdm bar counting the iterations, with the monitored objective and its
        relative change against ``tol`` (off by default).
    lam : deprecated
        The former name of ``regularization``, accepted for one release (``fit`` warns with
        a :class:`DeprecationWarning`); None: not given.

    Attributes
    ----------
    user_factors_, item_factors_ : ndarray
        ``Ū`` (n_users × n_factors) and ``V̄`` (n_items × n_factors).
    objective_ : ndarray
        Monitored objective after each iteration (the last stage's, for a β schedule).
    n_iter_ : int
        Iterations run (all stages).
    converged_ : bool
        Whether the last stage stopped on ``tol`` rather than ``max_iter``; a fit that stops
        at ``max_iter`` also warns (:class:`~sklearn.exceptions.ConvergenceWarning`).

    Notes
    -----
    The SGD block steps run compiled (numba, one thread) and draw their random numbers
    from ``random_state``'s Generator in the order the vectorised numpy reference does, so
    a seed gives the same fit as that reference up to float round-off.

    Users with no relevant item, or with every item relevant, have no pair to rank: they
    contribute nothing to θ and their factors only feel the regulariser (they score
    near 0 everywhere). Items nobody has are irrelevant for every user and sink.

    References
    ----------
    C. Dhanjal, R. Gaudel and S. Clémençon. AUC Optimisation and Collaborative
    Filtering. arXiv:1508.06091, 2015 — Optimisation 3, the losses, Equations 4–9 (the
    derivatives and the square-loss fast path) and Algorithm 1 (MFAUC).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.random(30, 20, density=0.3, format="csr", random_state=0)
    >>> model = MFAUC(n_factors=4, max_iter=5, random_state=0).fit(X)
    >>> ids, scores = model.recommend(0, X[0], N=3)  # implicit's convention: the user's row
    >>> len(ids)
    3
    """

    _fitted_schema: ClassVar[Fitted] = FactorRecommender._fitted_schema.extend(
        objective_=Array("f", (None,), finite=False),
        n_iter_=Int(low=0),
        converged_=Bool(),
    )
    _fitted_attributes: ClassVar[tuple[str, ...]] = _fitted_schema.required
    _renamed: ClassVar[Mapping[str, str]] = {"lam": "regularization"}
    #: Block steps of the SGD: ``"compiled"`` (numba) or ``"numpy"`` (the vectorised reference,
    #: kept for the benchmark and the equivalence tests); both give the same fit up to round-off.
    _sgd_engine: ClassVar[str] = "compiled"
    _fit_shows_progress: ClassVar[bool] = True

    def __init__(
        self,
        *,
        n_factors: int = 32,
        loss: Literal["square", "squared_hinge", "hinge", "logistic", "sigmoid"] = "hinge",
        regularization: float = 1e-4,
        rho: float | None = None,
        beta: float | Sequence[float] = 1.0,
        tau: float = 0.0,
        kappa_users: int = 30,
        kappa_items: int = 10,
        learning_rate: float = 0.5,
        max_grad_norm: float | None = 1.0,
        max_iter: int = 200,
        tol: float = 1e-4,
        init: Literal["gaussian", "svd"] = "gaussian",
        init_scale: float = 0.1,
        batch_size: int = 64,
        random_state: Any = None,
        show_progress: bool = False,
        lam: float | None = None,
    ) -> None:
        self.n_factors = n_factors
        self.loss = loss
        self.regularization = regularization
        self.rho = rho
        self.beta = beta
        self.tau = tau
        self.kappa_users = kappa_users
        self.kappa_items = kappa_items
        self.learning_rate = learning_rate
        self.max_grad_norm = max_grad_norm
        self.max_iter = max_iter
        self.tol = tol
        self.init = init
        self.init_scale = init_scale
        self.batch_size = batch_size
        self.random_state = random_state
        self.show_progress = show_progress
        self.lam = lam

    def _regularization(self) -> Any:
        """λ as given: ``regularization``, or its deprecated spelling ``lam`` when that was given."""
        return resolve(self, "regularization", "lam")

    def _betas(self) -> list[float]:
        values: list[Any]
        if isinstance(self.beta, numbers.Real) and not isinstance(self.beta, bool):
            values = [self.beta]
        elif isinstance(self.beta, (Sequence, np.ndarray)) and not isinstance(self.beta, str):
            values = list(self.beta)
        else:
            values = [self.beta]
        if not values:
            raise ParameterError("The 'beta' parameter of MFAUC must not be an empty sequence.")
        betas = [check_real(b, "beta", "MFAUC", low=0.0, low_open=True) for b in values]
        if any(later <= earlier for earlier, later in zip(betas, betas[1:])):
            raise ParameterError(
                f"The 'beta' schedule of MFAUC must be strictly increasing. Got {self.beta!r} instead."
            )
        return betas

    def _validate_params(self) -> None:
        owner = "MFAUC"
        warn_renamed(self)
        check_int(self.n_factors, "n_factors", owner, low=1)
        check_choice(self.loss, "loss", owner, LOSSES)
        check_real(self._regularization(), given_as(self, "regularization", "lam"), owner, low=0.0)
        if self.rho is not None:
            check_real(self.rho, "rho", owner, low=0.0, low_open=True)
        betas = self._betas()
        if len(betas) > 1 and self.loss not in ("logistic", "sigmoid"):
            raise ParameterError(
                f"A 'beta' schedule only applies to the logistic and sigmoid losses; "
                f"loss={self.loss!r} has no β. Pass a single beta."
            )
        check_real(self.tau, "tau", owner, low=0.0)
        check_int(self.kappa_users, "kappa_users", owner, low=1)
        check_int(self.kappa_items, "kappa_items", owner, low=1)
        check_real(self.learning_rate, "learning_rate", owner, low=0.0, low_open=True)
        if self.max_grad_norm is not None:
            check_real(self.max_grad_norm, "max_grad_norm", owner, low=0.0, low_open=True)
        check_int(self.max_iter, "max_iter", owner, low=1)
        if len(betas) > self.max_iter:
            raise ParameterError(
                f"max_iter={self.max_iter} is smaller than the {len(betas)} stages of the beta "
                f"schedule; raise max_iter or shorten the schedule."
            )
        check_real(self.tol, "tol", owner, low=0.0)
        check_choice(self.init, "init", owner, ("gaussian", "svd"))
        check_real(self.init_scale, "init_scale", owner, low=0.0, low_open=True)
        check_int(self.batch_size, "batch_size", owner, low=1)

    def _fit_bytes(self, n_users: int, n_items: int) -> float:
        """The factors U, V and their working copies (gradients, the best iterate): 4 (m + n) d floats."""
        return 32.0 * (n_users + n_items) * self.n_factors

    def _fit(self, user_items: sp.csr_matrix, *, show_progress: bool = False) -> None:
        rng = check_random_state(self.random_state)
        # every stored value is > 0 and the indices are sorted (check_user_items): the problem
        # reads the checked copy's structure, with no copy of it
        problem = Problem(user_items, self.tau)
        m, n = user_items.shape
        skipped = m - len(problem.active)
        if skipped:
            log.info(
                "MFAUC: %d of %d users have no relevant or no irrelevant item and only feel the regulariser", skipped, m
            )
        if len(problem.active) == 0:
            self.user_factors_ = np.zeros((m, self.n_factors))
            self.item_factors_ = np.zeros((n, self.n_factors))
            self.objective_, self.n_iter_, self.converged_ = np.array([]), 0, True
            return
        U, V = self._initial_factors(problem, rng)
        betas = self._betas()
        stage_iters = [self.max_iter // len(betas)] * len(betas)
        stage_iters[-1] += self.max_iter - sum(stage_iters)
        # no total: the fit stops on tol, rarely at max_iter
        bar = tqdm(total=None, desc="MFAUC", unit=" iter", disable=not show_progress, leave=True)
        stage: dict[str, str] = {}  # the β stage, shown when there are several

        def report(n_iter: int, objective: float, change: float) -> None:
            bar.set_postfix(
                {"objective": f"{objective:.6g}", "change": f"{change:.1e}", "tol": f"{self.tol:.1e}", **stage},
                refresh=False,
            )
            bar.update(1)

        done = 0
        try:
            for k, (beta, iters) in enumerate(zip(betas, stage_iters)):
                if len(betas) > 1:
                    stage["stage"] = f"{k + 1}/{len(betas)}"
                settings = self._sgd_settings(beta)
                U, V, objectives, n_iter, converged = run_sgd(
                    problem,
                    U,
                    V,
                    settings,
                    rng,
                    max_iter=iters,
                    tol=self.tol,
                    progress=report,
                    engine=self._sgd_engine,
                    overwrite=True,  # the start (U, V) is not used again
                )
                done += n_iter
        finally:
            bar.close()
        if not (np.isfinite(U).all() and np.isfinite(V).all()):
            raise SolverError(
                f"MFAUC diverged (non-finite factors) with learning_rate={self.learning_rate}; "
                f"lower learning_rate or raise regularization."
            )
        self.user_factors_, self.item_factors_ = U, V
        self.objective_ = np.asarray(objectives)
        self.n_iter_, self.converged_ = done, bool(converged)
        if not converged:
            last = objectives[-2:]
            state = (
                f"the monitored objective still changed by {abs(last[1] - last[0]) / max(abs(last[0]), 1e-12):.3g} "
                f"> tol={self.tol:g} (relative) in the last iteration"
                if len(last) == 2
                else f"the last stage ran one iteration, too few to compare a change with tol={self.tol:g}"
            )
            warn_not_converged("MFAUC", self.max_iter, "iterations", state, "Increase max_iter, or raise tol.")
        log.info(
            "MFAUC fitted: %d iterations, converged=%s, objective %.6g",
            done,
            converged,
            objectives[-1] if objectives else float("nan"),
        )

    def _sgd_settings(self, beta: float) -> SGDSettings:
        """The SGD settings of one β stage (the compiled and numpy engines read the same)."""
        return SGDSettings(
            loss_fn=loss_and_derivative(self.loss, beta),
            phi_fn=phi_and_derivative(self.rho),
            square_fast=self.loss == "square" and self.rho is None,
            lam=self._regularization(),
            learning_rate=self.learning_rate,
            kappa_users=self.kappa_users,
            kappa_items=self.kappa_items,
            batch_size=self.batch_size,
            max_grad_norm=self.max_grad_norm,
            loss=self.loss,
            beta=beta,
            rho=self.rho,
        )

    def _initial_factors(self, problem: Problem, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        m, n = problem.m, problem.n
        if self.init == "svd":
            return svd_factors(problem.positives, self.n_factors, rng)
        return (
            rng.normal(0.0, self.init_scale, (m, self.n_factors)),
            rng.normal(0.0, self.init_scale, (n, self.n_factors)),
        )
