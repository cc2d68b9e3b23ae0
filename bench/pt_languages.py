"""Learning piecewise-testable languages with the subsequence kernel (issue 5).

Protocol. For every target of ``ratkit.automata.pt.examples.EXAMPLES`` (n-PT, n = 1..3,
alphabets of 2–4 symbols): draw a balanced training sample of ``--n-train`` strings of
length ≤ ``--train-len`` and a fresh balanced test sample of ``--n-test`` strings of
length ≤ ``--test-len`` with another seed (``ratkit.automata.pt.sample``: lengths
uniform, strings uniform within a length), for ``--seeds`` seeds; train an SVM with
C = ``--C`` on each kernel (the subsequence kernel, and the n-gram kernels for n = 2, 3)
and report the test accuracy, also on the test strings never seen in training and on the
lengths beyond the training range. As a check of the theory, the weight vector of
Theorem 6's decision list (eq. (31)–(32)) is scored on the same test strings: it must be
100 % accurate.

Run from the repository root::

    .venv/bin/python -m bench.pt_languages             # the protocol, per-seed numbers, a table
    .venv/bin/python -m bench.pt_languages --stand-in  # brute-force kernels + sklearn SVC

Back ends. The kernels come from ``ratkit.automata.kernels`` (``subsequence()``,
``ngram(n)``) and the learner is ``ratkit.learners.RationalSVC``. When one of them is not
available yet, a stand-in is used and named in the output: for the kernels, Gram matrices
from brute-force feature maps (all distinct subsequences of each string, by
``ratkit.automata.pt.subsequences``; all n-gram counts); for the learner,
``sklearn.svm.SVC(kernel="precomputed")`` on the kernel's Gram matrices.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from ratkit.automata.pt import decision_list, sample, subsequences
from ratkit.automata.pt.examples import EXAMPLES, Target

# -- back ends and stand-ins ------------------------------------------------------------------


class _FeatureKernel:
    """A kernel from an explicit sparse feature map: K(x, y) = ⟨φ(x), φ(y)⟩ (stand-in)."""

    def __init__(self, name: str, features: Callable[[str], dict[Any, float]]) -> None:
        self.name = name
        self.features = features

    def _rows(self, X: Sequence[str], vocab: dict[Any, int], grow: bool) -> sp.csr_matrix:
        rows, cols, vals = [], [], []
        for i, x in enumerate(X):
            for f, v in self.features(x).items():
                j = vocab.get(f)
                if j is None and grow:
                    j = vocab[f] = len(vocab)
                if j is not None:
                    rows.append(i)
                    cols.append(j)
                    vals.append(v)
        return sp.csr_matrix((vals, (rows, cols)), shape=(len(X), len(vocab)))

    def gram(self, X: Sequence[str], Y: Sequence[str] | None = None) -> np.ndarray:
        vocab: dict[Any, int] = {}
        py = self._rows(X if Y is None else Y, vocab, grow=True)
        px = py if Y is None else self._rows(X, vocab, grow=False)  # features outside Y add 0
        return np.asarray((px @ py.T).todense(), dtype=float)

    def __call__(self, x: str, y: str) -> float:
        return float(self.gram([x], [y])[0, 0])


def _subsequence_features(x: str) -> dict[str, float]:
    return dict.fromkeys(subsequences(x), 1.0)


def _ngram_features(n: int) -> Callable[[str], dict[str, float]]:
    def features(x: str) -> dict[str, float]:
        return dict(Counter(x[i : i + n] for i in range(len(x) - n + 1)))

    return features


class _PrecomputedSVC:
    """sklearn SVC(kernel="precomputed") on the kernel's Gram matrices (stand-in learner)."""

    def __init__(self, kernel: Any, C: float = 1.0) -> None:
        from sklearn.svm import SVC

        self.kernel, self.svc = kernel, SVC(kernel="precomputed", C=C)

    def fit(self, X: list[str], y: np.ndarray) -> _PrecomputedSVC:
        self.X_ = list(X)
        self.svc.fit(self.kernel.gram(self.X_), y)
        return self

    def predict(self, X: list[str]) -> np.ndarray:
        return self.svc.predict(self.kernel.gram(list(X), self.X_))


