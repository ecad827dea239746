"""Apply the z4ai codec to .safetensors checkpoints, tensor by tensor (ZSTN v3).

Each tensor is compressed with :func:`z4ai.compress` using its declared dtype;
byte-identical (tied) tensors are stored once and referenced. The container
keeps the original JSON header verbatim, a tensor index and a 20-byte footer,
so :class:`ZstnReader` reads one tensor without touching the rest. Layout:
docs/codec.md and the z4ai API reference. Round trips are byte-identical.
"""

from __future__ import annotations

import io
import json
import os
import threading
from typing import BinaryIO, Dict, List, Optional, cast

from . import _z4ai
from ._args import as_buffer, level_arg

MAGIC = b"ZSTN"
_FOOTER_LEN = 20
_K_FRAME, _K_REF = 0, 1

# safetensors dtype -> NumPy dtype for read_numpy (None: no native NumPy type).
_NUMPY = {
    "F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": None, "F8_E4M3": None, "F8_E5M2": None,
    "I64": "<i8", "U64": "<u8", "I32": "<i4", "U32": "<u4", "I16": "<i2", "U16": "<u2",
    "I8": "|i1", "U8": "|u1", "BOOL": "|b1",
}


def _workers(workers: Optional[int]) -> int:
    return 0 if workers is None else max(1, int(workers))


def compress_bytes(blob, *, level: Optional[int] = None, threads: int = 0, workers: Optional[int] = None) -> bytes:
    """Compress a safetensors buffer; returns a self-describing ZSTN container."""
    return _z4ai.zstn_compress(as_buffer(blob), level_arg(level), int(threads), _workers(workers), "")


def decompress_bytes(frame, *, workers: Optional[int] = None) -> bytes:
    """Invert :func:`compress_bytes`; returns the byte-identical safetensors buffer."""
    return _z4ai.zstn_decompress(as_buffer(frame), _workers(workers))


def compress_file(in_path: str, out_path: str, *, level: Optional[int] = None, threads: int = 0,
                  workers: Optional[int] = None) -> dict:
    """Compress a .safetensors file to a ZSTN file. Returns stats.

    Streams: only a window of tensors' frames is in memory at a time, so peak
    memory does not grow with the model; the output is byte-identical to
    :func:`compress_bytes` and appears at ``out_path`` only when complete.
    """
    orig, comp = _z4ai.zstn_compress_file(os.fspath(in_path), os.fspath(out_path), level_arg(level), int(threads),
                                          _workers(workers), "")
    return {"original_bytes": orig, "compressed_bytes": comp, "ratio": orig / comp if comp else float("inf"),
            "saved_pct": (1 - comp / orig) * 100 if orig else 0.0}


def decompress_file(in_path: str, out_path: str, *, workers: Optional[int] = None) -> dict:
    """Decompress a ZSTN file back to a byte-identical .safetensors file (streamed, bounded memory)."""
    _, written = _z4ai.zstn_decompress_file(os.fspath(in_path), os.fspath(out_path), _workers(workers))
    return {"bytes": written}


