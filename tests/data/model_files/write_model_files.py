"""Write one small model file of format version VERSION with the ratkit on sys.path (an old
commit's copy, see README.md), and what the model computed then, into OUT/vVERSION-*.zip and
OUT/vVERSION-expected.json."""

import json
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp


def strings(seed, m):
    rng = np.random.default_rng(seed)
    X = ["".join(rng.choice(list("abc"), size=int(rng.integers(3, 10)))) for _ in range(m)]
    return X, ["up" if x.count("ab") > x.count("ba") else "down" for x in X]


def graphs(seed, m):
    from ratkit.automata.graphs import Graph

    rng = np.random.default_rng(seed)
    X = []
    for _ in range(m):
        n = int(rng.integers(2, 6))
        a = (rng.random((n, n)) < 0.5) * rng.uniform(0.25, 1.5, (n, n))
        np.fill_diagonal(a, 0.0)
        a[0, 1] = a[0, 1] or 1.0
        edges = {(int(i), int(j)): ["C-C", "C=O", "N"][int(rng.integers(3))] for i, j in zip(*np.nonzero(a))}
        X.append(Graph(a, [int(rng.integers(0, 3)) for _ in range(n)], edges))
    return X, [int(g.n_edges > 6) for g in X]


def interactions():
    rng = np.random.default_rng(0)
    return sp.csr_matrix((rng.random((12, 9)) < 0.35).astype(np.float64))


def main(version: int, out: Path) -> None:
    """Fit, save and record the models of ``version`` (the ratkit on sys.path must write it)."""
    from ratkit._persistence import VERSION, save_model  # the module of the old ratkit

    expected = {}
    if version == 3:
        from ratkit.automata import kernels
        from ratkit.learners import RationalSVC
        from ratkit.recsys import PureSVD

        X, y = strings(0, 30)
        Z = X[:10] + ["abcabc", "zzz", "a", ""]
        m = RationalSVC(kernels.cosine(kernels.ngram(2)), C=2.0, random_state=0).fit(X, y)
        save_model(m, out / "v3-rational-svc.zip", metadata={"written by": "ratkit 8df8326"})
        expected["v3-rational-svc.zip"] = {
            "X": Z,
            "decision": m.decision_function(Z).tolist(),
            "predict": m.predict(Z).tolist(),
        }
        R = interactions()
        r = PureSVD(n_factors=2, random_state=0).fit(R)
        save_model(r, out / "v3-puresvd.zip")
        expected["v3-puresvd.zip"] = {"scores": (r.user_factors_ @ r.item_factors_.T).tolist()}
    elif version == 4:
        from ratkit.automata import kernels
        from ratkit.learners import RationalSVC

        X, y = graphs(3, 16)
        m = RationalSVC(kernels.random_walk(0.05, labels="edge"), C=1.0, max_iter=200, random_state=0).fit(X, y)
        save_model(m, out / "v4-graph-svc.zip")
        expected["v4-graph-svc.zip"] = {"decision": m.decision_function(X).tolist(), "predict": m.predict(X).tolist()}
    elif version == 5:
        from ratkit.automata import kernels
        from ratkit.learners import RationalSVC

        X, y = strings(5, 24)
        m = RationalSVC(kernels.ngram(2), C=np.float32(0.5), random_state=0).fit(X, y)
        save_model(m, out / "v5-scalar-svc.zip")
        expected["v5-scalar-svc.zip"] = {
            "X": X,
            "decision": m.decision_function(X).tolist(),
            "predict": m.predict(X).tolist(),
        }
    for name in expected:
        with __import__("zipfile").ZipFile(out / name) as zf:
            assert json.loads(zf.read("manifest.json"))["version"] == version, (name, VERSION)
    (out / f"v{version}-expected.json").write_text(json.dumps(expected, indent=1) + "\n")


if __name__ == "__main__":  # pytest imports this file (--doctest-modules): run only as a script
    main(int(sys.argv[1]), Path(sys.argv[2]))
