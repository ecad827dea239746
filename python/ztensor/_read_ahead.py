"""safe_open's read-ahead: a loop of ``get_tensor(k) for k in f.keys()``
asks for one tensor at a time, so on a miss the next tensors of keys()'
order are fetched and decoded with it, in one batch on every core, and
handed out by the following calls. What is held ahead is bounded (a count
and a byte budget) and dropped at the next miss, so a reader that jumps
around holds one window at most."""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional

from ._reader import Reader, read_dense_torch, threads_arg

# At most this many stored bytes are read ahead of the caller...
READ_AHEAD_BYTES = 256 << 20
# ...and this many tensors per thread, so every thread has work in a batch.
TENSORS_PER_THREAD = 2


class ReadAhead:
    def __init__(self, reader: Reader, framework: str, threads: int, copy: bool):
        self._reader = reader
        self._framework = framework
        self._threads = threads_arg(threads)
        self._copy = copy
        self._held: Dict[str, Any] = {}
        self._order: Optional[List[tuple]] = None
        self._position: Dict[str, int] = {}

    def _batchable(self) -> List[tuple]:
        """Index entries of the dense objects worth batching, in sorted-name
        order (safe_open's keys()): all of them, but for the raw tensors of
        a local .zt file, which are views of its mapping already."""
        if self._order is None:
            local = self._reader.path is not None
            entries = [e for e in self._reader._r.index() if e[1] == "dense" and e[3] is not None
                       and not (local and e[7])]
            self._order = sorted(entries, key=lambda e: e[0])
            self._position = {e[0]: i for i, e in enumerate(self._order)}
        return self._order

    def get(self, name: str) -> Any:
        """The tensor `name` from the window (reading a new one on a miss),
        or None when it is not batched (the caller reads it alone)."""
        if name in self._held:
            return self._held.pop(name)
        order = self._batchable()
        at = self._position.get(name)
        if at is None:
            return None
        limit = TENSORS_PER_THREAD * (self._threads or os.cpu_count() or 1)
        window: List[tuple] = []
        stored = 0
        for e in order[at:at + limit]:
            if window and stored + (e[6] or 0) > READ_AHEAD_BYTES:
                break
            window.append(e)
            stored += e[6] or 0
        self._held = self._read(window)  # the previous window is dropped: memory stays bounded
        return self._held.pop(name)

    def hold_all(self) -> None:
        """Reads every batchable tensor in one batch (get_tensors)."""
        self._held = self._read(self._batchable())

    def _read(self, entries: List[tuple]) -> Dict[str, Any]:
        if self._framework == "torch":
            return read_dense_torch(self._reader, entries, self._threads)
        names = [e[0] for e in entries]
        got = dict(zip(names, self._reader._dense_numpy(names, self._threads)))
        if self._copy:  # as read(copy=True): arrays of their own
            got = {k: v if v.flags.writeable else v.copy() for k, v in got.items()}
        return got
