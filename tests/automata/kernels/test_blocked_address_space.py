"""A Gram file larger than the process's address space (issue 35, class 4): ``ratkit gram``
writes it within its block budget; ``gram(out=)``, which returns a map of the whole file,
says which limit to raise.

The issue's case is 20 000 strings (a 3.2 GB file) under a 3 GB RLIMIT_AS; here the
analogue is 10 000 strings (800 MB) under a cap of the child's own address space after its
imports plus 400 MB, with ngram(1) on short strings so that the blocks cost little. The
oracle is the symbol-count matrix C: K = C Cᵀ.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import ratkit

N = 10_000  # 800 MB of float64
HEADROOM = 400 * 2**20

_CHILD = textwrap.dedent(
    """
    import resource, sys
    import ratkit.automata.kernels, ratkit.automata.kernels.blocked, ratkit.cli._main, ratkit.datasets

    def vm(key):
        for line in open("/proc/self/status"):
            if line.startswith(key):
                return int(line.split()[1]) * 1024

    cap = vm("VmSize") + int(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_AS, (cap, resource.getrlimit(resource.RLIMIT_AS)[1]))
    print(f"cap {cap}", flush=True)
    if sys.argv[2] == "cli":
        code = ratkit.cli._main.main(sys.argv[3:])
        print(f"peak {vm('VmPeak')}", flush=True)
        sys.exit(code)
    X = open(sys.argv[3]).read().split()
    try:
        ratkit.automata.kernels.ngram(1).gram(X, out=sys.argv[4], show_progress=False)
        print("returned")
    except Exception as exc:
        print(type(exc).__name__, "|", exc)
    """
)


def _run(*args: str) -> subprocess.CompletedProcess:
    here = str(Path(ratkit.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")]))}
    return subprocess.run(
        [sys.executable, "-c", _CHILD, str(HEADROOM), *args], capture_output=True, text=True, timeout=180, env=env
    )


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads the address space from /proc (Linux)")
def test_a_gram_file_larger_than_the_address_space(tmp_path):
    rng = random.Random(0)
    X = ["".join(rng.choice("abc") for _ in range(rng.randint(1, 6))) for _ in range(N)]
    data = tmp_path / "x.txt"
    data.write_text("".join(x + "\n" for x in X))
    counts = np.array([[x.count(a) for a in "abc"] for x in X], dtype=np.float64)
    out = tmp_path / "g.npy"

    done = _run("cli", "gram", "--data", str(data), "--kernel", '{"family": "ngram", "n": 1}', "-o", str(out))
    assert done.returncode == 0, done.stderr
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines() if line.startswith(("cap ", "peak ")))
    cap, peak = int(lines["cap"]), int(lines["peak"])
    assert out.stat().st_size > 1.9 * HEADROOM  # a map of the whole file cannot fit under the cap
    assert peak <= cap
    K = np.load(out, mmap_mode="r")
    assert K.shape == (N, N)
    for i in (0, 1, N // 2, N - 1):
        np.testing.assert_array_equal(K[i], counts @ counts[i])
    np.testing.assert_array_equal(K[:, 7], counts @ counts[7])
    del K
    out.unlink()

    done = _run("api", str(data), str(out))
    assert done.returncode == 0, done.stderr
    kind, message = done.stdout.splitlines()[-1].split(" | ")
    assert kind == "ResourceLimitError", done.stdout
    assert message.startswith(f"The Gram matrix file {str(out)!r} is complete, but this process cannot map its 762.9")
    assert "RLIMIT_AS, 'ulimit -v'" in message and "Raise that limit" in message
    K = np.load(out, mmap_mode="r")
    np.testing.assert_array_equal(K[N - 1], counts @ counts[N - 1])
