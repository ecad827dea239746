#!/usr/bin/env python3
"""ztensor.convert at z4ai effort "max": local vs Dask LocalCluster with 1
and 2 single-threaded worker processes, same source, interleaved rounds.

    python3 bench/dask_bench.py                 # ~64 MB model, 3 rounds
    python3 bench/dask_bench.py --mb 300 --repeat 3

The source is a synthetic bf16-range model (float32 tensors of 4 MiB with
gaussian weights of per-tensor scale) written as safetensors. Both clusters
stay up for the whole run and each round runs local, 1 worker, 2 workers in
turn, so load from other processes on a shared machine falls on all three
alike. Each dask output is checked byte for byte against the local one.
Prints medians, MB/s of source bytes, the speed-up over the local run, and
the 2-vs-1-worker ratio (median of the per-round ratios). A benchmark, not
a test: nothing asserts on time.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time

import numpy as np

import ztensor
import ztensor.numpy as ztnp

TENSOR_BYTES = 4 << 20


def make_model(path: str, mb: int) -> int:
    rng = np.random.default_rng(0)
    tensors = {}
    for i in range(max(1, (mb << 20) // TENSOR_BYTES)):
        scale = 0.02 * (1 + i % 5)
        tensors[f"layers.{i}.weight"] = (rng.standard_normal(TENSOR_BYTES // 4) * scale).astype(np.float32).reshape(
            1024, -1)
    ztnp.save_file(tensors, path)
    return sum(t.nbytes for t in tensors.values())


def cpu_seconds() -> float:
    """Run on each worker: CPU seconds its process has used."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=int, default=64, help="source size in MiB")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--effort", default="max")
    ap.add_argument("--no-local", action="store_true", help="skip the local runs (1 vs 2 workers only)")
    args = ap.parse_args()
    from dask.distributed import Client, LocalCluster

    load_before = os.getloadavg()

    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        src = os.path.join(tmp, "model.safetensors")
        nbytes = make_model(src, args.mb)
        opts = dict(compression="z4ai", effort=args.effort, durable=False)
        clients = {}
        for workers in (1, 2):
            cluster = stack.enter_context(LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                                       host="127.0.0.1", dashboard_address=None, silence_logs=40))
            clients[workers] = stack.enter_context(Client(cluster))
        runs = {"local": [], "dask 1 worker": [], "dask 2 workers": []}
        worker_cpu = {1: [], 2: []}  # CPU seconds the workers spent per run
        local_out = os.path.join(tmp, "local.zt")
        reference = None
        for _ in range(args.repeat):
            if not args.no_local:
                runs["local"].append(timed(lambda: ztensor.convert(src, local_out, **opts)))
                reference = open(local_out, "rb").read()
            for workers, name in ((1, "dask 1 worker"), (2, "dask 2 workers")):
                out = os.path.join(tmp, f"dask{workers}.zt")
                cpu_before = sum(clients[workers].run(cpu_seconds).values())
                runs[name].append(timed(lambda: ztensor.convert(src, out, client=clients[workers], **opts)))
                worker_cpu[workers].append(sum(clients[workers].run(cpu_seconds).values()) - cpu_before)
                print(f"round {len(runs[name])}: {name}: {runs[name][-1]:.2f} s, {worker_cpu[workers][-1]:.1f} "
                      f"worker CPU s, load average {os.getloadavg()[0]:.1f}", flush=True)  # partial results
                reference = reference or open(out, "rb").read()
                if open(out, "rb").read() != reference:
                    print(f"ERROR: dask output with {workers} worker(s) differs from the other runs'", file=sys.stderr)
                    return 1
        if args.no_local:
            del runs["local"]
        base = statistics.median(runs["local"] if runs.get("local") else runs["dask 1 worker"])
        print(f"source {nbytes / 1e6:.1f} MB, z4ai effort {args.effort}, {os.cpu_count()} cores, "
              f"median of {args.repeat} interleaved rounds, load average before: {load_before}")
        print(f"| run | median s | MB/s | speed-up vs {'1 worker' if args.no_local else 'local'} |")
        print("|---|---|---|---|")
        for name, samples in runs.items():
            m = statistics.median(samples)
            print(f"| {name} | {m:.2f} | {nbytes / 1e6 / m:.1f} | {base / m:.2f}x |")
        for workers, cpu in worker_cpu.items():
            # Source MB per CPU second of a worker: the per-worker rate with a
            # core of its own, whatever else ran on the machine.
            print(f"{workers} worker(s): median {statistics.median(cpu):.1f} CPU s on the workers per run, "
                  f"{nbytes / 1e6 / statistics.median(cpu):.2f} MB per worker CPU second")
        ratios = [one / two for one, two in zip(runs["dask 1 worker"], runs["dask 2 workers"])]
        print(f"2 workers vs 1: median {statistics.median(ratios):.2f}x (rounds: "
              f"{', '.join(f'{r:.2f}x' for r in ratios)}); load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
