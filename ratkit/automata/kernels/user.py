"""Rational kernels from any user transducer."""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Callable
from typing import Any

import numpy as np
import pynini

from ratkit._files import check_input_file
from ratkit._parallel import Shared, effective_jobs, map_chunks
from ratkit.automata.alphabet import Alphabet
from ratkit.automata.construct import as_transducer, from_pynini
from ratkit.automata.io import read_att, read_fst, to_att
from ratkit.automata.kernels import _evaluator
from ratkit.automata.kernels._paths import TooManyPaths
from ratkit.automata.kernels._rational_work import phi_features_chunk
from ratkit.automata.kernels.inputs import is_lattice
from ratkit.automata.kernels.rational import RationalKernel, Strategy
from ratkit.automata.kernels.spec import SpecError, SpecTypeError
from ratkit.automata.semirings import Semiring, get_semiring
from ratkit.automata.transducer import Transducer
from ratkit.exceptions import FstFormatError, ParameterError, ParameterTypeError, PathIsFolderError, RatkitError
from ratkit.limits import MAX_PATHS
from ratkit.plugins import register

__all__ = ["TransducerKernel", "from_transducer", "load_transducer"]

log = logging.getLogger(__name__)

_MAGIC = (2125659606).to_bytes(4, "little")


def load_transducer(source: Any, semiring: Any = None) -> Transducer:
    """A ratkit transducer from a Transducer, a pynini FST, or a file (OpenFst binary or AT&T text)."""
    if isinstance(source, Transducer):
        return source
    if isinstance(source, pynini.Fst):
        return from_pynini(source, semiring)
    if isinstance(source, (bytes, bytearray)):
        raise ParameterTypeError(
            "The transducer is bytes; give a path (str), a ratkit Transducer or a pynini.Fst (for AT&T text "
            "decode it and use ratkit.automata.read_att(text.splitlines()))."
        )
    if isinstance(source, (str, os.PathLike)):
        if os.path.isdir(source):
            raise PathIsFolderError(
                f"Transducer file {str(source)!r} is a folder, not a file; expected an OpenFst binary or AT&T "
                "text file."
            )
        path = check_input_file(source, "Transducer file", "an OpenFst binary or AT&T text file")
        with open(path, "rb") as fh:
            binary = fh.read(4) == _MAGIC
        return read_fst(path, semiring) if binary else read_att(path, semiring or "probability")
    try:
        return as_transducer(source, get_semiring(semiring) if semiring else None, what="transducer")
    except TypeError as exc:
        if isinstance(exc, RatkitError):
            raise
        raise ParameterTypeError(str(exc)) from exc


