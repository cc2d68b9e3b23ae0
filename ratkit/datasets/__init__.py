"""ratkit.datasets: every data loader of ratkit, one module per kind of data.

- :mod:`ratkit.datasets.sequences`: labelled sequences (:class:`SequenceDataset`) for the
  kernels and learners: the bundled UCI splice-junction set (:func:`load_splice`,
  :data:`BUNDLED_SPLICE`), Reuters-21578 (:func:`load_reuters`, :func:`reuters_dataset`),
  the ``label<TAB>sequence`` text format (:func:`load_tsv`, :func:`write_tsv`), one sequence
  per line (:func:`load_lines`), and :func:`load_sequences`, which reads any of them.
- :mod:`ratkit.datasets.interactions`: users × items matrices (:class:`Interactions`) for
  the recommenders: MovieLens (:func:`load_movielens`), Last.fm HetRec 2011
  (:func:`load_lastfm`), a ``user, item[, value]`` CSV (:func:`load_interactions_csv`) and
  parallel arrays (:func:`from_triples`).
- :mod:`ratkit.datasets.graphs`: labelled graphs (:class:`~ratkit.automata.graphs.Graph`)
  for the random-walk kernels: the TU Dortmund benchmark format (:func:`load_tu`).

A missing file raises :class:`~ratkit.exceptions.MissingDataError` and a malformed one
:class:`~ratkit.exceptions.DataFormatError`; both name the file and the format expected.
Only the splice-junction set ships with ratkit (``ratkit/data/``); the others are read from
your own copy.

The former homes ``ratkit.recsys.datasets`` and ``ratkit.automata.graphs.load_tu`` still work
until ratkit 0.3, with a :class:`DeprecationWarning`; ``ratkit.recsys.datasets.load_csv`` is
:func:`load_interactions_csv` here (a CSV of interactions, beside the sequence formats).
"""

from ratkit.datasets._bundled import BUNDLED_SPLICE
from ratkit.datasets.graphs import load_tu
from ratkit.datasets.interactions import (
    Interactions,
    from_triples,
    load_interactions_csv,
    load_lastfm,
    load_movielens,
)
from ratkit.datasets.sequences import (
    _FORMATS,  # noqa: F401 (mirrored by ratkit.cli._common.SEQUENCE_FORMATS, checked by tests/cli)
    DataFormat,
    ReutersDocument,
    SequenceDataset,
    load_lines,
    load_reuters,
    load_sequences,
    load_splice,
    load_tsv,
    reuters_dataset,
    reuters_modapte,
    write_tsv,
)

__all__ = [
    # sequences
    "SequenceDataset",
    "ReutersDocument",
    "load_splice",
    "load_reuters",
    "reuters_modapte",
    "reuters_dataset",
    "load_tsv",
    "write_tsv",
    "load_lines",
    "load_sequences",
    "DataFormat",
    "BUNDLED_SPLICE",
    # interactions
    "Interactions",
    "load_movielens",
    "load_lastfm",
    "load_interactions_csv",
    "from_triples",
    # graphs
    "load_tu",
]
