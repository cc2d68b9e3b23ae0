"""KernelContract: the checks every kernel family passes, built-in or a third party's.

Subclass it in a pytest test module and give :meth:`KernelContract.make_kernel`::

    from ratkit.testing import KernelContract

    class TestMyKernel(KernelContract):
        def make_kernel(self):
            return MyKernel(n=2)

Each check is an independent oracle of the kernel's other routes: ``gram`` against the
pairwise calls ``k(x, y)``, the explicit features against ``gram``, the family's own
algorithm against the transducer, the spec against the kernel it describes.
"""

from __future__ import annotations

import json
import pickle
import random
from typing import Any

import numpy as np
import pytest
from sklearn.base import clone

from ratkit.automata.kernels import Kernel, TooManyPaths, from_spec, to_spec, vocabulary_from_state
from ratkit.automata.kernels.inputs import is_single

__all__ = ["KernelContract"]


def _one_input(x: Any) -> bool:
    """One input of a kernel: one sequence, lattice or graph (:func:`is_single`), or a pair
    (a 2-tuple) of them, the input of a pairwise kernel (:mod:`ratkit.automata.pairwise`)."""
    return is_single(x) or (isinstance(x, tuple) and len(x) == 2 and all(_one_input(v) for v in x))


class KernelContract:
    """A pytest mixin of the contract of :class:`~ratkit.automata.kernels.Kernel`.

    Hooks: :meth:`make_kernel` (required) and :meth:`make_inputs` (random strings by
    default). Class attributes tune it: ``rtol`` (agreement of two routes, relative to the
    largest value), ``pds_rtol`` (the smallest eigenvalue of a PDS kernel's Gram matrix
    may be as low as −pds_rtol · its largest), ``strategies`` (the ``strategy`` options of
    :meth:`~ratkit.automata.kernels.Kernel.gram_with` whose Gram matrices must equal the
    transducer's, ``strategy="composition"``; a strategy the kernel does not have — it
    raises ValueError, TypeError or TooManyPaths — is left out; a kernel without options
    ignores them).
    """

    rtol: float = 1e-9
    pds_rtol: float = 1e-9
    strategies: tuple[str, ...] | None = None
    #: The alphabet and the lengths of the default inputs.
    alphabet: str = "abc"
    max_length: int = 8

    # -- hooks ---------------------------------------------------------------------------
    def make_kernel(self) -> Kernel:
        """A fresh kernel of the family under test."""
        raise NotImplementedError("A KernelContract test class must define make_kernel().")

    def make_inputs(self, seed: int = 0, n: int = 10) -> list[Any]:
        """``n`` sequences the kernel accepts (default: random strings over :attr:`alphabet`,
        the empty string included)."""
        rng = random.Random(seed)
        out = ["".join(rng.choice(self.alphabet) for _ in range(rng.randint(1, self.max_length))) for _ in range(n)]
        return [""] + out[1:] if n > 1 else out

    # -- helpers ---------------------------------------------------------------------------
    def _close(self, actual: Any, expected: Any, what: str) -> None:
        actual, expected = np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64)
        assert actual.shape == expected.shape, f"{what}: shape {actual.shape}, expected {expected.shape}"
        scale = max(float(np.abs(expected).max(initial=0.0)), 1.0)
        np.testing.assert_allclose(actual, expected, rtol=self.rtol, atol=self.rtol * scale, err_msg=what)

    def _gram(self, kernel: Kernel, X: list, Y: list | None = None) -> np.ndarray:
        G = np.asarray(kernel.gram(X, Y), dtype=np.float64)
        assert np.all(np.isfinite(G)), f"{kernel!r} gave non-finite Gram values"
        return G

    # -- the contract ------------------------------------------------------------------------
    def test_computes_its_gram_in_the_gram_hook(self) -> None:
        k = self.make_kernel()
        assert type(k).gram is Kernel.gram, (
            f"{type(k).__name__} overrides gram(); define _gram(self, X, Y=None, **options) instead: Kernel.gram "
            "is the one entry, which validates, computes in blocks into a file (out=, block_bytes=, resume=, "
            "overwrite=) and calls _gram."
        )

    def test_is_a_kernel_family(self) -> None:
        k = self.make_kernel()
        assert isinstance(k, Kernel)
        text = repr(k)
        assert "\n" not in text and text.startswith(type(k).__name__ + "(")
        k._validate_params()

    def test_gram_is_symmetric_with_the_shapes_asked_for(self) -> None:
        k = self.make_kernel()
        X, Y = self.make_inputs(0), self.make_inputs(1, 4)
        G = self._gram(k, X)
        assert G.shape == (len(X), len(X))
        self._close(G, G.T, "gram(X) against its transpose")
        self._close(self._gram(k, X, Y), self._gram(k, X + Y)[: len(X), len(X) :], "gram(X, Y) against gram(X + Y)")

    def test_gram_equals_pairwise_calls(self) -> None:
        k = self.make_kernel()
        X, Y = self.make_inputs(2, 5), self.make_inputs(3, 4)
        collections = [x for x in X + Y if not _one_input(x)]
        assert not collections, (
            "make_inputs must give single inputs (sequences, lattices, graphs, or pairs of them for a pairwise "
            f"kernel); one is the collection {collections[0]!r:.80}"
        )
        values = [[k(x, y) for y in Y] for x in X]
        assert all(np.ndim(v) == 0 for row in values for v in row), f"{k!r}: k(x, y) of two inputs is not a number"
        pairwise = np.array(values, dtype=np.float64)
        self._close(self._gram(k, X, Y), pairwise, "gram(X, Y) against k(x, y) pair by pair")

    def test_diag_equals_the_gram_diagonal(self) -> None:
        k = self.make_kernel()
        X = self.make_inputs(4)
        self._close(k.diag(X), np.diag(self._gram(k, X)), "diag(X) against the diagonal of gram(X)")

    def test_split_scale_keeps_the_values(self) -> None:
        """K = e^s · K′ for (s, K′) = :meth:`~ratkit.automata.kernels.Kernel.split_scale`, the
        common scale a cosine leaves out and a scaled kernel applies last."""
        k = self.make_kernel()
        s, unit = k.split_scale()
        assert isinstance(unit, Kernel) and np.isfinite(s), f"{k!r}.split_scale() gave {(s, unit)!r:.80}"
        X = self.make_inputs(5)
        self._close(np.exp(s) * self._gram(unit, X), self._gram(k, X), "e^s · K′ of split_scale() against K")

    def test_pds_on_random_samples(self) -> None:
        k = self.make_kernel()
        if k.is_pds is not True:
            pytest.skip(f"{k!r} is not flagged PDS (is_pds is {k.is_pds!r})")
        for seed in range(3):
            G = self._gram(k, self.make_inputs(10 + seed, 12))
            lam = np.linalg.eigvalsh((G + G.T) / 2)
            assert lam[0] >= -self.pds_rtol * max(float(lam[-1]), 1.0), (
                f"{k!r} is flagged PDS but a Gram matrix has the eigenvalue {lam[0]!r}"
            )

    def test_specialised_paths_equal_the_transducer_path(self) -> None:
        k = self.make_kernel()
        if type(k).gram_with is Kernel.gram_with:
            pytest.skip(f"{k!r} has one way to compute its Gram matrix (no strategies)")
        names = ("auto", "specialized", "features", "intersection") if self.strategies is None else self.strategies
        if not names:
            pytest.skip(f"no strategies to compare for {k!r}")
        X = self.make_inputs(5, 6)
        reference = k.gram_with(X, strategy="composition")
        compared = []
        for name in names:
            try:
                G = k.gram_with(X, strategy=name)
            except (TooManyPaths, ValueError, TypeError):  # the family has no such path
                continue
            self._close(G, reference, f"strategy={name!r} against strategy='composition'")
            compared.append(name)
        assert compared, f"no strategy of {names} ran for {k!r}"

    def test_explicit_features_reproduce_gram(self) -> None:
        k = self.make_kernel()
        X, Y = self.make_inputs(6), self.make_inputs(7, 5)
        try:
            vocabulary, F = k.fit_features(X)
        except TooManyPaths:
            pytest.skip(f"{k!r} has no finite feature map")
        assert F.shape == (len(X), vocabulary.n_features)
        self._close((F @ F.T).toarray(), self._gram(k, X), "⟨F_i, F_j⟩ against gram(X)")
        self._close(k.transform_features(vocabulary, X).toarray(), F.toarray(), "transform_features(X) against F")
        # features outside X's vocabulary add nothing to an inner product with a row of X
        FY = k.transform_features(vocabulary, Y)
        self._close((FY @ F.T).toarray(), self._gram(k, Y, X), "⟨F(y), F(x)⟩ against gram(Y, X)")
        codes, base = vocabulary.pattern_codes()
        assert codes.shape == (vocabulary.n_features,) and np.all(np.diff(codes) > 0) and np.all(codes >= 0)
        assert base >= 2
        again = vocabulary_from_state(*vocabulary.to_state())
        self._close(k.transform_features(again, Y).toarray(), FY.toarray(), "the vocabulary rebuilt from its state")
        k.check_vocabulary(again, np.arange(again.n_features))

    def test_spec_round_trip(self) -> None:
        k = self.make_kernel()
        X = self.make_inputs(8)
        G = self._gram(k, X)  # first: a family may fix parameters from the data it sees
        spec = to_spec(k)
        again = from_spec(json.loads(json.dumps(spec)))
        assert type(again) is type(k)
        assert to_spec(again) == spec
        self._close(self._gram(again, X), G, "the kernel rebuilt from its spec")

    def test_clone_gives_an_equal_independent_kernel(self) -> None:
        k = self.make_kernel()
        X = self.make_inputs(9)
        c = clone(k)
        assert c is not k and type(c) is type(k) and repr(c) == repr(k)
        self._close(self._gram(c, X), self._gram(k, X), "a clone")

    def test_pickle_round_trip(self) -> None:
        k = self.make_kernel()
        X = self.make_inputs(10)
        G = self._gram(k, X)
        again = pickle.loads(pickle.dumps(k))
        self._close(self._gram(again, X), G, "the kernel after pickling")
