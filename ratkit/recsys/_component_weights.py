"""CCCF's component weights: pre-trained latent vectors, anchors, angular distance, kernels.

Each user (item) gets a non-negative weight per component k = 1..G, large when its latent
vector points the same way as component k's anchor:

1. :func:`pretrain_factors` places users and items: a real-valued MF of the observed
   ratings, by alternating least squares on the ratings centred by their global mean.
2. :func:`select_anchors` picks G anchor vectors among the user (item) vectors: k-means
   centroids (the paper) or k-medoids medoids (the reference code).
3. :func:`angular_distance` is d(v, a) = (2/π)·arccos(cos(v, a)) ∈ [0, 2] (the reference
   code's similarity is 1 − d).
4. :func:`smoothing_kernel` turns d into a kernel value with support d < h.
5. :func:`component_weights` normalises the kernel values of each row to sum 1 over the G
   components; a row with no anchor closer than h gets weight 1 on its nearest anchor.

Why centred ALS rather than the reference's MF: the reference pre-trains by SGD from an
all-positive U[0, 1) initialisation on the raw ratings, which leaves every latent vector in
a narrow cone around the all-ones direction; the angular distances to the anchors are then
all small and at the default h = 0.7 every weight is non-zero (no sparsity). Centring the
ratings removes the common "everybody rates about 3.5" direction and the least-squares
solution spreads the vectors over all directions.

References
----------
C. Liu, T. Lu, X. Wang, Z. Cheng, J. Sun and S. C. H. Hoi. Compositional Coding for
Collaborative Filtering. SIGIR 2019 — §3.6 (anchors, distance, kernel).
Y. Zhou, D. Wilkinson, R. Schreiber and R. Pan. Large-scale parallel collaborative
filtering for the Netflix prize. AAIM 2008 (ALS with weighted-λ regularisation).
H.-S. Park and C.-H. Jun. A simple and fast algorithm for K-medoids clustering. Expert
Systems with Applications 36(2), 2009 (the alternating k-medoids).
D. Arthur and S. Vassilvitskii. k-means++: the advantages of careful seeding. SODA 2007.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.cluster import KMeans
from threadpoolctl import threadpool_limits

from ratkit._jit import njit
from ratkit._sparse import float64_csr
from ratkit._validation import check_choice, check_int, check_random_state, check_real
from ratkit.exceptions import DataFormatError, ParameterError, ParameterTypeError
from ratkit.recsys._entries import at, item_major
from ratkit.recsys._validation import _refuse_duplicates

__all__ = [
    "pretrain_factors",
    "pretrain_one_class",
    "select_anchors",
    "angular_distance",
    "smoothing_kernel",
    "component_weights",
    "SMOOTHING_KERNELS",
    "ANCHOR_METHODS",
]

#: The smoothing kernels of the component weights (kernel smoothing, Wand and Jones 1994; the
#: paper's Epanechnikov, and the uniform and triangular it compares).
SMOOTHING_KERNELS = ("epanechnikov", "uniform", "triangular")
ANCHOR_METHODS = ("kmeans", "kmedoids")

_INIT_SCALE = 0.1  # standard deviation of the random start (and of never-rated rows' vectors)
_KMEANS_N_INIT = 10  # restarts of scikit-learn's KMeans
_KMEDOIDS_MAX_ITER = 300


# ------------------------------------------------------------------------------------------
# pre-training
# ------------------------------------------------------------------------------------------


def pretrain_factors(
    ratings: sp.csr_matrix,
    n_factors: int,
    rng: np.random.Generator,
    *,
    n_iter: int = 10,
    regularization: float = 0.1,
    item_order: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Latent vectors of users and items: ALS on the centred observed ratings.

    Minimises, over U (m × f) and V (n × f), with μ the mean of the stored ratings,

        Σ_{(i,j) ∈ 𝒱} (r_ij − μ − u_iᵀv_j)² + λ·(Σ_i |𝒱_i|·‖u_i‖² + Σ_j |𝒱_j|·‖v_j‖²)

    (the weighted-λ regularisation of Zhou et al. 2008: a row's penalty grows with its number
    of ratings, so the ridge has the same relative strength for light and heavy raters). Each
    of the ``n_iter`` sweeps solves every user row exactly given V, then every item row given U:

        u_i = (V_𝒱iᵀ V_𝒱i + λ·|𝒱_i|·I)⁻¹ V_𝒱iᵀ (r_i𝒱i − μ),   and symmetrically for v_j.

    Cost O(n_iter·(|𝒱|·f² + (m + n)·f³)): linear in the number of ratings.

    Parameters
    ----------
    ratings : scipy.sparse matrix, users × items
        The stored entries are the ratings (a stored 0 is a rating of 0); every other cell
        is unobserved. Duplicate entries are refused.
    n_factors : int ≥ 1
        f, the dimension of the latent vectors.
    rng : numpy Generator (or int seed / None)
        U and V start as N(0, 0.1²) draws from it. Users and items with no rating keep that
        small random vector: it has a random direction, so its weights are those of an
        arbitrary anchor rather than an undefined 0/0.
    n_iter : int ≥ 1
        ALS sweeps.
    regularization : float > 0
        λ, the ridge factor of the weighted-λ penalty.
    item_order : (item pointers, user ids, CSR positions), optional
        ``ratings``' entries in item-major order (:func:`~ratkit.recsys._entries.item_major`),
        when the caller has them; else they are computed. A float64 CSR matrix with sorted
        indices and no duplicates is read as it is (no copy, no per-entry array), the
        targets r_ij − μ computed on use.

    Returns
    -------
    U : ndarray (m, f), V : ndarray (n, f)
    """
    owner = "pretrain_factors"
    n_factors = check_int(n_factors, "n_factors", owner, low=1)
    n_iter = check_int(n_iter, "n_iter", owner, low=1)
    regularization = check_real(regularization, "regularization", owner, low=0.0, low_open=True)
    rng = check_random_state(rng)
    by_user = _check_ratings(ratings)
    item_ptr, item_users, item_pos = item_major(by_user) if item_order is None else item_order
    m, n = by_user.shape
    mu = float(by_user.data.mean())
    users = rng.normal(0.0, _INIT_SCALE, size=(m, n_factors))
    items = rng.normal(0.0, _INIT_SCALE, size=(n, n_factors))
    for _ in range(n_iter):
        _ridge_rows(by_user.indptr, by_user.indices, None, by_user.data, mu, items, users, regularization)
        _ridge_rows(item_ptr, item_users, item_pos, by_user.data, mu, users, items, regularization)
    return users, items


