#!/usr/bin/env python3
"""Loading a Hugging Face model: ztensor.transformers.from_pretrained of a
.zt folder against transformers' own from_pretrained of the same weights as
safetensors.

The model is a Llama built from a config (no download), about --size-gb of
bf16 weights, drawn at random like trained ones (normal, std 0.02). It is
saved once with transformers' save_pretrained (model.safetensors) and once
with ztensor.transformers.save_pretrained (model.zt, raw; with --compressed
zstd,z4ai also compressed copies). Every run is a fresh child process, which
imports torch, transformers (with the Llama model code) and ztensor, then measures:

  load      wall seconds of the from_pretrained call (model returned, eval mode)
  forward   wall seconds of one forward pass after it (every weight is read;
            lazily mapped weights are paged in here)
  rss       peak resident memory (VmHWM, reset after the imports) minus the resident
            memory after the imports, over the model's size

The loaders take turns in every round (--rounds, medians), so load from
other processes falls on all alike; files are in the page cache after the
first round. Goals: rss at most 1.1x the model's size (a loader that maps
the file and copies nothing twice), load no slower than transformers.

    python3 bench/transformers_load_bench.py [--size-gb 1] [--rounds 5] [--compressed zstd,z4ai]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

LOAD_PEERS = Path(__file__).resolve().parent / "load_peers"  # peak_memory.py, shared with load_bench
CHILD = r"""
import json, os, sys, time
os.environ["HF_HUB_OFFLINE"] = "1"
import torch, transformers, ztensor.transformers
from peak_memory import peak_kb, reset_peak  # bench/load_peers, on PYTHONPATH
kind, folder = sys.argv[1], sys.argv[2]
# transformers imports a model's code on first use: done here, so the timed
# load and the memory baseline hold the loading only.
transformers.LlamaForCausalLM, transformers.AutoModelForCausalLM, transformers.LlamaConfig
base = reset_peak()  # the parent built the model: its peak is not this load's
t0 = time.perf_counter()
if kind == "transformers":
    model = transformers.AutoModelForCausalLM.from_pretrained(folder)
else:
    model = ztensor.transformers.from_pretrained(folder)
t1 = time.perf_counter()
with torch.no_grad():
    model(torch.tensor([[1, 2, 3, 4]]))
t2 = time.perf_counter()
peak = peak_kb()
print(json.dumps({"load": t1 - t0, "forward": t2 - t1, "rss_kb": peak - base, "base_kb": base,
                  "dtype": str(next(model.parameters()).dtype)}))
"""


def config_for(size_gb: float):
    """A Llama config of about `size_gb` GB of bf16 weights (layers scaled)."""
    import transformers

    hidden, inter, vocab = 1536, 4096, 32000
    per_layer = 4 * hidden * hidden + 3 * hidden * inter + 2 * hidden
    layers = max(1, round((size_gb * 1e9 / 2 - 2 * vocab * hidden) / per_layer))
    return transformers.LlamaConfig(hidden_size=hidden, intermediate_size=inter, num_hidden_layers=layers,
                                    num_attention_heads=12, num_key_value_heads=12, vocab_size=vocab,
                                    tie_word_embeddings=False, max_position_embeddings=2048, dtype="bfloat16")


def make_folders(work: Path, size_gb: float, compressed: list):
    """The model saved by transformers and by ztensor; returns (folders, bytes)."""
    import torch
    import transformers

    import ztensor.transformers

    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM._from_config(config_for(size_gb), dtype=torch.bfloat16).eval()
    with torch.no_grad():  # matrices are drawn N(0, 0.02) by the init; norms are not all ones once trained
        for p in model.parameters():
            if p.dim() == 1:
                p.normal_(1.0, 0.05)
    nbytes = sum(p.numel() * p.element_size() for p in model.parameters())
    folders = {"transformers": work / "safetensors", "ztensor": work / "zt"}
    model.save_pretrained(folders["transformers"])
    ztensor.transformers.save_pretrained(model, folders["ztensor"])
    for enc in compressed:
        folders[f"ztensor {enc}"] = work / f"zt-{enc}"
        ztensor.transformers.save_pretrained(model, folders[f"ztensor {enc}"], compression=enc)
    return folders, nbytes


def run_child(kind: str, folder: Path) -> dict:
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_VERBOSITY="error",
               PYTHONPATH=os.pathsep.join(filter(None, [str(LOAD_PEERS), os.environ.get("PYTHONPATH")])))
    loader = "transformers" if kind == "transformers" else "ztensor"
    out = subprocess.run([sys.executable, "-c", CHILD, loader, str(folder)], capture_output=True, text=True,
                         env=env, check=True, timeout=3600)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size-gb", type=float, default=1.0)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--compressed", default="", help="also load .zt folders compressed so (zstd, z4ai: comma-separated)")
    ap.add_argument("--workdir", type=Path, default=None, help="where the model folders go (default: a temp dir)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="zt-hf-bench-", dir=args.workdir) as tmp:
        compressed = [c for c in args.compressed.split(",") if c]
        folders, nbytes = make_folders(Path(tmp), args.size_gb, compressed)
        runs = {kind: [] for kind in folders}
        for r in range(args.rounds):
            order = list(folders) if r % 2 == 0 else list(reversed(folders))
            for kind in order:
                runs[kind].append(run_child(kind, folders[kind]))
    med = {k: {m: statistics.median(x[m] for x in v) for m in ("load", "forward", "rss_kb")} for k, v in runs.items()}
    ref = med["transformers"]
    print(f"model: {nbytes / 1e9:.3f} GB of bf16 weights, {args.rounds} rounds, medians; "
          f"import baseline {statistics.median(x['base_kb'] for x in runs['transformers']) / 1024:.0f} MiB")
    print(f"{'loader':<14} {'load s':>8} {'vs tf':>6} {'forward s':>10} {'load+fwd vs tf':>15} "
          f"{'RSS GB':>7} {'RSS/model':>10}")
    for kind, m in med.items():
        total, ref_total = m["load"] + m["forward"], ref["load"] + ref["forward"]
        rss = m["rss_kb"] * 1024
        print(f"{kind:<14} {m['load']:>8.3f} {m['load'] / ref['load']:>5.2f}x {m['forward']:>10.3f} "
              f"{total / ref_total:>14.2f}x {rss / 1e9:>7.3f} {rss / nbytes:>9.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
