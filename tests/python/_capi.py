"""The C API through ctypes, for tests that check a URL read from C the way
they check it from Python and the CLI: libztensor.so from $ZT_LIB or the
newest unsanitized build tree of the repository."""

import ctypes
import os
from pathlib import Path


def find_libztensor():
    """$ZT_LIB, else the newest libztensor.so of a build tree of the repository
    (build*/ or the pip build dir build/python) that was not built with a
    sanitizer: an ASan/TSan/fuzz library cannot be loaded into plain Python."""
    if os.environ.get("ZT_LIB"):
        return os.environ["ZT_LIB"]
    repo = Path(__file__).resolve().parents[2]

    def sanitized(lib):
        cache = lib.parents[2] / "CMakeCache.txt"
        text = cache.read_text(errors="replace") if cache.exists() else ""
        return any(f"{opt}:BOOL=ON" in text for opt in ("ZT_SANITIZE", "ZT_FUZZ", "ZT_TSAN"))

    found = [p for pattern in ("build*/src/core/libztensor.so", "build/python/src/core/libztensor.so")
             for p in repo.glob(pattern) if not sanitized(p)]
    found.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    return str(found[0]) if found else None


class CApi:
    """The URL-reading part of the C API."""

    def __init__(self, path=None):
        lib = ctypes.CDLL(path or find_libztensor())
        p = ctypes.c_void_p
        lib.zt_reader_open_url.argtypes = [ctypes.c_char_p, p, ctypes.c_int, ctypes.POINTER(p)]
        lib.zt_remote_options_create.argtypes = [ctypes.POINTER(p)]
        lib.zt_remote_options_set.argtypes = [p, ctypes.c_char_p, ctypes.c_char_p]
        lib.zt_remote_options_free.argtypes = [p]
        lib.zt_reader_count.argtypes = [p]
        lib.zt_reader_count.restype = ctypes.c_size_t
        lib.zt_reader_close.argtypes = [p]
        lib.zt_reader_read.argtypes = [p, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(p),
                                       ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(p)]
        lib.zt_buffer_free.argtypes = [p]
        lib.zt_last_error.restype = ctypes.c_char_p
        lib.zt_error_name.restype = ctypes.c_char_p
        self.lib = lib

    def open_url(self, url, options=None, read=None):
        """(error code name, message, object count): ("ok", "", n) when it
        opened, and read the object named `read` when given."""
        lib = self.lib
        opts = ctypes.c_void_p()
        assert lib.zt_remote_options_create(ctypes.byref(opts)) == 0
        try:
            for key, value in (options or {}).items():
                rc = lib.zt_remote_options_set(opts, key.encode(), str(value).encode())
                if rc:
                    return lib.zt_error_name(rc).decode(), lib.zt_last_error().decode(), 0
            reader = ctypes.c_void_p()
            rc = lib.zt_reader_open_url(url.encode(), opts, 0, ctypes.byref(reader))
            if rc:
                return lib.zt_error_name(rc).decode(), lib.zt_last_error().decode(), 0
            try:
                if read is not None:
                    data, length, keep = ctypes.c_void_p(), ctypes.c_uint64(), ctypes.c_void_p()
                    rc = lib.zt_reader_read(reader, read.encode(), b"data", ctypes.byref(data), ctypes.byref(length),
                                            ctypes.byref(keep))
                    if rc:
                        return lib.zt_error_name(rc).decode(), lib.zt_last_error().decode(), 0
                    lib.zt_buffer_free(keep)
                return "ok", "", lib.zt_reader_count(reader)
            finally:
                lib.zt_reader_close(reader)
        finally:
            lib.zt_remote_options_free(opts)