def backends(stand_in: bool = False) -> tuple[dict[str, tuple[Any, str]], Any, str]:
    """{kernel name: (kernel, source)}, the learner class and its source.

    The library's ``kernels.subsequence()``, ``kernels.ngram(n)`` and ``RationalSVC`` when
    they exist (and ``stand_in`` is False), the brute-force stand-ins otherwise.
    """
    kernels = None
    if not stand_in:
        try:
            from ratkit.automata import kernels
        except ImportError:
            pass
    found: dict[str, tuple[Any, str]] = {}
    make = getattr(kernels, "subsequence", None)
    found["subsequence"] = (
        (make(), "ratkit.automata.kernels.subsequence()")
        if make is not None
        else (
            _FeatureKernel("subsequence", _subsequence_features),
            "STAND-IN: brute-force subsequence feature map (pt.subsequences)",
        )
    )
    ngram = getattr(kernels, "ngram", None)
    for n in (2, 3):
        found[f"{n}-gram"] = (
            (ngram(n), f"ratkit.automata.kernels.ngram({n})")
            if ngram is not None
            else (_FeatureKernel(f"{n}-gram", _ngram_features(n)), "STAND-IN: brute-force n-gram counts")
        )
    try:
        if stand_in:
            raise ImportError
        from ratkit.learners import RationalSVC

        return found, RationalSVC, "ratkit.learners.RationalSVC"
    except ImportError:
        source = 'STAND-IN: sklearn.svm.SVC(kernel="precomputed") on the kernels\' Gram matrices'
        return found, _PrecomputedSVC, source


def cross_check(kernels: dict[str, tuple[Any, str]], strings: list[str]) -> dict[str, float]:
    """max |K − ⟨φ(x), φ(y)⟩| over the pairs of ``strings``, φ by brute-force enumeration."""
    brute = {
        "subsequence": _FeatureKernel("subsequence", _subsequence_features),
        "2-gram": _FeatureKernel("2-gram", _ngram_features(2)),
        "3-gram": _FeatureKernel("3-gram", _ngram_features(3)),
    }
    return {
        name: float(np.abs(np.asarray(k.gram(strings)) - brute[name].gram(strings)).max())
        for name, (k, _) in kernels.items()
    }


# -- the experiment -----------------------------------------------------------------------------
def _accuracy(pred: np.ndarray, y: np.ndarray, mask: np.ndarray | None = None) -> float:
    if mask is not None:
        pred, y = pred[mask], y[mask]
    return float(np.mean(pred == y)) if y.size else float("nan")


def run_target(target: Target, seed: int, args: argparse.Namespace, kernels: dict, learner: Any) -> dict:
    """One target, one seed: train on seed 2·seed, test on 2·seed + 1."""
    sigma = target.alphabet
    x_train, y_train = sample(target.definition, sigma, args.n_train, max_len=args.train_len, seed=2 * seed)
    x_test, y_test = sample(target.definition, sigma, args.n_test, max_len=args.test_len, seed=2 * seed + 1)
    seen = set(x_train)
    unseen = np.array([x not in seen for x in x_test])
    longer = np.array([len(x) > args.train_len for x in x_test])

    dl = decision_list(target.dfa(), sigma)
    w = dl.to_weights()

    def score(x: str) -> int:  # ⟨w, φ(x)⟩, φ(x)_u = [u ⊑ x]
        found = subsequences(x, dl.degree)
        return sum(v for u, v in w.items() if u in found)

    out = {
        "list": dl,
        "unseen": int(unseen.sum()),
        "longer": int(longer.sum()),
        "theory": _accuracy(np.array([score(x) > 0 for x in x_test]), y_test),
        "kernels": {},
    }
    for name, (kernel, _) in kernels.items():
        t0 = time.perf_counter()
        model = learner(kernel=kernel, C=args.C).fit(x_train, y_train)
        pred = np.asarray(model.predict(x_test))
        out["kernels"][name] = {
            "train": _accuracy(np.asarray(model.predict(x_train)), y_train),
            "test": _accuracy(pred, y_test),
            "unseen": _accuracy(pred, y_test, unseen),
            "longer": _accuracy(pred, y_test, longer),
            "seconds": time.perf_counter() - t0,
        }
    return out


def _pct(v: float) -> str:
    return f"{100 * v:.1f}"


def _mean(runs: list[dict], kernel: str, key: str) -> float:
    return float(np.mean([r["kernels"][kernel][key] for r in runs]))