class ZstnReader:
    """Random-access reader for a ZSTN v3 container.

    Reads only the prefix, header and index up front; :meth:`read_raw` reads
    one tensor's frame (a positional read: any number of threads may share a
    reader) and decodes just that. Use :meth:`open` (path) or
    :meth:`from_bytes` (buffer); works as a context manager. After
    :meth:`close` every call raises ``Z4aiError`` (a ``ValueError``) with
    ``code == "invalid_argument"``.
    """

    def __init__(self, *, fh: Optional[BinaryIO] = None, buf: Optional[bytes] = None, owns_file: bool = False):
        if (fh is None) == (buf is None):
            raise ValueError("ZstnReader needs exactly one of fh= or buf=")
        self._fh = fh
        self._owns = owns_file
        self._buf = bytes(buf) if buf is not None else None
        self._lock = threading.Lock()  # only for file objects without a descriptor
        self._fd = None
        if fh is not None:
            try:
                self._fd = fh.fileno()
            except (AttributeError, OSError, io.UnsupportedOperation):
                self._fd = None
        self._opaque: Optional[bytes] = None
        self._closed = False
        size = self._size()
        # The layout (prefix, footer, index, safetensors header) is read by the library: this class
        # only fetches the bytes it names.
        need = _z4ai.zstn_prefix_length(self._read(0, min(size, 14)))
        if need > size:
            raise _z4ai.Z4aiError("length_mismatch: ZSTN container is truncated")
        contiguous, hoff, hlen, self._data_len, self._body = _z4ai.zstn_parse_prefix(self._read(0, need))
        self._contiguous = bool(contiguous)
        self._header_bytes = self._read(hoff, hlen)
        # Old writers stored non-tiling files as one opaque frame (contiguous=0).
        tensors, meta = _z4ai.safetensors_header(self._header_bytes, self._data_len, self._contiguous)
        self._tensors: Dict[str, tuple] = {t[0]: t for t in tensors}  # name -> (name, dtype, shape, begin, end)
        self._metadata = dict(meta)
        self._entries: Dict[str, tuple] = {}
        self._order: List[str] = [t[0] for t in tensors]
        if self._contiguous:
            index_offset, index_len = _z4ai.zstn_parse_footer(self._read(size - _FOOTER_LEN, _FOOTER_LEN)
                                                              if size >= _FOOTER_LEN else b"", size, self._body)
            rows = _z4ai.zstn_parse_index(self._read(index_offset, index_len), self._data_len, self._body,
                                          index_offset)
            self._rows = rows
            self._order = []
            for row in rows:
                name = row[0].decode("utf-8")
                self._entries[name] = row
                self._order.append(name)

    @classmethod
    def open(cls, path: str) -> "ZstnReader":
        """Open a .zstn file for lazy, seek-based random access."""
        return cls(fh=open(path, "rb"), owns_file=True)

    @classmethod
    def from_bytes(cls, frame) -> "ZstnReader":
        """Open an in-memory ZSTN buffer."""
        return cls(buf=bytes(frame))

    def _size(self) -> int:
        if self._buf is not None:
            return len(self._buf)
        if self._fd is not None:
            return os.fstat(self._fd).st_size
        with self._lock:  # a file object without a descriptor (fh= given, so not None)
            return cast(BinaryIO, self._fh).seek(0, io.SEEK_END)

    def _read(self, offset: int, length: int) -> bytes:
        # Positional reads (pread; a slice of an in-memory buffer): threads
        # sharing this reader never move each other's file position.
        self._check_open()
        if self._buf is not None:
            data = self._buf[offset:offset + length]
        elif self._fd is not None:
            parts, got = [], 0
            while got < length:
                part = os.pread(self._fd, length - got, offset + got)
                if not part:
                    break
                parts.append(part)
                got += len(part)
            data = b"".join(parts)
        else:
            fh = cast(BinaryIO, self._fh)  # neither buffer nor descriptor: a file object
            with self._lock:
                fh.seek(offset)
                data = fh.read(length)
        if len(data) != length:
            raise _z4ai.Z4aiError("length_mismatch: ZSTN container is truncated")
        return data

    def _check_open(self) -> None:
        if self._closed:
            # invalid_argument: the code ztensor's closed Reader raises
            raise _z4ai.Z4aiError("invalid_argument: ZstnReader is closed")

    def close(self) -> None:
        """Release the file; every later call raises the closed-reader error."""
        if self._owns and self._fh is not None:
            self._fh.close()
        self._fh = None
        self._fd = None
        self._buf = None
        self._opaque = None
        self._closed = True

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> "ZstnReader":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def names(self) -> List[str]:
        """Tensor names, in data-buffer order."""
        self._check_open()
        return list(self._order)

    def header(self) -> dict:
        """The original safetensors JSON header (dtype/shape/offsets, metadata)."""
        self._check_open()
        return json.loads(self._header_bytes.decode("utf-8"))  # checked by the library's parser on open

    def tensors(self) -> List[tuple]:
        """``(name, dtype, shape, begin, end)`` per tensor, in data-buffer order, as the library parsed them."""
        self._check_open()
        return [self._tensors[name] for name in self._tensors]

    def metadata(self) -> Dict[str, str]:
        """The ``__metadata__`` sub-dict, or empty if absent."""
        self._check_open()
        return dict(self._metadata)

    def _resolve(self, name: str) -> tuple:
        try:
            row = self._entries[name]
        except KeyError:
            raise KeyError(f"no tensor named {name!r} in this ZSTN file") from None
        if row[3] == _K_REF:
            row = self._rows[row[6]]
        return row

    def read_raw(self, name: str) -> bytes:
        """Decompress and return the raw bytes of a single tensor (only its frame is read)."""
        self._check_open()
        if not self._contiguous:
            t = self._tensors.get(name)
            if t is None:
                raise KeyError(f"no tensor named {name!r} in this ZSTN file")
            if self._opaque is None:
                # one opaque frame holds every tensor: the library decodes the container whole
                self._opaque = _z4ai.zstn_decompress(self._read(0, self._size()), 0)[8 + len(self._header_bytes):]
            return self._opaque[t[3]:t[4]]
        row = self._resolve(name)
        return _z4ai.decompress(self._read(row[4], row[5]), 0)

    def frame_size(self, name: str) -> int:
        """Compressed (on-disk) size of a tensor's frame, in bytes."""
        self._check_open()
        if not self._contiguous:
            raise ValueError("this ZSTN container stores one opaque frame; no per-tensor frames")
        return self._resolve(name)[5]

    def read_numpy(self, name: str):
        """Return a tensor as a NumPy array with its declared dtype and shape.

        Raises ``TypeError`` for dtypes NumPy cannot represent natively (bf16,
        fp8) - use :meth:`read_raw` for those.
        """
        import numpy as np

        self._check_open()
        t = self._tensors.get(name)
        if t is None:
            raise KeyError(f"no tensor named {name!r} in this ZSTN file")
        _, dtype, shape, _, _ = t
        np_dtype = _NUMPY.get(dtype)
        if np_dtype is None:
            raise TypeError(f"tensor {name!r} dtype {dtype} has no native NumPy dtype; use read_raw()")
        return np.frombuffer(self.read_raw(name), dtype=np.dtype(np_dtype)).reshape(shape)


__all__ = ["MAGIC", "ZstnReader", "compress_bytes", "decompress_bytes", "compress_file", "decompress_file"]
