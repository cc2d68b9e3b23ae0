"""How model files hold kernels and vocabularies (see :func:`ratkit.persistence.register_codec`).

A kernel is written as its spec (``to_spec(inline=True)``: a transducer read from a file is kept
as AT&T text) and read back by ``from_spec(spec, files=False)``, so that a model file never
reads outside itself; a vocabulary as its state (``to_state()``: one JSON-able dict and a flat
dict of arrays), read back by :func:`~ratkit.automata.kernels.vocabulary_from_state`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ratkit._json import plain
from ratkit.automata.kernels.base import Kernel
from ratkit.automata.kernels.features import Vocabulary, vocabulary_from_state
from ratkit.automata.kernels.spec import from_spec
from ratkit.persistence import DecodeContext, EncodeContext, register_codec

__all__ = ["encode_kernel", "decode_kernel", "encode_vocabulary", "decode_vocabulary"]


def encode_kernel(kernel: Kernel, ctx: EncodeContext) -> Any:
    """The kernel's spec, with any transducer read from a file inlined as AT&T text."""
    try:
        return plain(kernel.to_spec(inline=True), ctx.where)
    except (TypeError, ValueError) as exc:  # SpecError is a ValueError
        raise ctx.refuse(
            f"is the kernel {kernel!r}, which has no spec ({exc}). Build the kernel from a spec (a family "
            "registered as a kernel plugin) to save the model."
        ) from None


def decode_kernel(spec: Any, ctx: DecodeContext) -> Kernel:
    """The kernel of a spec; a spec naming a file is refused (a model file never reads outside itself)."""
    return from_spec(spec, files=False)


def encode_vocabulary(vocabulary: Vocabulary, ctx: EncodeContext) -> Any:
    """``{"state": meta, "arrays": {key: member}}`` of ``vocabulary.to_state()``."""
    meta, arrays = vocabulary.to_state()
    return {
        "state": ctx.json(meta),
        "arrays": {key: ctx.array(key, np.asarray(value)) for key, value in arrays.items()},
    }


def decode_vocabulary(body: Any, ctx: DecodeContext) -> Vocabulary:
    """The vocabulary :func:`encode_vocabulary` described (a ValueError when malformed)."""
    return vocabulary_from_state(body["state"], {key: ctx.array(member) for key, member in body["arrays"].items()})


register_codec(Kernel, "kernel", encode_kernel, decode_kernel, since=3)
# A protocol: every vocabulary without a codec of its own is written by its to_state(). (mypy
# refuses a protocol where type[T] is expected, though isinstance takes a runtime-checkable one.)
register_codec(Vocabulary, "vocabulary", encode_vocabulary, decode_vocabulary, since=3)  # type: ignore[type-abstract]
