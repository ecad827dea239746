"""ztensor.convert(..., client=): the encoding runs on Dask workers.

The client keeps the writer: it asks the workers to encode objects (each
worker opens the source by path or URL and reads the object itself, so only
names go out and encoded bytes come back), then appends the results in
source order, so the file is byte-identical to a local convert whichever
worker finishes first. Dask is imported only through the client given.
"""

from __future__ import annotations

import os
from typing import Callable, List, Tuple

from . import _core
from ._fsspec import open_any
from .errors import error

# Objects submitted to the cluster and not yet appended by the writer. The
# client holds at most this many encoded objects (its memory bound: this
# times the largest encoded object), and it is enough to keep a few workers
# busy while the writer appends in order.
MAX_IN_FLIGHT_OBJECTS = 8
# Codec threads for one encoding task on a worker (see _encode_on_worker).
CODEC_THREADS_PER_TASK = 1


def _encode_on_worker(src: str, name: str, encoding: str, level: int, effort: int) -> List[Tuple[bytes, int]]:
    """Run by a worker: (stored bytes, decoded length) for each component."""
    # Dask runs one task per worker thread, each thread standing for a core;
    # left at its default the codec would start a thread per core in every
    # task. The bytes are the same for any thread count.
    return _core.encode_object(src, name, encoding, level, effort, CODEC_THREADS_PER_TASK)


def _worker_path(src: str) -> str:
    # Workers may run elsewhere (another cwd): hand them an absolute path.
    return src if "://" in src else os.path.abspath(src)


def encoded_hook(client, src: str, encoding: str, level: int, effort: int) -> Tuple[Callable, Callable]:
    """(hook for _core.convert's ``encoded``, cancel): the hook returns the
    index-th object's encoded components, keeping the window of following
    objects submitted; cancel drops whatever is still in flight."""
    path = _worker_path(src)
    with open_any(src) as r:
        names = r.keys()
    futures = {}  # index -> Future, for submitted objects not yet taken
    next_index = 0  # the first object not yet submitted

    def hook(index: int, name: str):
        nonlocal next_index
        while next_index < min(index + MAX_IN_FLIGHT_OBJECTS, len(names)):
            futures[next_index] = client.submit(_encode_on_worker, path, names[next_index], encoding, level, effort,
                                                pure=False, priority=-next_index)
            next_index += 1
        future = futures.pop(index)
        if names[index] != name:  # the source changed between the two opens
            raise error("invalid_argument", f"'{src}' changed during the conversion: object {index} is "
                                            f"'{name}', was '{names[index]}'")
        return future.result()  # a worker's ztensor error is raised here, with its code

    def cancel() -> None:
        for f in futures.values():
            f.cancel()
        futures.clear()

    return hook, cancel
