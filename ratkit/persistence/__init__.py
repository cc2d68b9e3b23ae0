"""The model file of every learner and recommender: a zip of JSON and ``.npy`` arrays, no pickle.

A model file is a container plus codecs. The container is a zip archive holding

``manifest.json``
    ``{"format": "ratkit-model", "version": 5, "kind": "learner", "plugin": "rational-svc",
    "class": ..., "params": {...}, "attributes": {...}, "metadata": {...},
    "arrays": {member: sha256}}`` — which registered plugin the model is (kind and name:
    :mod:`ratkit.plugins` finds the class again, a third party's included), its
    constructor parameters and its fitted attributes, each value encoded as below, any
    JSON metadata, and the SHA-256 of every array file;
``manifest.sha256``
    the SHA-256 of ``manifest.json``, so that an edited manifest is refused like a
    corrupted array;
``arrays/<name>.npy``
    the numpy arrays, read back with ``allow_pickle=False``.

What is saved is what the class declares: its parameters (``get_params(deep=False)``) and
its fitted attributes — every public attribute whose name ends in ``_`` that ``fit`` set
(scikit-learn's convention); a class may list in ``_fitted_attributes`` those a complete
model must have. Each value is written as a JSON object with one tag. The container's own
encodings: a numpy array as an ``.npy`` member (an object array of JSON values as JSON); a
sparse matrix as its CSR arrays; a numpy scalar as a 0-d ``.npy`` member (its dtype kept); a
list of strings or token tuples as JSON sequences; JSON scalars, lists and string-keyed
mappings as JSON (recursively, so a mapping may hold arrays). Every other type is written by
the **codec** it registered with :func:`register_codec` in its own module, under a tag of its
own: an estimator (a parameter such as a base model, or a fitted part) as a registered learner
or recommender plugin with its own parameters and fitted attributes, recursively (tag
``estimator``); ratkit's kernels as their specs (``kernel``), vocabularies as their states
(``vocabulary``) and graphs as their CSR adjacency and labels (``graph``), registered by
:mod:`ratkit.automata.kernels` and :mod:`ratkit.automata.graphs`; a third party's types by
its own codecs. Anything else is refused with :class:`~ratkit.exceptions.ModelFormatError`
naming the attribute and its type. A random generator parameter is written as None (only a
refit would draw again).

Everything is serialised in memory first, then written to a temporary file beside the
target and renamed over it: a failed save never destroys an existing model file (an OS error
while writing, e.g. a full disk, is an :class:`~ratkit.exceptions.OutputPathError`). Saving an
object that is not a registered plugin raises :class:`~ratkit.exceptions.ParameterTypeError`.

Loading refuses a path that is not a str or os.PathLike
(:class:`~ratkit.exceptions.ParameterTypeError`), a missing file
(:class:`~ratkit.exceptions.MissingDataError`) and a folder
(:class:`~ratkit.exceptions.PathIsFolderError`). It refuses, before anything is decompressed,
an archive whose member names leave the archive (absolute, or with a ``..`` part), a member
declaring more bytes than deflate can produce from its compressed size (1032:1), and members
whose declared sizes sum to more than ``max_expansion`` (default
:data:`ratkit.limits.MAX_EXPANSION`, 200) times the file's size plus 256 MiB (a zip bomb;
ratkit's model files expand far less), all with :class:`~ratkit.exceptions.ModelFormatError`;
an uncompressed total whose reading would pass :func:`ratkit.limits.max_bytes` raises
:class:`~ratkit.exceptions.ResourceLimitError`. Members are then read in chunks, never past
their declared size, and one that ends short of it is refused. An archive holding two members
of one name is refused (zipfile would read the last: an edited copy appended to a genuine
file). Each array member's ``.npy`` header is read before the array: a dtype other than
booleans, numbers and fixed-width strings (never objects), or a shape whose bytes are not
exactly the member's bytes after the header, is refused before anything is allocated; arrays
come back in native byte order (a file written on a big-endian machine loads). Codecs never
read outside the file (a kernel spec naming a file is refused; a transducer is kept in the
file as AT&T text). Loading refuses, with a :class:`~ratkit.exceptions.ModelFormatError`
naming the file, anything that is not such an archive, a manifest holding a key twice (naming
the key), a manifest of another format or version, a plugin that is not installed, a value
whose codec no installed package registers (naming its tag), a manifest or arrays whose
checksum does not match (a corrupted or edited file), a file lacking a declared fitted
attribute, every fitted attribute that does not match its class's description
(:func:`ratkit.fitted.check_fitted`), and whatever the class's own check of the restored state
refuses (:meth:`PersistenceMixin._check_restored`: for RationalSVC, a vocabulary of patterns
the saved kernel cannot produce). Files of version 2 (written by ratkit before version 3) still
load; recommender files of the former ``.npz`` format are refused with a message saying so.

A file is written in the oldest version that holds it: version 3 unless it holds a graph
(version 4 adds the graph codec) or a numpy scalar (version 5 writes it as a 0-d array, so
that it comes back of its own dtype: as JSON, ``np.float32(1e8)`` came back a Python float
and a plugin computing in float32 changed its outputs) or a value of a codec registered since
(each codec says from which version on readers know it), so that an older ratkit still reads
every file it can, and refuses the others by their version number.

A type registers its codec beside its definition (:func:`register_codec`); CONTRIBUTING.md
shows a worked example.
"""

from __future__ import annotations

from ratkit.limits import MAX_EXPANSION
from ratkit.persistence._codecs import VERSION, Codec, DecodeContext, EncodeContext, codecs, register_codec
from ratkit.persistence._estimators import MODEL_KINDS, PersistenceMixin, fitted_attributes, plugin_of
from ratkit.persistence._model_file import FORMAT, READS, load_model, read_metadata, save_model

__all__ = [
    "FORMAT",
    "VERSION",
    "READS",
    "MAX_EXPANSION",
    "MODEL_KINDS",
    "PersistenceMixin",
    "save_model",
    "load_model",
    "read_metadata",
    "fitted_attributes",
    "plugin_of",
    "register_codec",
    "codecs",
    "Codec",
    "EncodeContext",
    "DecodeContext",
]
