"""Reading ``.npy`` bytes from an untrusted file: the header is checked before anything is allocated.

``np.load`` trusts the header of a ``.npy`` file: a header declaring the shape (10¹⁰,) makes it
allocate 74.5 GiB before it finds that the bytes are missing. :func:`read_npy` reads the header
itself (``numpy.lib.format``), computes the bytes the declared dtype and shape need and refuses
the array unless they are exactly the bytes that follow the header, so it never allocates more
than the member holds; it refuses object arrays (which would need pickle) and dtypes a model
file never holds, and returns the array in native byte order (a file written on a big-endian
machine holds ``>f8``, which scipy's compiled code refuses).
"""

from __future__ import annotations

import io
import math

import numpy as np
from numpy.lib import format as npy_format

from ratkit.exceptions import DataFormatError, RatkitError

__all__ = ["read_npy", "NPY_KINDS"]

#: The dtype kinds an array read from a file may have: booleans, integers, floats, complex
#: numbers, and fixed-width byte and Unicode strings. Objects (pickle), structured records,
#: datetimes and raw void bytes are refused.
NPY_KINDS = "biufcSU"

#: The header versions ``np.save`` writes (3.0 only for structured dtypes with non-Latin-1 field names).
_READERS = {(1, 0): npy_format.read_array_header_1_0, (2, 0): npy_format.read_array_header_2_0}


def read_npy(data: bytes, what: str, *, error: type[RatkitError] = DataFormatError) -> np.ndarray:
    """The array of the ``.npy`` bytes ``data``, writable and in native byte order.

    Raises ``error`` (a ratkit error, :class:`~ratkit.exceptions.DataFormatError` by default)
    naming ``what`` (e.g. ``"model.zip: arrays/coef_.npy"``) when ``data`` is not a ``.npy``
    file, when its header is malformed, declares a dtype outside :data:`NPY_KINDS` or a shape
    whose bytes differ from the bytes after the header. Nothing larger than ``data`` is
    allocated: the array is copied out of ``data`` once (and byte-swapped in that copy).
    """
    fh = io.BytesIO(data)
    try:
        version = npy_format.read_magic(fh)
        reader = _READERS.get(version)
        if reader is None:
            raise ValueError(f"header version {version[0]}.{version[1]}, expected 1.0 or 2.0")
        shape, fortran_order, dtype = reader(fh)
    except Exception as exc:  # a bad header raises ValueError, SyntaxError, tokenize.TokenError, ...
        raise error(f"{what} is not a numpy array file ({exc}): the file is corrupted.") from None
    offset = fh.tell()
    if dtype.hasobject or dtype.kind not in NPY_KINDS or dtype.fields is not None or dtype.subdtype is not None:
        raise error(
            f"{what} declares the dtype {dtype.str!r}; an array read from a file holds booleans, numbers or "
            "fixed-width strings (never Python objects, which would need pickle): the file is corrupted or "
            "was tampered with."
        )
    if dtype.itemsize == 0 or any(n < 0 for n in shape):
        raise error(f"{what} declares the dtype {dtype.str!r} and shape {shape}, which no array has.")
    count = math.prod(shape)
    need, held = count * dtype.itemsize, len(data) - offset
    if need != held:
        raise error(
            f"{what} declares the shape {shape} of {dtype.str!r} ({need:,} bytes) but holds {held:,} bytes after "
            "its header: the file is corrupted or was tampered with."
        )
    flat = np.frombuffer(data, dtype=dtype, count=count, offset=offset)
    array = flat.reshape(shape[::-1]).transpose() if fortran_order else flat.reshape(shape)
    return array.astype(dtype.newbyteorder("="), order="K", copy=True)
