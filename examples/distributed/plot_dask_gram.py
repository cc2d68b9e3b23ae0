"""
A Gram matrix by blocks on a Dask cluster
=========================================

Every parallel loop of ratkit goes through joblib, so it runs on a Dask cluster inside
:func:`ratkit.compute_on` (or ``joblib.parallel_config(backend="dask")``). Here a
``LocalCluster`` of two in-process workers (``processes=False``: threads, so the example
needs no ``if __name__ == "__main__":`` guard; a real cluster is one line away,
``compute_on(scheduler="tcp://host:8786")``) computes the Gram matrix of a 3-gram kernel on
798 splice-junction sequences, written block by block into a ``.npy`` file
(``out=``, ``block_bytes=``).
"""

import tempfile
import time
import warnings
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from distributed import Client, LocalCluster
from ratkit import compute_on
from ratkit.automata.kernels import cosine, ngram
from ratkit.datasets import load_splice

splice = load_splice()
# every 4th sequence (798), sorted by class
order = np.argsort(splice.labels, kind="stable")[::4]
X = [splice.sequences[i] for i in order]
labels = [splice.labels[i] for i in order]
kernel = cosine(ngram(3))
reference = kernel.gram(X)  # in this process, for comparison

# %%
# Block size against time
# -----------------------
# The upper triangle of the symmetric 798 × 798 matrix is cut into row blocks of at most
# ``block_bytes`` bytes; each block is a task. Smaller blocks mean more tasks, each with
# its scheduling overhead; at this size a handful of blocks is enough.

seconds, n_blocks = [], []
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the dashboard's port notice
    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=False,
            dashboard_address=None,
        ) as cluster,
        Client(cluster) as client,
        compute_on(client=client),
        tempfile.TemporaryDirectory() as folder,
    ):
        out = Path(folder) / "gram.npy"
        for rows in (8, 25, 100, 400):
            block_bytes = rows * len(X) * 8  # `rows` rows of float64 a block
            start = time.perf_counter()
            K = kernel.gram(
                X,
                out=out,
                block_bytes=block_bytes,
                overwrite=True,
                show_progress=False,
            )
            seconds.append(time.perf_counter() - start)
            n_blocks.append(-(-len(X) // rows))
            assert np.allclose(K, reference)
            blocks = f"{n_blocks[-1]:>3} blocks of {rows} rows"
            print(
                f"block_bytes {block_bytes:>9,}: {blocks}, {seconds[-1]:.2f} s"
            )
            del K

fig, ax = plt.subplots()
ax.plot(n_blocks, seconds, marker="o")
ax.set_xscale("log")
ax.set_xlabel("row blocks of the Gram matrix (tasks)")
ax.set_ylabel("seconds")
ax.set_title(
    f"{len(X)} × {len(X)} cosine 3-gram Gram matrix on 2 Dask workers"
)
ax.grid(alpha=0.3)

# %%
# The matrix
# ----------
# The same on the cluster as in this process; sorted by class, its blocks show which
# classes share 3-grams.

fig, ax = plt.subplots(figsize=(6.4, 5.4))
image = ax.imshow(
    reference,
    cmap="viridis",
    vmin=np.percentile(reference, 1),
    vmax=np.percentile(reference, 99),
)
changes = np.array(labels[1:]) != np.array(labels[:-1])
edges = np.flatnonzero(changes) + 0.5  # the class boundaries
for edge in edges:
    ax.axhline(edge, color="white", linewidth=0.8)
    ax.axvline(edge, color="white", linewidth=0.8)
ax.set_title("cosine 3-gram kernel; classes EI, IE, N")
ax.set_xlabel("colours: 1st to 99th percentile")
fig.colorbar(image, ax=ax, shrink=0.85)
fig.tight_layout()
plt.show()
