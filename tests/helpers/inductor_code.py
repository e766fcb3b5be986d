"""Reading inductor's generated step code: the buffers a compiled graph allocates, whichever wrapper
calls its kernels (Python, or C++ with `cpp_wrapper`, kvlimit's default on the CPU)."""

from __future__ import annotations

import re

__all__ = ["allocated_buffers"]

_PYTHON = re.compile(r"empty_strided_cpu\(\(([\d, ]*)\), \([^)]*\), torch\.(\w+)\)")
_CPP_ARRAY = re.compile(r"int64_t (int_array_\d+)\[\] = \{([\dL, ]*)\};")
_CPP = re.compile(r"aoti_torch_empty_strided\(\d+, (int_array_\d+), int_array_\d+, cached_torch_dtype_(\w+),")


def allocated_buffers(code: str) -> set[tuple[tuple[int, ...], str]]:
    """Every (shape, dtype name) `code` allocates a CPU buffer of, e.g. ((2, 1, 16, 32), "int8")."""

    def shape(text: str) -> tuple[int, ...]:
        return tuple(int(n.rstrip("L")) for n in text.replace(" ", "").split(",") if n)

    found = {(shape(dims), dtype) for dims, dtype in _PYTHON.findall(code)}
    arrays = {name: shape(dims) for name, dims in _CPP_ARRAY.findall(code)}
    found |= {(arrays[name], dtype) for name, dtype in _CPP.findall(code)}
    return found
