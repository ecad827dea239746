"""ztensor.convert(..., client=): the encoding runs on Dask workers.

One file: the client keeps the writer: it asks the workers to encode
objects (each worker opens the source by path or URL and reads the object
itself, so only names go out and encoded bytes come back), then appends the
results in source order, so the file is byte-identical to a local convert
whichever worker finishes first.

A source at an fsspec URL travels as a StoreSource: the URL, the caller's
storage options and the version the client opened, so every worker reads
that version or fails (length_mismatch) rather than mixing two.

Shards (max_shard_size): the client plans the shards by the local writer's
rule and submits one writer task per shard, which writes its shard into a
staging folder beside the output (shared storage) from objects encoded by
tasks of their own, in the same window as above; only (index, name) pairs
go out and byte counts come back to the client, and encoded bytes move
between workers only. The client then publishes the set (renames, index
last) as a local run does. The staging folder stays locked by the client
(zt::ShardStaging): a later write of the same name removes it only once
the client is gone. Dask is imported only through the client given.
"""

from __future__ import annotations

import os
from contextlib import nullcontext
from typing import Any, Callable, List, Optional, Tuple, Union

from . import _core
from ._fsspec import StoreSource, open_any
from .errors import error

# What a worker opens: a path or http(s) URL (the core opens it), or an
# fsspec URL held to one version.
WorkerSource = Union[str, StoreSource]

# Objects submitted to the cluster and not yet appended by the writer. The
# client holds at most this many encoded objects (its memory bound: this
# times the largest encoded object), and it is enough to keep a few workers
# busy while the writer appends in order.
MAX_IN_FLIGHT_OBJECTS = 8
# Codec threads for one encoding task on a worker (see _encode_on_worker).
CODEC_THREADS_PER_TASK = 1


def _encode_on_worker(src: WorkerSource, name: str, encoding: str, level: int,
                      effort: int) -> List[Tuple[bytes, int]]:
    """Run by a worker: (stored bytes, decoded length) for each component."""
    # Dask runs one task per worker thread, each thread standing for a core;
    # left at its default the codec would start a thread per core in every
    # task. The bytes are the same for any thread count.
    if isinstance(src, StoreSource):
        with src.open(verify=True) as r:  # .zt digests checked, as the local convert does
            return _core.encode_object(r._r, name, encoding, level, effort, CODEC_THREADS_PER_TASK)
    return _core.encode_object(src, name, encoding, level, effort, CODEC_THREADS_PER_TASK)


def worker_source(src: str, opened) -> WorkerSource:
    """What workers open for ``src``: the version ``opened`` holds (an
    fsspec URL's Reader), a URL, or the path made absolute (workers may
    run in another directory)."""
    if opened is not None and opened._store is not None:
        return opened._store
    return src if "://" in src else os.path.abspath(src)


def encoded_hook(client, src: WorkerSource, encoding: str, level: int, effort: int,
                 objects: Optional[List[Tuple[int, str]]] = None) -> Tuple[Callable, Callable]:
    """(hook for _core.convert's ``encoded``, cancel): the hook returns the
    encoded components of the object at a source index, keeping the window
    of following objects submitted; cancel drops whatever is still in
    flight. ``objects``: the (source index, name) pairs converted, in order;
    by default every object of ``src``."""
    if objects is None:
        with (src.open() if isinstance(src, StoreSource) else open_any(src)) as r:
            objects = list(enumerate(r.keys()))
    position = {index: i for i, (index, _) in enumerate(objects)}
    futures = {}  # position in `objects` -> Future, for submitted objects not yet taken
    next_position = 0  # the first object not yet submitted

    def hook(index: int, name: str):
        nonlocal next_position
        at = position.get(index)
        if at is None or objects[at][1] != name:  # the source changed between the two opens
            was = objects[at][1] if at is not None else "absent"
            label = src.url if isinstance(src, StoreSource) else src
            raise error("invalid_argument", f"'{label}' changed during the conversion: object {index} is "
                                            f"'{name}', was '{was}'")
        while next_position < min(at + MAX_IN_FLIGHT_OBJECTS, len(objects)):
            source_index, source_name = objects[next_position]
            futures[next_position] = client.submit(_encode_on_worker, src, source_name, encoding, level, effort,
                                                   pure=False, priority=-source_index)
            next_position += 1
        return futures.pop(at).result()  # a worker's ztensor error is raised here, with its code

    def cancel() -> None:
        for f in futures.values():
            f.cancel()
        futures.clear()

    return hook, cancel


def _write_shard_on_worker(src: WorkerSource, path: str, objects: List[Tuple[int, str]], encoding: str,
                           level: int, effort: int, checksum: str, durable: bool) -> Tuple[int, List[str]]:
    """Run by a worker: the complete .zt shard ``path`` holding the source
    objects ``objects`` ((index, name) pairs); returns (decoded bytes,
    warnings). The objects are encoded by tasks of their own, as for one
    file, so the cluster works on objects, not on as few shards; this task
    leaves its worker thread while it waits (worker_client secedes), and
    the encoded bytes come to it straight from the workers that made them."""
    from distributed import worker_client

    with worker_client() as client, (src.open(verify=True) if isinstance(src, StoreSource) else nullcontext()) as r:
        hook, cancel = encoded_hook(client, src, encoding, level, effort, objects)
        try:
            _, nbytes, warnings, _, _ = _core.convert(r._r if r is not None else src, path, "zt", encoding, level,
                                                      effort, checksum, durable, None, 0, hook,
                                                      [index for index, _ in objects])
        finally:
            cancel()
    return nbytes, list(warnings)


def write_shards(client, src: Any, on_workers: WorkerSource, dst: str, encoding: str, level: int, effort: int,
                 checksum: str, durable: bool, max_shard_size: int, progress: Optional[Callable[[int, int], None]]):
    """A sharded .zt written by the workers, one task per shard: returns
    _core.convert's (objects, bytes, warnings, source format, files), or
    None when everything fits in one file (the caller writes it). ``src``:
    a path or an open core reader, planned here; ``on_workers``: what the
    workers open."""
    shards, shard_bytes, src_format = _core.plan_shards(src, max_shard_size)
    if len(shards) < 2:
        return None
    # Locked while this process lives, so the next write of the same name
    # removes it only once this writer is gone; removed on every path out.
    staging = _core.ShardStaging(os.path.abspath(dst))
    staged = [os.path.join(staging.folder, f"{i + 1:05d}.zt") for i in range(len(shards))]
    futures = []
    try:
        futures = [client.submit(_write_shard_on_worker, on_workers, staged[i], shard, encoding, level, effort, checksum,
                                 durable, pure=False, priority=-i)
                   for i, shard in enumerate(shards)]
        results: list[Any] = [None] * len(shards)
        position = {future.key: i for i, future in enumerate(futures)}
        done, total = 0, sum(shard_bytes)
        from distributed import as_completed  # the client given is a distributed.Client

        for future in as_completed(futures):
            i = position[future.key]
            results[i] = future.result()  # a worker's ztensor error is raised here, with its code
            done += shard_bytes[i]
            if progress is not None:
                progress(done, total)
        files = _core.publish_staged_shards(dst, staged, [[name for _, name in shard] for shard in shards],
                                            sum(nbytes for nbytes, _ in results), durable)
    except BaseException:
        for future in futures:
            future.cancel()
        raise
    finally:
        staging.close()
    warnings = [w for _, shard_warnings in results for w in shard_warnings]
    return sum(len(shard) for shard in shards), sum(nbytes for nbytes, _ in results), warnings, src_format, files