def table(results: dict[str, list[dict]], kernel_names: list[str], train_len: int) -> str:
    """Mean test accuracy (%) over the seeds; in brackets the worst seed."""
    head = ["target", "Σ", "n", "sizes of D_1..D_N", "w of the list"]
    for k in kernel_names:
        head += [f"{k}: test (worst)", f"{k}: unseen", f"{k}: len>{train_len}"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, runs in results.items():
        t = EXAMPLES[name]
        sizes = "/".join(str(len(d)) for d, _ in runs[0]["list"])
        theory = min(r["theory"] for r in runs)
        row = [f"`{name}`", t.alphabet, str(t.n), sizes, _pct(theory)]
        for k in kernel_names:
            worst = min(r["kernels"][k]["test"] for r in runs)
            row += [
                f"{_pct(_mean(runs, k, 'test'))} ({_pct(worst)})",
                _pct(_mean(runs, k, "unseen")),
                _pct(_mean(runs, k, "longer")),
            ]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--n-train", type=int, default=300)
    p.add_argument("--n-test", type=int, default=2000)
    p.add_argument("--train-len", type=int, default=12)
    p.add_argument("--test-len", type=int, default=16)
    p.add_argument("--C", type=float, default=1.0)
    p.add_argument(
        "--seeds", type=int, default=5, help="repetitions; seed s trains on sample seed 2s and tests on 2s + 1"
    )
    p.add_argument("--targets", nargs="*", default=sorted(EXAMPLES), choices=sorted(EXAMPLES))
    p.add_argument(
        "--stand-in", action="store_true", help="use the brute-force kernels and sklearn's SVC even if ratkit has them"
    )
    args = p.parse_args(argv)

    kernels, learner, learner_source = backends(args.stand_in)
    t0 = time.perf_counter()
    check_strings = sample(EXAMPLES["pairs_not_da"].definition, "abcd", 40, max_len=args.train_len, seed=12345)[0]
    deviations = cross_check(kernels, check_strings)
    results: dict[str, list[dict]] = {}
    for name in args.targets:
        results[name] = [run_target(EXAMPLES[name], s, args, kernels, learner) for s in range(args.seeds)]
        print(
            f"[{time.perf_counter() - t0:6.1f}s] {name}: "
            + ", ".join(f"{k} {_pct(_mean(results[name], k, 'test'))}%" for k in kernels),
            file=sys.stderr,
        )

    print("Learning PT languages with the subsequence kernel (issue 5)")
    given = " ".join(argv if argv is not None else sys.argv[1:])
    print(f"  command: .venv/bin/python -m bench.pt_languages {given}".rstrip())
    print(f"  python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}")
    print(
        f"  per seed s = 0..{args.seeds - 1}: train on {args.n_train} strings of length "
        f"0..{args.train_len} (sample seed 2s), test on {args.n_test} fresh strings of length "
        f"0..{args.test_len} (sample seed 2s + 1)"
    )
    print("  samples balanced (half in L), lengths uniform, strings uniform within a length")
    print(f"  learner: {learner_source}, C = {args.C}")
    for k, (_, source) in kernels.items():
        print(
            f"  kernel {k}: {source}; max |K − ⟨φ(x), φ(y)⟩| on 40 strings over abcd "
            f"(φ by brute force): {deviations[k]:g}"
        )
    print(
        "  'unseen': test strings absent from the training sample; "
        f"'len>{args.train_len}': longer than every training string"
    )
    print("  'w of the list': ⟨w, φ(x)⟩ > 0 with w = decision_list(L).to_weights(), worst seed (theory: 100 %)")
    print()
    for name, runs in results.items():
        t = EXAMPLES[name]
        print(f"{name} (Σ = {t.alphabet}, {t.n}-PT): {t.description}")
        print(f"  Theorem 6: {runs[0]['list']!r}")
        print(
            f"  test strings unseen in training: {np.mean([r['unseen'] for r in runs]):.0f}, "
            f"longer than {args.train_len}: {np.mean([r['longer'] for r in runs]):.0f} (means)"
        )
        for k in kernels:
            print(
                f"  {k:12s} train {_pct(_mean(runs, k, 'train')):>5}%  "
                f"test {_pct(_mean(runs, k, 'test')):>5}%  "
                f"(seeds: {' '.join(_pct(r['kernels'][k]['test']) for r in runs)})  "
                f"{np.mean([r['kernels'][k]['seconds'] for r in runs]):.1f}s/fit+predict"
            )
    print()
    print("Mean test accuracy (%) over the seeds, worst seed in brackets:")
    print()
    print(table(results, list(kernels), args.train_len))
    print(f"\ntotal {time.perf_counter() - t0:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
