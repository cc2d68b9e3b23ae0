"""Where a command computes: ``--scheduler ADDRESS`` (a Dask cluster) or ``--n-jobs N``
(local processes), shared by ``ratkit train``, ``ratkit recsys evaluate`` and ``ratkit gram``.

The command body runs inside :func:`ratkit._parallel.compute_on`, so every joblib loop of
ratkit and scikit-learn in it runs there. dask.distributed is imported only when a
scheduler is given.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from typing import Any

from ratkit.cli._argtypes import n_jobs

__all__ = ["add_compute_arguments", "compute_context", "CONNECT_TIMEOUT"]

#: Seconds a command waits for ``--scheduler`` to answer before it fails: a scheduler that
#: is up answers at once, and a wrong address should not keep the user waiting.
CONNECT_TIMEOUT = 5.0


def scheduler_address(text: str) -> str:
    """An argparse type: a non-empty scheduler address such as ``tcp://10.0.0.5:8786``."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a Dask scheduler address such as tcp://host:8786, got ''")
    return text.strip()


def add_compute_arguments(parser: argparse.ArgumentParser, *, what: str) -> None:
    """``--scheduler ADDRESS`` and ``--n-jobs N``, one or the other (argparse refuses both);
    ``what`` says what runs in parallel, for the help."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        type=scheduler_address,
        default=None,
        help=f"run {what} on the Dask cluster of this scheduler (e.g. tcp://10.0.0.5:8786; needs ratkit[dask]; "
        "default: none, local processes)",
    )
    group.add_argument(
        "--n-jobs",
        metavar="N",
        type=n_jobs,
        default=None,
        help=f"run {what} on N local processes (-1: one per core; default 1)",
    )


@contextlib.contextmanager
def compute_context(args: argparse.Namespace) -> Iterator[Any]:
    """:func:`~ratkit._parallel.compute_on` for the command's ``--scheduler`` / ``--n-jobs``:
    a scheduler that does not answer within :data:`CONNECT_TIMEOUT` seconds is a
    DistributedError naming its address. Yields the Dask client (None locally)."""
    from ratkit._parallel import compute_on, connect

    if args.scheduler is None:
        with compute_on(n_jobs=args.n_jobs):
            yield None
        return
    client = connect(args.scheduler, timeout=CONNECT_TIMEOUT)
    try:
        with compute_on(client=client):
            yield client
    finally:
        client.close()
