"""Pictures of what ratkit computes, written as PNG files (matplotlib, the ``plot`` extra).

Every function draws one figure of the fixed size :data:`FIGSIZE` inches at :data:`DPI`
dots per inch — 6.4 × 4.8 in at 100 dpi, i.e. **640 × 480 pixels** — with matplotlib's
Agg renderer on a figure of its own (pyplot and the user's backend are left alone), writes
it to ``path`` atomically (a temporary file in the target's folder renamed over it, see
:mod:`ratkit._files`), and returns the data it plotted (numpy arrays and lists), so that a
caller can compare the picture's numbers with those it printed. Bad input raises a
:class:`~ratkit.exceptions.ParameterError` naming it before anything is drawn; without
matplotlib every function raises :class:`~ratkit.exceptions.MissingDependencyError`
saying ``pip install 'ratkit[plot]'``.

* :func:`plot_dcd_convergence` — the dual objective and the projected-gradient gap of a
  DCD run, pass by pass (a fitted learner's ``convergence_``);
* :func:`plot_gram` — a Gram matrix as a heatmap, rows and columns sorted by class, its
  colours clipped to the 1st–99th percentile of the entries;
* :func:`plot_kernel_weights` — learnt kernel weights μ, largest first, with their patterns;
* :func:`plot_metrics_at_k` — recommender metrics@k, one panel per metric, one line per model;
* :func:`plot_min_eigenvalue` — λ_min of the Gram matrix against n (survey, Fig. 8).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any

import numpy as np

from ratkit._files import atomic_path, check_output_path
from ratkit.exceptions import MissingDependencyError, ParameterError, ParameterTypeError

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from matplotlib.typing import RcKeyType

__all__ = [
    "FIGSIZE",
    "DPI",
    "plot_dcd_convergence",
    "plot_gram",
    "plot_kernel_weights",
    "plot_metrics_at_k",
    "plot_min_eigenvalue",
]

#: Figure size in inches (width, height): with :data:`DPI`, every PNG is 640 × 480 pixels.
FIGSIZE: tuple[float, float] = (6.4, 4.8)
#: Dots per inch of the PNG files.
DPI: int = 100

#: Font sizes and line widths that stay readable at 640 × 480.
_STYLE: dict[RcKeyType, Any] = {
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 9,
    "figure.titlesize": 12,
    "lines.linewidth": 1.6,
    "lines.markersize": 4,
    "axes.grid": True,
    "grid.alpha": 0.3,
}
#: Pattern labels longer than this are shortened on the picture (not in the returned data).
_LABEL_CHARS = 28


# -- the figure and the file ----------------------------------------------------------------


@contextmanager
def _figure(path: str | os.PathLike, nrows: int = 1, ncols: int = 1, **subplot_kw: Any) -> Iterator[tuple[Any, Any]]:
    """(figure, axes) of :data:`FIGSIZE` at :data:`DPI` on an Agg canvas; the block draws, the
    exit writes the PNG to ``path`` atomically (nothing is written when the block raises)."""
    target = check_output_path(path, "plot file")
    try:
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise MissingDependencyError(
            "Plotting needs matplotlib, which is not installed. Install it with: pip install 'ratkit[plot]'"
        ) from None
    with matplotlib.rc_context(_STYLE):
        fig: Figure = Figure(figsize=FIGSIZE, dpi=DPI, layout="constrained")
        FigureCanvasAgg(fig)
        axes = fig.subplots(nrows, ncols, squeeze=False, **subplot_kw)
        yield fig, axes
        with atomic_path(target, "plot file") as tmp:
            fig.savefig(tmp, format="png", dpi=DPI)


# -- input checks ---------------------------------------------------------------------------


def _vector(values: Any, what: str, owner: str, *, finite: bool = True, allow_nan: bool = False) -> np.ndarray:
    """``values`` as a 1-D float array of at least one entry, or a ParameterError naming ``what``."""
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterTypeError(
            f"{owner}: {what} must be a sequence of numbers; got {values!r:.80} instead."
        ) from None
    if arr.ndim != 1 or arr.size == 0:
        raise ParameterError(f"{owner}: {what} must be a non-empty sequence of numbers; got shape {arr.shape}.")
    bad = ~np.isfinite(arr)
    if allow_nan:
        bad &= ~np.isnan(arr)
    if finite and bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ParameterError(f"{owner}: {what} must hold finite numbers; entry {i} is {float(arr[i])!r}.")
    return arr


def _positive(value: Any, what: str, owner: str) -> float:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ParameterTypeError(f"{owner}: {what} must be a number > 0; got {value!r} instead.")
    if not (math.isfinite(float(value)) and float(value) > 0):
        raise ParameterError(f"{owner}: {what} must be a finite number > 0; got {value!r} instead.")
    return float(value)


def _mapping(value: Any, what: str, owner: str) -> Mapping:
    if not isinstance(value, Mapping) or not value:
        raise ParameterTypeError(f"{owner}: {what} must be a non-empty mapping; got {value!r:.80} instead.")
    return value


def _shown(label: Any) -> str:
    """A pattern as a tick label: ε for the empty pattern, tokens joined by spaces, shortened."""
    if isinstance(label, (tuple, list)):
        label = " ".join(map(str, label))
    text = str(label) if str(label) != "" else "ε"
    return text if len(text) <= _LABEL_CHARS else text[: _LABEL_CHARS - 1] + "…"


# -- the plots ------------------------------------------------------------------------------


def plot_dcd_convergence(convergence: Mapping[str, Any], path: str | os.PathLike) -> dict[str, Any]:
    """The dual objective f(α) = ½αᵀQα − eᵀα and the gap max ∇^P f − min ∇^P f of a DCD run
    against the pass, the gap on a log scale with the stopping tolerance ``tol`` drawn.

    Parameters
    ----------
    convergence
        A fitted DCD learner's ``convergence_`` (e.g. ``RationalSVC().fit(X, y).convergence_``):
        ``"dual_objective"`` and ``"pg_gap"``, one entry per pass, and ``"tol"``. Gaps of 0 (a
        pass that shrank every coordinate) cannot be shown on a log scale and are left out of
        the line; NaN dual objectives (a representation that does not report them) likewise.
    path
        The PNG file to write (640 × 480 px: 6.4 × 4.8 in at 100 dpi).

    Returns
    -------
    dict
        ``{"passes": 1 … n, "dual_objective": ..., "pg_gap": ..., "tol": tol}`` as plotted.
    """
    owner = "plot_dcd_convergence"
    conv = _mapping(convergence, "convergence", owner)
    missing = [k for k in ("dual_objective", "pg_gap", "tol") if k not in conv]
    if missing:
        raise ParameterError(
            f"{owner}: convergence lacks {', '.join(map(repr, missing))}; give a fitted DCD learner's "
            "convergence_ (keys 'dual_objective', 'pg_gap', 'tol')."
        )
    dual = _vector(conv["dual_objective"], "convergence['dual_objective']", owner, allow_nan=True)
    gap = _vector(conv["pg_gap"], "convergence['pg_gap']", owner)
    if dual.size != gap.size:
        raise ParameterError(
            f"{owner}: convergence['dual_objective'] has {dual.size} passes but convergence['pg_gap'] has "
            f"{gap.size}; both hold one entry per pass."
        )
    if (gap < 0).any():
        i = int(np.flatnonzero(gap < 0)[0])
        raise ParameterError(
            f"{owner}: convergence['pg_gap'] must be ≥ 0 (a span of gradients); entry {i} is {float(gap[i])!r}."
        )
    tol = _positive(conv["tol"], "convergence['tol']", owner)
    passes = np.arange(1, dual.size + 1)
    converged = bool(gap[-1] <= tol)
    with _figure(path, 2, 1, sharex=True) as (fig, axes):
        top, bottom = axes[0, 0], axes[1, 0]
        top.plot(passes, dual, marker="o" if dual.size <= 40 else None, color="tab:blue")
        top.set_ylabel("dual objective f(α)")
        top.set_title("f(α) = ½αᵀQα − eᵀα (minimised)")
        shown = np.where(gap > 0, gap, np.nan)
        bottom.plot(passes, shown, marker="o" if gap.size <= 40 else None, color="tab:orange", label="gap")
        bottom.axhline(tol, color="tab:red", linestyle="--", linewidth=1.2, label=f"tol = {tol:g}")
        bottom.set_yscale("log")
        bottom.set_ylabel("max ∇ᴾf − min ∇ᴾf")
        bottom.set_xlabel("pass")
        bottom.set_title("projected-gradient gap (the stopping rule)")
        bottom.legend(loc="upper right")
        fig.suptitle(f"DCD convergence: {dual.size} passes, {'converged' if converged else 'not converged'}")
    return {"passes": passes, "dual_objective": dual, "pg_gap": gap, "tol": tol}


def plot_gram(
    K: np.ndarray, path: str | os.PathLike, *, labels: Sequence | None = None, title: str | None = None
) -> dict[str, Any]:
    """A Gram matrix K_ij = K(x_i, x_j) as a heatmap; with ``labels``, rows and columns sorted
    by class (a stable sort: training order within a class) and the class blocks outlined.

    The colour scale is linear between the 1st and 99th percentiles of the entries; entries
    beyond take the end colours (the colourbar's arrows mark the clipping), and the second
    line of the title states the scale and the maximum. A few large entries (the diagonal of
    long strings) would otherwise set the scale and leave the rest of the map dark. When the
    percentiles do not narrow the range, or are equal, the scale is the full range.

    Parameters
    ----------
    K
        A square matrix of finite numbers.
    path
        The PNG file to write (640 × 480 px: 6.4 × 4.8 in at 100 dpi).
    labels
        One class label per row (any sortable values of one type), or None for K's own order.
    title
        The figure's title (default: "Gram matrix (n × n)", with "sorted by class").

    Returns
    -------
    dict
        ``{"order": the permutation, "matrix": K[order][:, order], "labels": the sorted labels
        (None without labels), "limits": (vmin, vmax) of the colour scale, "scale": the scale
        in words, as in the title}``.
    """
    owner = "plot_gram"
    try:
        M = np.asarray(K, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterTypeError(f"{owner}: K must be a square matrix of numbers; got {K!r:.80} instead.") from None
    if M.ndim != 2 or M.shape[0] != M.shape[1] or M.shape[0] == 0:
        raise ParameterError(f"{owner}: K must be a non-empty square matrix; got shape {M.shape}.")
    if not np.isfinite(M).all():
        i, j = (int(v[0]) for v in np.nonzero(~np.isfinite(M)))
        raise ParameterError(f"{owner}: K must hold finite numbers; K[{i}, {j}] is {float(M[i, j])!r}.")
    n = M.shape[0]
    sorted_labels: list | None = None
    if labels is None:
        order = np.arange(n)
    else:
        labs = list(labels)
        if len(labs) != n:
            raise ParameterError(f"{owner}: labels has {len(labs)} entries but K has {n} rows; give one label per row.")
        try:
            classes, codes = np.unique(np.asarray(labs, dtype=object), return_inverse=True)
        except TypeError:
            raise ParameterTypeError(
                f"{owner}: labels must be comparable values of one type (e.g. all str or all int); got {labs[:5]!r}…"
            ) from None
        order = np.argsort(codes.ravel(), kind="stable")
        sorted_labels = [labs[i] for i in order]
    matrix = M[np.ix_(order, order)]
    if title is not None and not isinstance(title, str):
        raise ParameterTypeError(f"{owner}: title must be a str or None; got {title!r}.")
    vmin, vmax, scale, extend = _gram_colour_limits(matrix)
    clipped = extend != "neither"
    with _figure(path) as (fig, axes):
        ax = axes[0, 0]
        ax.grid(False)
        image = ax.imshow(matrix, cmap="viridis", interpolation="nearest", aspect="equal", vmin=vmin, vmax=vmax)
        fig.colorbar(image, ax=ax, label=f"K(xᵢ, xⱼ){', clipped' if clipped else ''}", shrink=0.9, extend=extend)
        if sorted_labels is not None:
            codes_sorted = codes.ravel()[order]
            edges = np.flatnonzero(np.diff(codes_sorted)) + 1
            for e in edges:
                ax.axhline(e - 0.5, color="white", linewidth=1.2)
                ax.axvline(e - 0.5, color="white", linewidth=1.2)
            bounds = np.concatenate([[0], edges, [n]])
            centres = (bounds[:-1] + bounds[1:] - 1) / 2.0
            names = [_shown(classes[codes_sorted[b]]) for b in bounds[:-1]]
            if len(names) <= 20:
                ax.set_xticks(
                    centres, names, rotation=45 if len(names) > 4 else 0, ha="right" if len(names) > 4 else "center"
                )
                ax.set_yticks(centres, names)
            ax.set_xlabel("class (samples sorted by class)")
            ax.set_ylabel("class")
        else:
            ax.set_xlabel("sample j")
            ax.set_ylabel("sample i")
        default = f"Gram matrix ({n} × {n}){', sorted by class' if sorted_labels is not None else ''}"
        ax.set_title(f"{title if title is not None else default}\n{scale}", fontsize=_STYLE["axes.titlesize"] - 1)
    return {"order": order, "matrix": matrix, "labels": sorted_labels, "limits": (vmin, vmax), "scale": scale}


#: The percentiles of a Gram matrix's entries that bound :func:`plot_gram`'s colour scale,
#: and their name in the title.
_GRAM_PERCENTILES: tuple[float, float] = (1.0, 99.0)
_GRAM_RANGE = "1st–99th percentile"


def _gram_colour_limits(matrix: np.ndarray) -> tuple[float, float, str, str]:
    """(vmin, vmax, the scale in words, the colourbar's ``extend``) of a Gram heatmap: linear
    between the 1st and 99th percentiles of the entries, the rest clipped to the end colours.

    A Gram matrix's few largest entries (the diagonal K(x, x) of long or repetitive strings)
    can exceed its bulk by far — a linear scale up to the maximum 1467 of a matrix whose 99th
    percentile was 39 drew it all but uniformly dark (issue 34) — so the full range is used
    only when the percentiles do not narrow it, or are equal (a constant bulk)."""
    low, high = (float(v) for v in np.percentile(matrix, _GRAM_PERCENTILES))
    least, most = float(matrix.min()), float(matrix.max())
    if not low < high or (low == least and high == most):
        return least, most, f"colour: linear, full range [{least:.4g}, {most:.4g}]", "neither"
    extend = {(True, True): "both", (True, False): "min", (False, True): "max"}[(least < low, most > high)]
    return low, high, f"colour: linear, {_GRAM_RANGE} [{low:.4g}, {high:.4g}], clipped beyond (max {most:.4g})", extend


def plot_kernel_weights(
    weights: Sequence[float], patterns: Sequence[str], path: str | os.PathLike, *, top: int = 30
) -> dict[str, Any]:
    """Learnt kernel weights μ_z as horizontal bars, largest first (at the top), each
    labelled with its pattern z; the ``top`` largest are shown (ties keep their order).

    Parameters
    ----------
    weights
        μ, one finite number per pattern.
    patterns
        The patterns (str, or token tuples); the empty pattern is shown as ε.
    path
        The PNG file to write (640 × 480 px: 6.4 × 4.8 in at 100 dpi).
    top
        How many of the largest weights to show, ≥ 1.

    Returns
    -------
    dict
        ``{"weights": the plotted μ (descending), "patterns": their patterns, "order": their
        indices in the input}``.
    """
    owner = "plot_kernel_weights"
    mu = _vector(weights, "weights", owner)
    pats = list(patterns) if not isinstance(patterns, str) else None
    if pats is None:
        raise ParameterTypeError(f"{owner}: patterns must be a sequence of patterns, not the single str {patterns!r}.")
    if len(pats) != mu.size:
        raise ParameterError(
            f"{owner}: weights has {mu.size} entries but patterns has {len(pats)}; give one pattern per weight."
        )
    if isinstance(top, bool) or not isinstance(top, Integral) or top < 1:
        raise ParameterError(f"{owner}: top must be an int ≥ 1; got {top!r} instead.")
    order = np.argsort(-mu, kind="stable")[: int(top)]
    shown_mu, shown_pats = mu[order], [pats[i] for i in order]
    with _figure(path) as (fig, axes):
        ax = axes[0, 0]
        ax.grid(True, axis="x")
        ax.grid(False, axis="y")
        positions = np.arange(order.size)
        ax.barh(positions, shown_mu, color="tab:blue", height=0.7)
        size = 9 if order.size <= 15 else 8 if order.size <= 25 else 6.5
        ax.set_yticks(positions, [_shown(p) for p in shown_pats], fontsize=size, family="monospace")
        ax.invert_yaxis()  # the largest at the top
        ax.axvline(0.0, color="black", linewidth=0.8)
        ax.set_xlabel("weight μ")
        ax.set_ylabel("pattern")
        extra = f" (top {order.size} of {mu.size})" if order.size < mu.size else ""
        ax.set_title(f"Kernel weights μ, largest first{extra}")
    return {"weights": shown_mu, "patterns": shown_pats, "order": order}


def plot_metrics_at_k(
    curves: Mapping[str, Mapping[str, Mapping[int, float]]], path: str | os.PathLike
) -> dict[str, Any]:
    """Recommender metrics@k against k: one panel per metric, one line per model.

    Parameters
    ----------
    curves
        ``curves[model][metric][k] = value`` (e.g. ``{"MFAUC": {"precision": {1: 0.3, 5: 0.2}}}``);
        metrics appear in the order they are first met, k ascending within a line.
    path
        The PNG file to write (640 × 480 px: 6.4 × 4.8 in at 100 dpi).

    Returns
    -------
    dict
        ``{"models": [...], "metrics": [...], "curves": {model: {metric: {"k": ks, "value":
        values}}}}`` as plotted (ks ascending).
    """
    owner = "plot_metrics_at_k"
    _mapping(curves, "curves", owner)
    models: list[str] = []
    metrics: list[str] = []
    data: dict[str, dict[str, dict[str, np.ndarray]]] = {}
    for model, per_metric in curves.items():
        _mapping(per_metric, f"curves[{model!r}]", owner)
        models.append(str(model))
        data[str(model)] = {}
        for metric, points in per_metric.items():
            where = f"curves[{model!r}][{metric!r}]"
            _mapping(points, where, owner)
            ks = list(points)
            if any(isinstance(k, bool) or not isinstance(k, Integral) or k < 1 for k in ks):
                raise ParameterError(f"{owner}: {where} must map cut-offs k (ints ≥ 1) to values; got keys {ks!r}.")
            k_arr = np.asarray(sorted(int(k) for k in ks), dtype=np.int64)
            values = _vector([points[k] for k in sorted(ks)], f"the values of {where}", owner)
            data[str(model)][str(metric)] = {"k": k_arr, "value": values}
            if str(metric) not in metrics:
                metrics.append(str(metric))
    ncols = min(len(metrics), 2 if len(metrics) <= 4 else 3)
    nrows = math.ceil(len(metrics) / ncols)
    with _figure(path, nrows, ncols) as (fig, axes):
        flat = axes.ravel()
        for ax, metric in zip(flat, metrics):
            for model in models:
                line = data[model].get(metric)
                if line is not None:
                    ax.plot(line["k"], line["value"], marker="o", label=model)
            ax.set_title(f"{metric}@k")
            ax.set_xlabel("k")
            ax.set_ylabel(metric)
            all_k = sorted({int(k) for m in models if metric in data[m] for k in data[m][metric]["k"]})
            if len(all_k) <= 10:
                ax.set_xticks(all_k)
        for ax in flat[len(metrics) :]:
            ax.set_visible(False)
        if len(models) > 1 or len(metrics) == 1:
            flat[0].legend(loc="best")
        fig.suptitle(f"Ranking metrics@k: {', '.join(models)}" if len(models) <= 3 else "Ranking metrics@k")
    return {"models": models, "metrics": metrics, "curves": data}


def plot_min_eigenvalue(
    curve: Mapping[int, float] | Mapping[float, float], path: str | os.PathLike, *, xlabel: str = "n"
) -> dict[str, Any]:
    """λ_min of a Gram matrix against x (survey Fig. 8: the kernel over all strings up to
    length n), with the zero line: a kernel is not PDS where the curve goes below it.

    Parameters
    ----------
    curve
        ``curve[x] = λ_min`` (e.g. the maximum string length n → the smallest eigenvalue of
        the Gram matrix over all strings of length ≤ n); plotted with x ascending.
    path
        The PNG file to write (640 × 480 px: 6.4 × 4.8 in at 100 dpi).
    xlabel
        The x axis label.

    Returns
    -------
    dict
        ``{"x": xs ascending, "min_eigenvalue": their λ_min}``.
    """
    owner = "plot_min_eigenvalue"
    _mapping(curve, "curve", owner)
    if not isinstance(xlabel, str):
        raise ParameterTypeError(f"{owner}: xlabel must be a str; got {xlabel!r}.")
    xs = _vector(list(curve), "the x values (keys) of curve", owner)
    ys = _vector(list(curve.values()), "the eigenvalues of curve", owner)
    order = np.argsort(xs, kind="stable")
    xs, ys = xs[order], ys[order]
    if all(isinstance(k, Integral) and not isinstance(k, bool) for k in curve):
        xs = xs.astype(np.int64)  # integer x (lengths n) stay integers
    negative = ys < 0
    with _figure(path) as (fig, axes):
        ax = axes[0, 0]
        ax.axhline(0.0, color="black", linewidth=1.0, label="0 (below: not PDS)")
        ax.plot(xs, ys, marker="o", color="tab:blue", label=r"$\lambda_{\min}$")
        if negative.any():
            ax.plot(xs[negative], ys[negative], "o", color="tab:red", markersize=7, label=r"$\lambda_{\min} < 0$")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(r"smallest eigenvalue $\lambda_{\min}$")
        if xs.size <= 15 and np.allclose(xs, np.round(xs)):
            ax.set_xticks(xs)
        ax.legend(loc="best")
        ax.set_title("Minimum eigenvalue of the Gram matrix")
    return {"x": xs, "min_eigenvalue": ys}
