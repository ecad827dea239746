#!/usr/bin/env python3
"""End-to-end loads: from a source to a torch state dict with every tensor
touched, .zt (raw, zstd, z4ai) against safetensors.

The model is a synthetic bf16 Llama-shaped state dict of about --size-mb
(hidden 2048, MLP 5632, vocab 32000, layers scaled to the size; matrices
N(0, 0.02) and norms N(1, 0.05) from a fixed seed, cast to bf16: the
compressibility of trained weights). Nothing is downloaded. Sources:

  local warm   the file in the page cache: safetensors.torch.load_file vs
               ztensor.torch.load_file
  local cold   the same after posix_fadvise(DONTNEED) of the file
  http 1G/10G  nginx on the loopback of a private network namespace
               (unshare -n), shaped by tc tbf to 1 and 10 Gbit/s: curl to
               disk + safetensors load_file (the peer) vs
               ztensor.torch.load_file(URL)

"Touched" means one byte of every 4 KiB page of every tensor is read, so a
loader that maps the file pays for its page faults. Loaders take turns in
every round (the order reversed every other round); medians of --rounds.
Ratios are against the safetensors case of the same source (< 1: faster).

    python3 bench/load_bench.py [--size-mb 512] [--rounds 3] [--threads 0]

The network cases need root (or CAP_NET_ADMIN and user namespaces): the
script re-runs itself under `unshare -n`, brings lo up there and shapes it;
without that, --no-network runs the local cases only.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# One byte per page is enough to fault every page of a mapped tensor in.
PAGE = 4096
# tc tbf: the bucket holds 10 ms of traffic at the rate (at least 1 MiB, as
# loopback's 64 KiB segments must fit), the queue at most 50 ms of delay.
BURST_SECONDS = 0.01
TBF_LATENCY = "50ms"
RATES = {"http 1G": "1gbit", "http 10G": "10gbit"}
RATE_BITS = {"1gbit": 1e9, "10gbit": 1e10}
IN_NETNS = "ZT_LOAD_BENCH_IN_NETNS"
REPO = Path(__file__).resolve().parents[1]

def state_dict(size_mb: float):
    """A bf16 Llama-shaped state dict of about `size_mb` MB."""
    import torch

    hidden, inter, vocab = 2048, 5632, 32000
    per_layer = (4 * hidden * hidden + 3 * hidden * inter + 2 * hidden) * 2
    layers = max(1, round((size_mb * 1e6 - 2 * vocab * hidden * 2) / per_layer))
    g = torch.Generator().manual_seed(0)

    def weight(*shape):
        return (torch.randn(shape, generator=g) * 0.02).to(torch.bfloat16)

    def norm(n):
        return (1 + 0.05 * torch.randn((n,), generator=g)).to(torch.bfloat16)

    sd = {"model.embed_tokens.weight": weight(vocab, hidden)}
    for i in range(layers):
        p = f"model.layers.{i}."
        for name in ("q_proj", "k_proj", "v_proj", "o_proj"):
            sd[p + f"self_attn.{name}.weight"] = weight(hidden, hidden)
        sd[p + "mlp.gate_proj.weight"] = weight(inter, hidden)
        sd[p + "mlp.up_proj.weight"] = weight(inter, hidden)
        sd[p + "mlp.down_proj.weight"] = weight(hidden, inter)
        sd[p + "input_layernorm.weight"] = norm(hidden)
        sd[p + "post_attention_layernorm.weight"] = norm(hidden)
    sd["model.norm.weight"] = norm(hidden)
    sd["lm_head.weight"] = weight(vocab, hidden)
    return sd, layers


def write_files(root: Path, size_mb: float):
    import safetensors.torch

    import ztensor.torch

    sd, layers = state_dict(size_mb)
    nbytes = sum(t.numel() * t.element_size() for t in sd.values())
    files = {"safetensors": root / "model.safetensors"}
    safetensors.torch.save_file(sd, str(files["safetensors"]))
    for enc in ("raw", "zstd", "z4ai"):
        files[f"zt {enc}"] = root / f"model-{enc}.zt"
        ztensor.torch.save_file(sd, str(files[f"zt {enc}"]), compression=None if enc == "raw" else enc,
                                durable=False)
    return files, nbytes, layers, len(sd)


def touch(sd) -> int:
    total = 0
    for t in sd.values():
        flat = t.reshape(-1).view(__import__("torch").uint8)
        total += int(flat[::PAGE].sum())
    return total


def drop_cache(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def timed(load) -> float:
    gc.collect()
    t0 = time.perf_counter()
    sd = load()
    touch(sd)
    dt = time.perf_counter() - t0
    del sd
    gc.collect()
    return dt


def local_loaders(files, threads, cold):
    import safetensors.torch

    import ztensor.torch

    def make(kind, path):
        def run():
            if cold:
                drop_cache(path)
            if kind == "safetensors":
                return timed(lambda: safetensors.torch.load_file(str(path)))
            return timed(lambda: ztensor.torch.load_file(path, threads=threads))
        return run
    return {kind: make(kind, path) for kind, path in files.items()}


def remote_loaders(files, port, threads, scratch: Path):
    import safetensors.torch

    import ztensor.torch

    def url(path):
        return f"http://127.0.0.1:{port}/{path.name}"

    def curl_then_load():
        dest = scratch / "download.safetensors"

        def load():
            subprocess.run(["curl", "-sSf", "-o", str(dest), url(files["safetensors"])], check=True)
            return safetensors.torch.load_file(str(dest))
        try:
            return timed(load)
        finally:
            dest.unlink(missing_ok=True)

    out = {"safetensors": curl_then_load}
    for kind, path in files.items():
        if kind != "safetensors":
            out[kind] = (lambda p: lambda: timed(lambda: ztensor.torch.load_file(url(p), threads=threads)))(path)
    return out


def shape_lo(rate: str) -> None:
    burst = max(1 << 20, int(RATE_BITS[rate] / 8 * BURST_SECONDS))
    subprocess.run(["tc", "qdisc", "replace", "dev", "lo", "root", "tbf", "rate", rate, "burst", str(burst),
                    "latency", TBF_LATENCY], check=True)


def run_rounds(loaders: dict, rounds: int) -> dict:
    times = {k: [] for k in loaders}
    for r in range(rounds):
        order = list(loaders) if r % 2 == 0 else list(reversed(loaders))
        for kind in order:
            times[kind].append(loaders[kind]())
    return {k: statistics.median(v) for k, v in times.items()}


def report(source: str, med: dict, sizes: dict) -> None:
    ref = med["safetensors"]
    for kind, t in med.items():
        print(f"{source:<11} {kind:<12} {sizes[kind] / 1e6:>9.1f} {t:>8.3f} {sizes['safetensors'] / t / 1e9:>8.2f} "
              f"{t / ref:>7.2f}x", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size-mb", type=float, default=512)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0, help="ztensor's threads= (0 = all cores)")
    ap.add_argument("--no-network", action="store_true", help="local cases only (no namespace, no tc)")
    ap.add_argument("--no-cold", action="store_true", help="skip the cold-cache cases")
    ap.add_argument("--workdir", type=Path, default=None, help="where the files go (default: a temp dir)")
    args = ap.parse_args()
    if not args.no_network and os.environ.get(IN_NETNS) != "1":
        # A private network namespace: shaping its lo touches nothing else on the machine.
        env = dict(os.environ, **{IN_NETNS: "1"})
        return subprocess.run(["unshare", "-n", sys.executable, *sys.argv], env=env).returncode
    if not args.no_network:
        subprocess.run(["ip", "link", "set", "lo", "up"], check=True)

    with tempfile.TemporaryDirectory(prefix="zt-load-bench-", dir=args.workdir) as tmp_name:
        tmp = Path(tmp_name)
        root = tmp / "www"
        root.mkdir()
        t0 = time.perf_counter()
        files, nbytes, layers, count = write_files(root, args.size_mb)
        sizes = {k: p.stat().st_size for k, p in files.items()}
        print(f"model: {nbytes / 1e6:.1f} MB of bf16 weights, {count} tensors ({layers} layers), written in "
              f"{time.perf_counter() - t0:.1f} s; {args.rounds} rounds, medians; threads={args.threads} "
              f"on {os.cpu_count()} cores", flush=True)
        print(f"{'source':<11} {'file':<12} {'size MB':>9} {'time s':>8} {'GB/s':>8} {'vs st':>8}", flush=True)
        report("local warm", run_rounds(local_loaders(files, args.threads, cold=False), args.rounds), sizes)
        if not args.no_cold:
            report("local cold", run_rounds(local_loaders(files, args.threads, cold=True), args.rounds), sizes)
        if not args.no_network:
            nginx_tmp = tmp / "nginx"
            nginx_tmp.mkdir()
            sys.path.insert(0, str(REPO / "tests" / "python"))
            from _servers import Nginx  # the tests' nginx: a config of its own, started and stopped here

            server = Nginx(root, nginx_tmp)
            try:
                for source, rate in RATES.items():
                    shape_lo(rate)
                    report(source, run_rounds(remote_loaders(files, server.port, args.threads, tmp), args.rounds),
                           sizes)
            finally:
                server.stop()
    print("GB/s: the safetensors file's bytes (the weights) over the time, for every row", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
