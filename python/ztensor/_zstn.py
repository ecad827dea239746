"""ztensor.open for .zstn files (z4ai-compressed safetensors, ZSTN v3).

A ZSTN container keeps the original safetensors header verbatim and one
compressed frame per tensor, so it is presented to the core's safetensors
reader as the safetensors file it decompresses to, read through a callback:
the header on open, and a tensor's frame decoded only when that tensor's
bytes are asked for. Nothing is decompressed up front and memory holds one
decoded tensor at a time.
"""

from __future__ import annotations

import bisect
import io
import os
import struct
from typing import BinaryIO, Callable, List, Tuple, cast

from . import _core

MAGIC = b"ZSTN"


def is_zstn_file(path) -> bool:
    """Whether `path` is a local file that starts with the ZSTN magic."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        return False
    # os-level calls: every ztensor.open asks, and a buffered file object costs ~3x as much.
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False  # the core reports it with its own error and code
    try:
        return os.read(fd, len(MAGIC)) == MAGIC
    except OSError:
        return False
    finally:
        os.close(fd)


class _VirtualSafetensors:
    """read(offset, length) over the safetensors bytes a ZSTN file holds."""

    def __init__(self, zstn):
        self._z = zstn
        header = zstn._header_bytes
        self.prefix = struct.pack("<Q", len(header)) + header
        spans: List[Tuple[int, int, str]] = sorted((b, e, name) for name, _, _, b, e in zstn.tensors())
        self._begins = [s[0] for s in spans]
        self._spans = spans
        self.size = len(self.prefix) + (max((s[1] for s in spans), default=0))
        self._cached: Tuple[str, bytes] = ("", b"")

    def _tensor(self, name: str) -> bytes:
        if self._cached[0] != name:
            self._cached = (name, self._z.read_raw(name))
        return self._cached[1]

    def read(self, offset: int, length: int) -> bytes:
        out = bytearray(length)  # gaps between tensors read as zeros; no reader asks for them
        p = len(self.prefix)
        if offset < p:
            head = self.prefix[offset:offset + length]
            out[:len(head)] = head
        lo, hi = max(offset, p) - p, offset + length - p  # the asked range within the data buffer
        i = max(bisect.bisect_right(self._begins, lo) - 1, 0)
        while i < len(self._spans) and self._spans[i][0] < hi:
            b, e, name = self._spans[i]
            s, t = max(b, lo), min(e, hi)
            if s < t:
                data = self._tensor(name)
                out[s + p - offset:t + p - offset] = data[s - b:t - b]
            i += 1
        return bytes(out)


def zstn_core_reader(path: str, verify: bool):
    """The core reader (format "safetensors") over a .zstn file."""
    from z4ai.safetensors import ZstnReader

    return _core_reader(ZstnReader.open(path), path, verify)


class _RangeFile(io.RawIOBase):
    """A read-only file object over read(offset, length) (a URL's pinned
    ranges), for ZstnReader(fh=...)."""

    def __init__(self, size: int, read: Callable[[int, int], bytes]):
        super().__init__()
        self._size, self._read, self._pos = size, read, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._size}[whence]
        self._pos = max(0, base + offset)
        return self._pos

    def tell(self) -> int:
        return self._pos

    def readinto(self, buffer) -> int:
        n = max(0, min(len(buffer), self._size - self._pos))
        if n:
            buffer[:n] = self._read(self._pos, n)
            self._pos += n
        return n


def zstn_core_reader_over(name: str, size: int, read: Callable[[int, int], bytes], verify: bool):
    """The core reader over the .zstn file `name` (a URL) read through
    read(offset, length): the header and index now, a tensor's frame when
    that tensor is read."""
    from z4ai.safetensors import ZstnReader

    fh = cast(BinaryIO, _RangeFile(size, read))  # the seek/read/close of a binary file ZstnReader uses
    return _core_reader(ZstnReader(fh=fh, owns_file=True), name, verify)


def _core_reader(z, name: str, verify: bool):
    try:
        v = _VirtualSafetensors(z)
        # The name's extension tells the core which reader to use; the
        # callback (holding `z`) lives as long as the core reader.
        return _core.Reader.open_callback(name + ".safetensors", v.size, v.read, verify)
    except BaseException:
        z.close()
        raise
