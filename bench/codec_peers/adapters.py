"""Codec adapters for the codec benchmark, one per (library, setting).

Each adapter is `make(name, dtype, threads) -> (compress, decompress, prepare)`:
compress/decompress take and return bytes-like objects; prepare (or None)
turns an input segment into what compress may consume, untimed. Imports are lazy because
each interpreter has only some libraries: our `z4ai` lives in the main
Python, the PyPI `z4ai` 0.2.0 and `zipnn` in their own virtual environments
(the two `z4ai` share an import name, so they can never meet in one process).

Codec names (the same in every interpreter; which one answers depends on the
interpreter the worker runs in):
    z4ai            our z4ai.compress, default effort        (main python)
    z4ai-noauto     ours with auto=False (primary transform only; the best-of rule's baseline)
    z4ai-balanced   our effort="balanced"                    (main python)
    z4ai-max        our effort="max"                         (main python)
    z4ai-chunked    our z4ai.chunked                         (main python)
    zstd-3, zstd-19 zstandard                                (main python)
    brotli-11       brotli quality 11 (single-threaded)      (main python)
    pypi-z4ai, pypi-z4ai-max, pypi-z4ai-chunked              (bench-z4ai venv)
    zipnn           ZipNN(method="zstd")                     (bench-zipnn venv)
    zipnn-auto      ZipNN(method="AUTO"), its Huffman/zstd choice
"""

from __future__ import annotations

from typing import Callable, Optional, Tuple

Codec = Tuple[Callable, Callable, Optional[Callable]]

# dtype codes used by the corpus -> ZipNN's bytearray_dtype names. ZipNN has no
# opaque-bytes mode (its byte input takes float types only, "uint8" is refused),
# so "raw" entries go to it as its one 1-byte type, fp8 e4m3. bench/micro's
# structured bench spells fp8 "f8_e4m3fn" and opaque bytes "" (sent as uint32).
ZIPNN_DTYPES = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32",
                "fp8_e4m3": "float8_e4m3fn", "raw": "float8_e4m3fn",
                "f8_e4m3fn": "float8_e4m3fn", "": "uint32"}
# ... -> z4ai's dtype codes (ours and PyPI 0.2.0 share them); "raw" is dtype=None.
Z4AI_DTYPES = {"raw": None}

# Codecs with no thread knob: measured once, at threads=1.
SINGLE_THREADED = {"brotli-11"}


def _z4ai_like(mod_effort: Optional[str], threads: int, dtype: str, auto: bool = True) -> Codec:
    import inspect

    import z4ai

    dtype = Z4AI_DTYPES.get(dtype, dtype)
    extra = {} if auto else {"auto": False}  # PyPI 0.2.0 is never asked for auto=False

    # Ours takes a decode thread count (same as compress, like the peers: "equal
    # threads" in both directions); PyPI z4ai 0.2.0's decompress has none.
    takes_threads = "threads" in inspect.signature(z4ai.decompress).parameters

    def c(data):
        return z4ai.compress(data, dtype=dtype, threads=threads, effort=mod_effort, **extra)

    def d(blob):
        return z4ai.decompress(blob, threads=threads) if takes_threads else z4ai.decompress(blob)

    return c, d, None


def _z4ai_chunked(threads: int, dtype: str) -> Codec:
    import z4ai.chunked as ch

    dtype = Z4AI_DTYPES.get(dtype, dtype)
    return (lambda data: ch.compress(data, dtype=dtype, threads=threads),
            lambda blob: ch.decompress(blob, threads=threads), None)


def _zstd(level: int, threads: int) -> Codec:
    import zstandard

    # zstandard: threads=0 compresses on the calling thread; N>0 spawns N workers.
    cctx = zstandard.ZstdCompressor(level=level, threads=0 if threads <= 1 else threads)
    dctx = zstandard.ZstdDecompressor()
    return cctx.compress, dctx.decompress, None


def _brotli() -> Codec:
    import brotli

    return (lambda data: brotli.compress(bytes(data), quality=11),
            brotli.decompress, None)


def _zipnn(method: str, threads: int, dtype: str) -> Codec:
    from zipnn import ZipNN

    zpn = ZipNN(method=method, input_format="byte", bytearray_dtype=ZIPNN_DTYPES[dtype], threads=threads)
    # zipnn 0.5.4 reorders sign/exponent bits of its input *in place* (even of a
    # bytes object), so it gets a private copy, made outside the timed region.
    return zpn.compress, zpn.decompress, bytearray


def available() -> set:
    """Codec names this interpreter can run."""
    names = set()
    try:
        import z4ai

        pypi = getattr(z4ai, "__version__", "") == "0.2.0"
        base = "pypi-z4ai" if pypi else "z4ai"
        names |= {base, base + "-max", base + "-chunked"}
        if not pypi:
            names |= {"z4ai-balanced", "z4ai-noauto"}
    except ImportError:
        pass
    try:
        import zipnn  # noqa: F401

        names |= {"zipnn", "zipnn-auto"}  # zipnn-auto: method="AUTO" (not in the default run)
    except ImportError:
        pass
    try:
        import zstandard  # noqa: F401

        if "pypi-z4ai" not in names:  # the venv has zstandard too; run it in main only
            names |= {"zstd-3", "zstd-19"}
    except ImportError:
        pass
    try:
        import brotli  # noqa: F401

        names.add("brotli-11")
    except ImportError:
        pass
    return names


def make(name: str, dtype: str, threads: int) -> Codec:
    if name in ("z4ai", "pypi-z4ai"):
        return _z4ai_like(None, threads, dtype)
    if name == "z4ai-noauto":
        return _z4ai_like(None, threads, dtype, auto=False)
    if name == "z4ai-balanced":
        return _z4ai_like("balanced", threads, dtype)
    if name in ("z4ai-max", "pypi-z4ai-max"):
        return _z4ai_like("max", threads, dtype)
    if name in ("z4ai-chunked", "pypi-z4ai-chunked"):
        return _z4ai_chunked(threads, dtype)
    if name == "zstd-3":
        return _zstd(3, threads)
    if name == "zstd-19":
        return _zstd(19, threads)
    if name == "brotli-11":
        return _brotli()
    if name == "zipnn":
        return _zipnn("zstd", threads, dtype)
    if name == "zipnn-auto":
        return _zipnn("AUTO", threads, dtype)
    raise ValueError(f"unknown codec {name!r}")