def pretrain_one_class(
    interactions: sp.csr_matrix,
    n_factors: int,
    rng: np.random.Generator,
    *,
    n_iter: int = 10,
    regularization: float = 0.1,
    unobserved_weight: float = 1.0,
    confidence: float = 1.0,
    item_order: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Latent vectors of users and items from one-class data: implicit ALS (Hu, Koren and
    Volinsky 2008), the placement :func:`pretrain_factors` gives ratings.

    Minimises Σ_{all i,j} c_ij (p_ij − u_iᵀv_j)² + λ(Σ_i ‖u_i‖² + Σ_j ‖v_j‖²), p_ij = 1 on a
    stored entry of value s_ij (confidence c_ij = 1 + a·s_ij) and 0 elsewhere (c_ij = w₀); each
    sweep solves every user row exactly given V, then every item row given U:

        u_i = (w₀ VᵀV + Σ_{j ∈ 𝒱_i} (c_ij − w₀) v_j v_jᵀ + λI)⁻¹ Σ_{j ∈ 𝒱_i} c_ij v_j

    (the Gram VᵀV over all items once per sweep, corrections on the observed items only):
    O(n_iter·(|𝒱|·f² + (m + n)·f³)). The stored values must be ≥ 0; rows without entries keep
    their N(0, 0.1²) start, as in :func:`pretrain_factors`, which also describes ``item_order``
    (the confidences are computed on use, as the targets are there).
    """
    owner = "pretrain_one_class"
    n_factors = check_int(n_factors, "n_factors", owner, low=1)
    n_iter = check_int(n_iter, "n_iter", owner, low=1)
    regularization = check_real(regularization, "regularization", owner, low=0.0, low_open=True)
    w0 = check_real(unobserved_weight, "unobserved_weight", owner, low=0.0, low_open=True)
    a = check_real(confidence, "confidence", owner, low=0.0)
    rng = check_random_state(rng)
    by_user = _check_ratings(interactions)
    if (by_user.data < 0).any():
        raise DataFormatError(f"{owner} takes interaction strengths >= 0; the data hold {by_user.data.min():g}.")
    item_ptr, item_users, item_pos = item_major(by_user) if item_order is None else item_order
    m, n = by_user.shape
    users = rng.normal(0.0, _INIT_SCALE, size=(m, n_factors))
    items = rng.normal(0.0, _INIT_SCALE, size=(n, n_factors))
    data = by_user.data
    for _ in range(n_iter):
        _one_class_rows(by_user.indptr, by_user.indices, None, data, a, items, users, regularization, w0)
        _one_class_rows(item_ptr, item_users, item_pos, data, a, users, items, regularization, w0)
    return users, items


@njit
def _one_class_rows(indptr, indices, pos, data, a, fixed, out, reg, w0):  # pragma: no cover - compiled
    """out[i] = (w₀ FᵀF + Σ_t (c_t − w₀) f_t f_tᵀ + reg·I)⁻¹ Σ_t c_t f_t over row i's entries t,
    F = ``fixed``, c_t = 1 + a·v_t (v_t = ``data`` at CSR position ``pos[t]``; None: t), for
    every row with entries."""
    f = fixed.shape[1]
    base = w0 * (fixed.T @ fixed)
    gram = np.empty((f, f))
    rhs = np.empty(f)
    for i in range(out.shape[0]):
        start, stop = indptr[i], indptr[i + 1]
        if stop == start:
            continue
        gram[:, :] = base
        rhs[:] = 0.0
        for p in range(start, stop):
            row = fixed[indices[p]]
            conf = 1.0 + a * data[at(pos, p)]
            extra = conf - w0
            for x in range(f):
                rhs[x] += conf * row[x]
                for y in range(f):
                    gram[x, y] += extra * row[x] * row[y]
        for x in range(f):
            gram[x, x] += reg
        out[i] = np.linalg.solve(gram, rhs)


def _check_ratings(ratings: Any) -> sp.csr_matrix:
    """``ratings`` as a float64 CSR matrix with sorted indices; refuse what is not ratings. A
    float64 CSR matrix in canonical form (sorted indices, no duplicates: what the models' ``fit``
    hands on) is returned as it is, never modified; anything else is copied."""
    if not sp.issparse(ratings) or ratings.ndim != 2:
        raise ParameterTypeError(
            f"ratings must be a two-dimensional scipy.sparse matrix (users × items); got {type(ratings).__name__}."
        )
    if not np.issubdtype(ratings.dtype, np.number) or np.issubdtype(ratings.dtype, np.complexfloating):
        raise ParameterTypeError(f"ratings must hold real numbers; got dtype {ratings.dtype}.")
    if ratings.format == "csr" and ratings.dtype == np.float64 and ratings.has_canonical_format:
        csr = ratings  # no duplicate to refuse, nothing to sort: read as it is
    else:
        _refuse_duplicates(ratings, "ratings")  # before any conversion, which would sum a COO's
        csr = float64_csr(ratings)
    if csr.nnz == 0:
        raise DataFormatError(f"ratings of shape {csr.shape} has no stored rating; pre-training needs at least one.")
    if not np.isfinite(csr.data).all():
        raise DataFormatError(
            f"ratings contains {int((~np.isfinite(csr.data)).sum())} NaN or infinite value(s); drop them first."
        )
    csr.sort_indices()
    return csr


@njit
def _ridge_rows(indptr, indices, pos, data, mu, fixed, out, reg):  # pragma: no cover - compiled
    """out[i] = (F_iᵀF_i + reg·c_i·I)⁻¹ F_iᵀ t_i for every row i with c_i > 0 entries, where
    F_i are the rows of ``fixed`` at row i's column indices and t_i its targets v − μ (v =
    ``data`` at CSR position ``pos[t]`` of entry t; None: t)."""
    f = fixed.shape[1]
    gram = np.empty((f, f))
    rhs = np.empty(f)
    for i in range(out.shape[0]):
        start, stop = indptr[i], indptr[i + 1]
        count = stop - start
        if count == 0:
            continue
        gram[:, :] = 0.0
        rhs[:] = 0.0
        for p in range(start, stop):
            row = fixed[indices[p]]
            t = data[at(pos, p)] - mu
            for a in range(f):
                rhs[a] += t * row[a]
                for b in range(a + 1):
                    gram[a, b] += row[a] * row[b]
        for a in range(f):
            gram[a, a] += reg * count
            for b in range(a):
                gram[b, a] = gram[a, b]
        out[i] = np.linalg.solve(gram, rhs)


# ------------------------------------------------------------------------------------------
# anchors
# ------------------------------------------------------------------------------------------


def select_anchors(vectors: np.ndarray, n_anchors: int, rng: np.random.Generator, method: str = "kmeans") -> np.ndarray:
    """G anchor vectors summarising the rows of ``vectors`` (N × f).

    * ``"kmeans"`` (the paper): the centroids of scikit-learn's ``KMeans(n_clusters=G,
      n_init=10, random_state=s)``, minimising Σ_i min_k ‖x_i − c_k‖² over free centroids c_k;
      the seed is ``s = int(rng.integers(0, 2**31 - 1))`` (one draw from ``rng``). Run on one
      OpenMP thread.
    * ``"kmedoids"`` (the reference code, which calls MATLAB's ``kmedoids``): medoids, i.e.
      rows of ``vectors``, minimising the same cost Σ_i min_k ‖x_i − x_{m_k}‖² with the
      anchors restricted to data points. Solved by the alternating (Voronoi-iteration)
      algorithm of Park & Jun (2009) from a k-means++ seeding (Arthur & Vassilvitskii 2007:
      first medoid uniform, each next one drawn ∝ its squared distance to the nearest
      medoid chosen so far): assign every point to its nearest medoid, replace each medoid
      by the member minimising the within-cluster cost, repeat until the medoids stop
      changing. For squared Euclidean dissimilarity Σ_{j∈C} ‖x − x_j‖² = |C|·‖x − x̄_C‖² +
      const, so the cluster's medoid is its member nearest to the cluster mean: an update
      costs O(N·f), not O(|C|²·f). A local optimum, like MATLAB's; the cost never increases.

    The rows of the result are ordered by cluster label (k-means) or seeding order
    (k-medoids); the order carries no meaning.

    Raises
    ------
    ParameterError
        n_anchors < 1, more anchors than distinct rows, or an unknown ``method``.
    DataFormatError
        ``vectors`` not a finite 2-D array.

    Returns
    -------
    ndarray (G, f)
    """
    owner = "select_anchors"
    method = check_choice(method, "method", owner, ANCHOR_METHODS)
    n_anchors = check_int(n_anchors, "n_anchors", owner, low=1)
    rng = check_random_state(rng)
    x = _check_vectors(vectors, "vectors")
    distinct = np.unique(x, axis=0).shape[0]
    if n_anchors > distinct:
        raise ParameterError(
            f"The 'n_anchors' parameter of select_anchors must be at most the number of distinct vectors "
            f"({distinct} of {x.shape[0]} rows). Got {n_anchors} instead."
        )
    if method == "kmeans":
        seed = int(rng.integers(0, 2**31 - 1))
        # one OpenMP thread: G ≈ 8 clusters of ~10⁴ rows take milliseconds, and on a loaded
        # machine scikit-learn's thread team made the same fit far slower
        # (measured: see bench/RESULTS.md, section 'Figures moved out of the code (issue 36)')
        with threadpool_limits(limits=1, user_api="openmp"):
            model = KMeans(n_clusters=n_anchors, n_init=_KMEANS_N_INIT, random_state=seed).fit(x)
        return np.asarray(model.cluster_centers_, dtype=np.float64)
    return x[_kmedoids(x, n_anchors, rng)].copy()


def _squared_distances(x: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """‖x_i − c_k‖² for every row pair, (N, K), clipped at 0 against rounding."""
    sq = (x * x).sum(axis=1)[:, None] - 2.0 * (x @ centres.T) + (centres * centres).sum(axis=1)[None, :]
    return np.maximum(sq, 0.0)


def _kmedoids_seed(x: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """k-means++ seeding on squared Euclidean distance: row indices of k distinct medoids."""
    n = x.shape[0]
    chosen = [int(rng.integers(n))]
    nearest = _squared_distances(x, x[chosen])[:, 0]
    for _ in range(1, k):
        total = nearest.sum()
        # total > 0 while fewer than `distinct` medoids are chosen; a row equal to a chosen
        # medoid has probability 0, so the medoids are distinct vectors
        index = int(rng.choice(n, p=nearest / total))
        chosen.append(index)
        nearest = np.minimum(nearest, _squared_distances(x, x[[index]])[:, 0])
    return np.array(chosen, dtype=np.intp)


def _kmedoids(x: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Alternating k-medoids (Park & Jun 2009) from a k-means++ seeding; medoid row indices."""
    medoids = _kmedoids_seed(x, k, rng)
    for _ in range(_KMEDOIDS_MAX_ITER):
        labels = np.argmin(_squared_distances(x, x[medoids]), axis=1)
        updated = medoids.copy()
        for cluster in range(k):
            members = np.flatnonzero(labels == cluster)  # never empty: a medoid is nearest to itself
            mean = x[members].mean(axis=0)
            gap = ((x[members] - mean) ** 2).sum(axis=1)
            best = members[np.argmin(gap)]
            # keep the current medoid on a tie: the cost stays and the loop terminates
            if gap[members == medoids[cluster]][0] > gap.min():
                updated[cluster] = best
        if np.array_equal(updated, medoids):
            break
        medoids = updated
    return medoids


# ------------------------------------------------------------------------------------------
# distance, kernel, weights
# ------------------------------------------------------------------------------------------


def angular_distance(vectors: np.ndarray, anchors: np.ndarray) -> np.ndarray:
    """Normalised angle between every row and every anchor, (N, G).

    d(v, a) = (2/π)·arccos(cos(v, a)) with cos(v, a) = ⟨v, a⟩ / (‖v‖‖a‖) clipped to [−1, 1]:
    0 for the same direction, 1 for orthogonal, 2 for opposite. A zero vector (row or anchor)
    has no direction: its cosine is taken as 0, so its distance is 1 to everything.
    """
    v = _check_vectors(vectors, "vectors")
    a = _check_vectors(anchors, "anchors")
    if v.shape[1] != a.shape[1]:
        raise DataFormatError(
            f"vectors have {v.shape[1]} columns but anchors have {a.shape[1]}; both must live in the same space."
        )
    v_norm = np.linalg.norm(v, axis=1)
    a_norm = np.linalg.norm(a, axis=1)
    denominator = np.outer(v_norm, a_norm)
    dots = v @ a.T
    cosine = np.divide(dots, denominator, out=np.zeros_like(dots), where=denominator > 0)
    return (2.0 / np.pi) * np.arccos(np.clip(cosine, -1.0, 1.0))


def smoothing_kernel(distance: np.ndarray, bandwidth: float, smoothing: str = "epanechnikov") -> np.ndarray:
    """Value of the smoothing kernel ``smoothing`` at each distance d ≥ 0, with support radius
    h = ``bandwidth`` > 0 (u = d/h):

    * Epanechnikov: (3/4)(1 − u²)·1[u < 1];
    * uniform: 1[u < 1];
    * triangular: (1 − u)·1[u < 1].

    Zero at and beyond d = h. Same shape as ``distance``.
    """
    owner = "smoothing_kernel"
    h = check_real(bandwidth, "bandwidth", owner, low=0.0, low_open=True)
    smoothing = check_choice(smoothing, "smoothing", owner, SMOOTHING_KERNELS)
    d = np.asarray(distance, dtype=np.float64)
    if not np.isfinite(d).all() or (d < 0).any():
        raise DataFormatError("distance must hold finite values >= 0.")
    u = d / h
    inside = u < 1.0
    if smoothing == "epanechnikov":
        values = 0.75 * (1.0 - u * u)
    elif smoothing == "uniform":
        values = np.ones_like(u)
    else:
        values = 1.0 - u
    return np.where(inside, values, 0.0)


def component_weights(
    vectors: np.ndarray, anchors: np.ndarray, bandwidth: float, smoothing: str = "epanechnikov"
) -> np.ndarray:
    """Non-negative weights of every row on the G components, each row summing to 1, (N, G).

    η_i^(k) = K(d(v_i, a_k)/h) / Σ_{k'} K(d(v_i, a_{k'})/h) with d the :func:`angular_distance`
    and K the :func:`smoothing_kernel` (the reference code's per-row normalisation). A row
    whose kernel values are all 0 (every anchor at distance ≥ h) gets weight 1 on its nearest
    anchor (smallest d; ties to the lowest index), where the reference code leaves a silent
    all-zero row whose every score is 0. Since K vanishes beyond h, a smaller h gives sparser
    rows.
    """
    owner = "component_weights"
    check_real(bandwidth, "bandwidth", owner, low=0.0, low_open=True)
    check_choice(smoothing, "smoothing", owner, SMOOTHING_KERNELS)
    distance = angular_distance(vectors, anchors)
    values = smoothing_kernel(distance, bandwidth, smoothing)
    totals = values.sum(axis=1)
    weights = np.divide(values, totals[:, None], out=np.zeros_like(values), where=totals[:, None] > 0)
    orphans = np.flatnonzero(totals <= 0)
    weights[orphans, np.argmin(distance[orphans], axis=1)] = 1.0
    return weights


def _check_vectors(vectors: Any, name: str) -> np.ndarray:
    """``vectors`` as a finite float64 2-D array with at least one row."""
    x = np.asarray(vectors, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] == 0 or x.shape[1] == 0:
        raise DataFormatError(
            f"{name} must be a non-empty two-dimensional array (rows × factors); got shape {x.shape}."
        )
    if not np.isfinite(x).all():
        raise DataFormatError(f"{name} contains {int((~np.isfinite(x)).sum())} NaN or infinite value(s).")
    return x