@register("kernel", "transducer")
class TransducerKernel(RationalKernel):
    """K(x, y) = Ψ(⟦S⟧(x, y)) with S = T ∘ T⁻¹ (``pds=True``, Proposition 1) or S = T.

    Parameters
    ----------
    transducer
        A ratkit Transducer, a pynini FST, or the path of an OpenFst binary or AT&T text file.
    psi
        Ψ: None for the semiring's own (identity on probabilities, e^{−v} on log values,
        identity on tropical costs), or a callable applied to natural-domain values.
    pds
        Build S = T ∘ T⁻¹. The kernel is then PDS when Ψ is a semiring morphism
        (probability and log semirings).
    semiring
        The semiring when reading a file or a pynini FST (default: from the file).

    Notes
    -----
    With ``strategy="auto"`` the feature vectors Φ_x = Π2(X ∘ T) of plain sequences are
    computed by a compiled dynamic programme over (position, state) of T exported to arrays
    (``ratkit.automata.kernels._evaluator``), exactly in float64; ``strategy="features"``
    builds them with OpenFst (the oracle). Sequences whose Φ_x the evaluator cannot
    enumerate (lattices; an output-producing ε-input cycle, which makes Φ_x infinite; too
    many paths; products of weights above 1 that could leave float64's range midway) go to
    OpenFst, and the ``ratkit.automata.kernels.user`` log says so.
    """

    def __init__(
        self,
        transducer: Any = None,
        *,
        psi: Callable[[Any], float] | None = None,
        pds: bool = True,
        semiring: str | None = None,
        strategy: Strategy = "auto",
        n_jobs: int | None = None,
        show_progress: bool = False,
    ) -> None:
        self.transducer_source = transducer
        self.psi = psi
        self.pds = pds
        self.semiring_name = semiring
        self.strategy = strategy
        self.n_jobs = n_jobs
        self.show_progress = show_progress

    @classmethod
    def _get_param_names(cls) -> list[str]:
        return ["n_jobs", "pds", "psi", "semiring", "show_progress", "strategy", "transducer"]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        return {
            "transducer": self.transducer_source,
            "psi": self.psi,
            "pds": self.pds,
            "semiring": self.semiring_name,
            "strategy": self.strategy,
            "n_jobs": self.n_jobs,
            "show_progress": self.show_progress,
        }

    def set_params(self, **params: Any) -> TransducerKernel:
        renames = {"transducer": "transducer_source", "semiring": "semiring_name"}
        for key, value in params.items():
            if key not in self.get_params():
                raise ParameterError(
                    f"Invalid parameter {key!r} for TransducerKernel; valid: {sorted(self.get_params())}."
                )
            setattr(self, renames.get(key, key), value)
        self.__dict__.pop("_user_t", None)
        self.__dict__.pop("_evaluator_cache", None)
        return self

    # -- the spec form: {"family": "transducer", "path": FILE | "att": TEXT, "pds", "semiring"} --
    _spec_file_keys = ("path",)

    @classmethod
    def _spec_keys(cls) -> tuple[str, ...]:
        return ("path", "att", "pds", "semiring", "strategy", "n_jobs", "show_progress")

    def _spec_params(self, *, inline: bool = False) -> dict[str, Any]:
        """The transducer as its file's ``path``, or as AT&T text (``att``) when it was given
        as an object or when ``inline``; a custom Python Ψ has no spec form."""
        if self.psi is not None:
            raise SpecError("A kernel with a custom Python psi cannot be written as a spec.")
        src = self.transducer_source
        out: dict[str, Any] = {"pds": bool(self.pds)}
        if isinstance(src, (str, os.PathLike)) and not inline:
            out["path"] = str(src)
        else:
            out["att"] = self.att()
        out["semiring"] = self.semiring.name
        options = super()._spec_params(inline=inline)
        out.update({k: options[k] for k in ("strategy", "n_jobs", "show_progress") if k in options})
        return out

    @classmethod
    def _from_spec_params(cls, params: dict[str, Any]) -> TransducerKernel:
        params = dict(params)
        if ("path" in params) == ("att" in params):
            raise SpecError("A transducer kernel needs exactly one of the keys 'path' or 'att'.")
        if "att" in params:
            source: Any = _read_att_text(params.pop("att"), params.get("semiring") or "probability")
        else:
            source = params.pop("path")
            if not isinstance(source, (str, os.PathLike)):
                raise SpecTypeError(
                    f"The 'path' key of a transducer spec names an OpenFst binary or AT&T text file (a str). "
                    f"Got {source!r:.40} ({type(source).__name__}) instead."
                )
            if isinstance(source, str) and "\n" in source:
                raise SpecError(
                    "The 'path' key of a transducer spec names a file, but its value holds several lines: "
                    "for AT&T text itself use the key 'att'."
                )
        return cls(source, **params)

    def _validate_params(self) -> None:
        if self.psi is not None and not callable(self.psi):
            raise ParameterTypeError(
                f"The 'psi' parameter of from_transducer must be None or a callable (a function of the "
                f"natural-domain value). Got {self.psi!r:.40} ({type(self.psi).__name__}) instead."
            )
        if not isinstance(self.pds, (bool, np.bool_)):
            raise ParameterTypeError(
                f"The 'pds' parameter of from_transducer must be a bool. Got {self.pds!r:.40} instead."
            )
        self.user_transducer()

    def user_transducer(self) -> Transducer:
        """The user's transducer T, loaded once."""
        if "_user_t" not in self.__dict__:
            if self.transducer_source is None:
                raise ParameterTypeError(
                    "from_transducer needs a transducer: a Transducer, a pynini.Fst or a file path. Got None."
                )
            self.__dict__["_user_t"] = load_transducer(self.transducer_source, self.semiring_name)
        return self.__dict__["_user_t"]

    def content_params(self) -> dict[str, Any]:
        """A transducer given as a file path counts as the transducer read from it: a Gram
        written to a file and resumed after the file was edited is refused, not mixed."""
        if isinstance(self.transducer_source, (str, os.PathLike)):
            return {"transducer": self.user_transducer()}
        return {}

    @property
    def semiring(self) -> Semiring:  # type: ignore[override]  # read from the transducer; the base declares an attribute
        return self.user_transducer().semiring

    @property
    def is_pds(self) -> bool:  # type: ignore[override]  # computed from the transducer; the base declares a class attribute
        return bool(self.pds) and self.psi is None and self.semiring.real_plus

    def _alphabet_symbols(self) -> tuple[str, ...]:
        return self.user_transducer().alphabet.symbols

    def _relabelled(self, alphabet: Alphabet) -> Transducer:
        t = self.user_transducer()
        if alphabet.symbols == t.alphabet.symbols:
            return t
        from ratkit.automata.operations import _in_alphabet

        return Transducer(_in_alphabet(t, alphabet), t.semiring, alphabet, check=False)

    def _build_factor(self, alphabet: Alphabet) -> Transducer | None:
        return self._relabelled(alphabet) if self.pds else None

    def _build_transducer(self, alphabet: Alphabet) -> Transducer:
        return super()._build_transducer(alphabet) if self.pds else self._relabelled(alphabet)

    def _psi(self, native: np.ndarray) -> np.ndarray:
        if self.psi is None:
            return super()._psi(native)
        sr = self.semiring
        flat = [float(self.psi(sr.from_native(v))) for v in np.ravel(native)]
        return np.array(flat).reshape(np.shape(native))

    # A user Ψ is applied to ⊕_z Φ_x(z) ⊗ Φ_y(z) as a whole: unless it is the identity the
    # inner products of Φ_x are not K, so the kernel has no explicit feature map to offer
    # (a sum or product of it must not train on features either).
    def fit_features(self, X: Any, **options: Any) -> Any:
        self._refuse_features_with_psi()
        return super().fit_features(X, **options)

    def transform_features(self, vocabulary: Any, X: Any, **options: Any) -> Any:
        self._refuse_features_with_psi()
        return super().transform_features(vocabulary, X, **options)

    def feature_automata(self, X: Any) -> Any:
        return None if self.psi is not None else super().feature_automata(X)

    def _refuse_features_with_psi(self) -> None:
        if self.psi is not None:
            raise TooManyPaths("a custom psi makes K(x, y) = Ψ(⟨Φ_x, Φ_y⟩), not an inner product of features")

    def _psi_features(self, G: np.ndarray) -> np.ndarray:
        """G holds ⊕_z Φ_x(z) ⊗ Φ_y(z) as reals; a user Ψ gets the natural-domain value."""
        psi = self.psi
        if psi is None:
            return G
        natural = G if self.semiring.real_plus and not self.semiring.log_weights else -np.log(G)  # p or −ln p
        return np.vectorize(lambda v: float(psi(v)), otypes=[float])(natural)

    # -- Φ_x by the compiled evaluator (strategy "auto"); OpenFst's feature path is its oracle --
    def _compiled_features(
        self, t: Transducer, sequences: list[Any], n_labels: int, n_jobs: int | None, show_progress: bool
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """Φ_x = Π2(X ∘ T) of every plain sequence by :mod:`._evaluator` (a dynamic programme
        over (position, state), weights in float64); the sequences it cannot evaluate — lattices,
        an infinite Φ_x (an output-producing cycle that reads no input), too many paths — go
        to the OpenFst feature path, and the log says which and why."""
        exported = self._exported(t, n_labels)
        if exported is None:
            return None
        plain = [i for i, x in enumerate(sequences) if not is_lattice(x)]
        labels = [t.alphabet.labels(sequences[i]) for i in plain]
        jobs = effective_jobs(n_jobs)
        size = max(1, -(-len(labels) // (4 * jobs))) if jobs > 1 else max(1, len(labels))
        parts = map_chunks(
            _evaluate_chunk,
            labels,
            shared=(Shared(exported),),
            n_jobs=n_jobs if jobs > 1 and len(labels) > 1 else 1,
            chunk_size=size,
            show_progress=show_progress,
            desc="feature strings",
        )
        index = np.asarray(plain, dtype=np.int64)
        rows, codes, vals, status = [], [], [], []
        for c, (r, z, v, st) in enumerate(parts):
            rows.append(index[r + c * size])
            codes.append(z)
            vals.append(v)
            status.append(st)
        status_all = np.concatenate(status) if status else np.zeros(0, dtype=np.int64)
        rest = [i for i, x in enumerate(sequences) if is_lattice(x)] + index[status_all != 0].tolist()
        if rest:
            reasons = [
                f"{int(np.sum(status_all == s))} {_evaluator.STATUS_REASONS[s]}"
                + (f" ({exported.n_bad_reason})" if s == 1 else "")
                for s in sorted(set(status_all.tolist()) - {0})
            ]
            lattices = len(sequences) - len(plain)
            if lattices:
                reasons.append(f"{lattices} are lattices")
            log.info(
                "%r: %d of %d sequences fall back to the OpenFst feature path: %s",
                self,
                len(rest),
                len(sequences),
                "; ".join(reasons),
            )
            fallback = map_chunks(
                functools.partial(phi_features_chunk, n_labels=n_labels),
                [(i, sequences[i]) for i in sorted(rest)],
                shared=(Shared(t),),
                n_jobs=n_jobs,
                show_progress=show_progress,
                desc="feature automata",
            )
            for r, z, v in fallback:
                rows.append(r)
                codes.append(z)
                vals.append(v)
        if not rows:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        return np.concatenate(rows), np.concatenate(codes), np.concatenate(vals)

    def _exported(self, t: Transducer, n_labels: int) -> _evaluator.ExportedTransducer | None:
        """T exported for the evaluator, once per (T, n_labels); None, logged, when it cannot be."""
        cache = self.__dict__.setdefault("_evaluator_cache", {})
        key = (id(t), n_labels)
        if key not in cache or cache[key][0] is not t:
            try:
                exported: _evaluator.ExportedTransducer | None = _evaluator.export_transducer(t, n_labels)
            except _evaluator.EvaluatorUnavailable as exc:
                log.info("%r: Φ_x by the OpenFst feature path: %s", self, exc)
                exported = None
            cache[key] = (t, exported)
        return cache[key][1]

    def att(self) -> str:
        """The user transducer as AT&T text (natural weights)."""
        return to_att(self.user_transducer())


def _read_att_text(text: Any, semiring: Any) -> Transducer:
    """The transducer of the ``att`` key of a spec: always AT&T text itself, never a path
    (a file is the ``path`` key)."""
    if not isinstance(text, str):
        raise SpecTypeError(
            f"The 'att' key of a transducer spec holds AT&T text (a str, one arc or final state a line). "
            f"Got {text!r:.40} ({type(text).__name__}) instead."
        )
    try:
        return read_att(text.splitlines(), semiring)
    except FstFormatError as exc:
        raise FstFormatError(
            f"The 'att' key was read as AT&T text (not as a file name; a file is the 'path' key) and is not "
            f"valid AT&T text: {exc}"
        ) from exc


def _evaluate_chunk(
    exported: _evaluator.ExportedTransducer, chunk: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`~._evaluator.evaluate` of a chunk of label arrays (rows numbered within the chunk)."""
    offsets = np.zeros(len(chunk) + 1, dtype=np.int64)
    np.cumsum([c.shape[0] for c in chunk], out=offsets[1:])
    labels = np.concatenate(chunk) if chunk else np.zeros(0, dtype=np.int64)
    return _evaluator.evaluate(exported, labels, offsets, MAX_PATHS)


def from_transducer(
    transducer: Any,
    psi: Callable[[Any], float] | None = None,
    pds: bool = True,
    semiring: str | None = None,
    **options: Any,
) -> TransducerKernel:
    """A rational kernel from any WFST: K = Ψ(T ∘ T⁻¹) when ``pds`` (Proposition 1), else Ψ(T).

    ``transducer`` is a ratkit Transducer, a ``pynini.Fst``, or the path of an OpenFst
    binary or AT&T text file; reading it checks that it is regulated.
    """
    k = TransducerKernel(transducer, psi=psi, pds=pds, semiring=semiring, **options)
    k._validate_params()
    k._validate_options()
    return k
