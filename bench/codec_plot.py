#!/usr/bin/env python3
"""Plots for the codec benchmark (matplotlib, PNG).

    python3 bench/codec_plot.py bench/out/codec.json [--dir docs/img]

codec_ratio_vs_decompress.png: ratio against decompression speed on the
real-model entries, one panel per entry and thread count (up and right is
better). codec_ratio_synthetic.png: ratio per codec on the synthetic entries.
codec_bench.py calls plots() at the end of every run.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import List

MARKERS = {"z4ai": ("o", "C3"), "z4ai-balanced": ("s", "C1"), "z4ai-max": ("D", "C5"), "z4ai-chunked": ("^", "C6"),
           "zipnn": ("P", "C0"), "pypi-z4ai": ("v", "C2"), "pypi-z4ai-max": ("<", "C8"),
           "pypi-z4ai-chunked": (">", "C9"), "zstd-3": ("x", "C7"), "zstd-19": ("*", "k"), "brotli-11": ("h", "C4")}


def _ok(report, entry, codec, t):
    r = report["results"].get(f"{entry}|{codec}|{t}")
    return r if r and "error" not in r else None


def plots(report: dict, out_dir: str, suffix: str = "") -> List[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(out_dir, exist_ok=True)
    codecs = [c["name"] for c in report["codecs"]]
    threads = report["threads"]
    paths = []

    real = [e["name"] for e in report["entries"] if e["group"] in ("real", "real-small") and e["n_segments"] == 1]
    if real:
        fig, axes = plt.subplots(len(threads), len(real), figsize=(3.6 * len(real), 3.3 * len(threads)),
                                 squeeze=False)
        for i, t in enumerate(threads):
            for j, name in enumerate(real):
                ax = axes[i][j]
                for c in codecs:
                    r = _ok(report, name, c, t) or (_ok(report, name, c, threads[0]) if c == "brotli-11" else None)
                    if not r:
                        continue
                    m, col = MARKERS.get(c, ("o", "grey"))
                    ax.scatter(r["d_mbps"], r["ratio"], marker=m, color=col, s=46, label=c)
                ax.set_xscale("log")
                ax.set_title(f"{name}, threads={t}", fontsize=9)
                ax.set_xlabel("decompress MB/s (log)", fontsize=8)
                ax.set_ylabel("ratio (orig/comp)", fontsize=8)
                ax.grid(alpha=0.3, which="both")
                ax.tick_params(labelsize=7)
        handles = {}
        for row in axes:
            for ax in row:
                for h, lab in zip(*ax.get_legend_handles_labels()):
                    handles.setdefault(lab, h)
        fig.legend(list(handles.values()), list(handles.keys()), loc="lower center", ncol=6, fontsize=8)
        fig.tight_layout(rect=(0, 0.08, 1, 1))
        p = os.path.join(out_dir, f"codec_ratio_vs_decompress{suffix}.png")
        fig.savefig(p, dpi=110)
        plt.close(fig)
        paths.append(p)

    synth = [e["name"] for e in report["entries"] if e["group"] == "synthetic"]
    if synth:
        t = threads[0]
        fig, ax = plt.subplots(figsize=(max(8, 1.3 * len(synth)), 4.2))
        shown = [c for c in codecs if any(_ok(report, n, c, t) for n in synth)]
        width = 0.8 / max(1, len(shown))
        for k, c in enumerate(shown):
            xs, ys = [], []
            for i, n in enumerate(synth):
                r = _ok(report, n, c, t)
                if r:
                    xs.append(i + k * width)
                    ys.append(r["ratio"])
            ax.bar(xs, ys, width, label=c, color=MARKERS.get(c, ("o", "grey"))[1])
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(synth))])
        ax.set_xticklabels(synth, rotation=20, ha="right", fontsize=8)
        ax.set_yscale("log")
        ax.set_ylabel("ratio (orig/comp, log)")
        ax.set_title(f"synthetic entries, threads={t}", fontsize=10)
        ax.legend(fontsize=7, ncol=3)
        ax.grid(alpha=0.3, axis="y", which="both")
        fig.tight_layout()
        p = os.path.join(out_dir, f"codec_ratio_synthetic{suffix}.png")
        fig.savefig(p, dpi=110)
        plt.close(fig)
        paths.append(p)
    return paths


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("json")
    ap.add_argument("--dir", default=None)
    a = ap.parse_args()
    rep = json.load(open(a.json))
    print(plots(rep, a.dir or os.path.dirname(os.path.abspath(a.json)), "-quick" if rep.get("quick") else ""))
