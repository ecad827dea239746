"""Markdown report for the codec benchmark (tables, targets, deltas, interop).

The hand-written analysis between ANALYSIS_BEGIN and ANALYSIS_END in
docs/benchmarks-codec.md survives a rerun; everything else is regenerated.
"""

from __future__ import annotations

import os
from typing import List

ANALYSIS_BEGIN = "<!-- analysis:begin (hand-written; kept by codec_bench.py) -->"
ANALYSIS_END = "<!-- analysis:end -->"


def _r(report, entry, codec, t):
    r = report["results"].get(f"{entry}|{codec}|{t}")
    return r if r and "error" not in r else None


def _fmt_speed(v):
    if v is None:
        return "-"
    return f"{v:,.0f}" if v >= 10 else f"{v:.2f}"


def _n(r):
    n = min(len(r["c_times"]), len(r["d_times"]))
    return "" if n >= 3 else f" <sub>n={len(r['c_times'])}/{len(r['d_times'])}</sub>"


def _by_how_much(t):
    w, lim = t.get("worst"), t.get("limit")
    if not w or lim is None:
        return ""
    v = w["value"]
    if t.get("op") == "le":  # a ceiling
        return f"{(v / lim - 1) * 100:+.1f} % over" if v > lim else f"{(1 - v / lim) * 100:.1f} % margin"
    return f"{(1 - v / lim) * 100:.1f} % short" if v < lim else f"{(v / lim - 1) * 100:.1f} % margin"


def _cell(r) -> str:
    return r["entry"] + (f" T{r['threads']}" if "threads" in r else "")


def targets_table(report) -> List[str]:
    out = ["| item | target | status | worst cell | worst value | by how much | geo-mean | cells missed |",
           "|---|---|---|---|---|---|---|---|"]
    for t in report["targets"]:
        w = t.get("worst") or {}
        val = f"{w['value']:.3f}" if "value" in w else "-"
        gm = f"{t['geomean']:.3f}" if t.get("geomean") else "-"
        missed = f"{t.get('n_missed', '-')}/{t.get('n', '-')}"
        status = {"met": "**met**", "missed": "**MISSED**"}.get(t["status"], t["status"])
        out.append(f"| {t.get('item', '')} | {t['target']} | {status} | {_cell(w) if w else ''} | {val} | "
                   f"{_by_how_much(t)} | {gm} | {missed} |")
    return out


def missed_cells(report) -> List[str]:
    """Every cell that misses its target, by name (the analysis explains them)."""
    out = []
    for t in report["targets"]:
        bad = t.get("missed_rows") or []
        if not bad:
            continue
        cells = ", ".join(f"{_cell(r)} {r['value']:.3f}" + (f" ({r['note'].strip('; ')})" if r.get("note") else "")
                          for r in sorted(bad, key=lambda r: r["value"], reverse=t.get("op") == "le"))
        out.append(f"- **{t['target']}** ({len(bad)}/{t['n']}): {cells}")
    return out or ["- none"]


def peak_table(report) -> List[str]:
    out = ["| entry | threads | compress peak MB ours / PyPI | decompress peak MB ours / PyPI | same frame | "
           "compress s ours / PyPI | decompress s ours / PyPI |", "|---|---:|---:|---:|---|---:|---:|"]
    for p in report.get("peaks", []):
        o, q = p.get("ours", {}), p.get("peer", {})
        if "error" in o or "error" in q:
            out.append(f"| {p['entry']} | {p['threads']} | error: {(o.get('error') or q.get('error'))[:80]} | | | | |")
            continue
        mb = lambda d, k: f"{d[k]['peak_over_input'] / 1e6:,.1f}"  # noqa: E731
        sec = lambda d, k: f"{d[k]['seconds']:.2f}"  # noqa: E731
        out.append(f"| {p['entry']} | {p['threads']} | {mb(o, 'compress')} / {mb(q, 'compress')} | "
                   f"{mb(o, 'decompress')} / {mb(q, 'decompress')} | "
                   f"{'yes' if o['frame_sha256'] == q['frame_sha256'] else 'NO'} | "
                   f"{sec(o, 'compress')} / {sec(q, 'compress')} | {sec(o, 'decompress')} / {sec(q, 'decompress')} |")
    return out


def ratio_table(report) -> List[str]:
    codecs = [c["name"] for c in report["codecs"]]
    out = ["| entry | MB | " + " | ".join(codecs) + " |", "|---|---:|" + "---:|" * len(codecs)]
    for e in report["entries"]:
        cells = []
        for c in codecs:
            # ratio does not depend on threads for ours; take the first thread count measured
            ts = [t for t in report["threads"] if _r(report, e["name"], c, t)] or report["threads"][:1]
            r = _r(report, e["name"], c, ts[0])
            err = report["results"].get(f"{e['name']}|{c}|{ts[0]}", {}).get("error")
            cells.append(f"{r['ratio']:.3f}" if r else ("err" if err else ""))
        best = max((float(x) for x in cells if x not in ("", "err")), default=None)
        cells = [f"**{x}**" if best is not None and x not in ("", "err") and float(x) == best else x for x in cells]
        out.append(f"| {e['name']} | {e['bytes'] / 1e6:.1f} | " + " | ".join(cells) + " |")
    return out


def speed_table(report, t) -> List[str]:
    codecs = [c["name"] for c in report["codecs"]]
    out = ["| entry | " + " | ".join(codecs) + " |", "|---|" + "---:|" * len(codecs)]
    for e in report["entries"]:
        cells = []
        for c in codecs:
            r = _r(report, e["name"], c, t)
            cells.append(f"{_fmt_speed(r['c_mbps'])} / {_fmt_speed(r['d_mbps'])}{_n(r)}" if r else "")
        out.append(f"| {e['name']} | " + " | ".join(cells) + " |")
    return out


def coverage_table(report) -> List[str]:
    """Which entries and thread counts each codec was measured on (taken from the results)."""
    out = ["| codec | entries measured | threads | which |", "|---|---:|---|---|"]
    names = [e["name"] for e in report["entries"]]
    for c in (c["name"] for c in report["codecs"]):
        got = {t: [n for n in names if _r(report, n, c, t)] for t in report["threads"]}
        seen = {n for ns in got.values() for n in ns}
        ts = ", ".join(str(t) for t in report["threads"] if got[t])
        miss = [n for n in names if n not in seen]
        shown = ("only " + ", ".join(n for n in names if n in seen) if len(miss) > len(names) // 2
                 else ("all but " + ", ".join(miss) if miss else "all"))
        out.append(f"| {c} | {len(seen)}/{len(names)} | {ts or '-'} | {shown} |")
    return out


def delta_table(report) -> List[str]:
    out = ["| pair | kind | implementation | target MB | standalone B | delta B | delta smaller by | C MB/s | D MB/s |",
           "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for d in report["deltas"]:
        if "error" in d:
            out.append(f"| {d['name']} | {d['kind']} | {d['impl']} | | | | error: {d['error'][:80]} | | |")
            continue
        out.append(f"| {d['name']} | {d['kind']} | {d['impl']} | {d['orig_bytes'] / 1e6:.1f} | "
                   f"{d['standalone_bytes']:,} | {d['delta_bytes']:,} | {d['gain_vs_standalone']:.1f}x | "
                   f"{d['c_mbps']:,.0f} | {d['d_mbps']:,.0f} |")
    return out


def errors(report) -> List[str]:
    out = []
    for k, r in sorted(report["results"].items()):
        if "error" in r:
            out.append(f"- `{k.replace('|', ' ')}`: {r['error'][:200]}")
    return out


def markdown(report, pngs, img_rel="img") -> str:
    m = report["machine"]
    L = ["# Codec benchmark: z4ai against ZipNN, PyPI z4ai, zstd and brotli", ""]
    L += [f"Generated by `{report['command']}` (from the repository root; `--quick` for a smoke run). "
          f"Run took {report['elapsed_s'] / 60:.1f} min.", ""]
    L += [f"- Machine: {m['cpu']}, {m['cores']} cores, {m['memory']}, Linux {m['kernel']}, Python {m['python']}.",
          f"- Load average at start {', '.join(f'{x:.1f}' for x in m['loadavg_start'])}; "
          f"at end {', '.join(f'{x:.1f}' for x in m.get('loadavg_end', []))}. The machine is shared and noisy "
          "(other builds run), so every speed is the **median** of the rounds, and speed ratios between "
          "codecs (measured interleaved, entry by entry) are more trustworthy than absolute MB/s.",
          f"- Rounds per cell: {report['reps']}, every cell (compress and decompress timed separately).",
          f"- Threads: {', '.join(str(t) for t in report['threads'])} (2 = all cores here).",
          f"- **Round-trip failures: {report['roundtrip_failures']}** (every decompressed buffer is compared "
          "byte for byte with its input)."]
    for k, w in report["workers"].items():
        if w.get("versions"):
            L.append(f"- Worker `{k}`: " + ", ".join(f"{a} {b}" for a, b in w["versions"].items()))
    L += ["", "## Targets, per cell at equal threads", ""] + targets_table(report)
    L += ["", "Sizes compare compressed bytes (ours/peer; frames do not depend on threads, so one cell per "
          "entry); speeds compare MB/s (ours/peer), one cell per entry and thread count. Every cell must hold "
          "(the geo-mean row: the geo-mean decides). Real = every real-model entry (whole, per-tensor, small); "
          "structured = int8/int4-dequantised, 50 % pruned, fp8, tied, opaque.", "",
          "### Cells that miss, by target", ""] + missed_cells(report) + [""]
    L += [ANALYSIS_BEGIN, "", "(analysis goes here)", "", ANALYSIS_END, ""]
    L += ["## Ratio (original / compressed)", "",
          "At threads=1, or at all cores for the tiers measured only there (ours balanced/max): our frames are "
          "identical for any thread count. Best per row in bold; an empty cell was not run (see method notes).", ""]
    L += ratio_table(report)
    for t in report["threads"]:
        L += ["", f"## Throughput at threads={t}: compress / decompress MB/s", "",
              "MB = 10^6 bytes of *original* data, for both directions."
              + (" brotli has no thread knob and is measured at threads=1 only." if t != report["threads"][0] else ""),
              ""] + speed_table(report, t)
    L += ["", "## Checkpoint deltas", "",
          "Fine-tunes of the real model in bf16 with exactly k % of elements changed (a 2 % relative step, at least "
          "one ulp). *buffer*: `compress_delta(target, base, dtype='bf16')` against `compress(target)`. *model*: "
          "`model_delta.compress` on safetensors buffers (the target also gains a new 2x384 classifier tensor) "
          "against the standalone ZSTN container (`z4ai.safetensors.compress_bytes`). threads=0.", ""]
    L += delta_table(report)
    L += ["", "## Chunked path: peak memory against PyPI z4ai's", "",
          "Each compress and decompress in a fresh child process of its interpreter: peak RSS during the call "
          "(VmHWM, reset just before the call through /proc/self/clear_refs) minus RSS just before it, with the "
          "input already read; so the figure is the call's working memory plus its output. One measurement per cell; the seconds are that one call's, not a median.", ""]
    L += peak_table(report)
    io = report["interop"]
    L += ["", "## Interop: Z4AIMF01 frames with PyPI z4ai 0.2.0", "",
          f"`python3 tests/unit/codec/interop_chunked.py --ref-python <bench-z4ai venv>/bin/python` "
          f"exit code **{io['rc']}** ({'pass' if io['rc'] == 0 else 'FAIL'}):", "", "```", io["output"], "```"]
    if pngs:
        L += ["", "## Plots", ""]
        for p in pngs:
            L.append(f"![{os.path.basename(p)}]({img_rel}/{os.path.basename(p)})")
    L += ["", "## Corpus", "", "| entry | group | dtype | MB | tensors | description |", "|---|---|---|---:|---:|---|"]
    for e in report["entries"]:
        L.append(f"| {e['name']} | {e['group']} | {e['dtype']} | {e['bytes'] / 1e6:.1f} | {e['n_segments']} | {e['desc']} |")
    L += ["", "## Method notes", "",
          "- Codecs: " + "; ".join(f"`{c['name']}` = {c['label']}" for c in report["codecs"]) + ".",
          "- The slow codecs run on a subset of the entries and thread counts (codec_bench.py `CODECS` scopes), "
          "so a full run stays near 20-25 min on 2 cores; what this run covered is in the coverage table below. "
          "A codec's frames do not depend on threads, so the size rules use whichever count was measured.",
          "- ZipNN has no opaque-bytes mode (its byte input takes float dtypes only); the opaque entry goes to it as "
          "fp8 e4m3, its one 1-byte type.",
          "- Per-tensor entries compress each tensor alone (sizes and times summed), the way a container stores them.",
          "- zipnn 0.5.4 rewrites its input buffer in place (sign/exponent bit reordering, even on a `bytes`), so it "
          "is handed a private copy made outside the timed region; without that its round trips fail.",
          "- Each codec runs in a long-lived worker in its own interpreter (ours in the main Python, zipnn and PyPI "
          "z4ai in venvs); import and setup costs are outside the timings.",
          "- zstd threads=1 means zstandard's `threads=0` (no worker thread); threads=2 spawns two workers "
          "(a buffer below zstd's job size still compresses on one)."]
    L += ["", "### Coverage of this run", ""] + coverage_table(report)
    errs = errors(report)
    if errs:
        L += ["", "## Cells that raised", ""] + errs
    return "\n".join(L) + "\n"


def write_doc(path: str, md: str) -> None:
    """Writes md to path, carrying over the analysis block of the existing file."""
    if os.path.exists(path):
        old = open(path).read()
        if ANALYSIS_BEGIN in old and ANALYSIS_END in old:
            block = old[old.index(ANALYSIS_BEGIN):old.index(ANALYSIS_END) + len(ANALYSIS_END)]
            md = md[:md.index(ANALYSIS_BEGIN)] + block + md[md.index(ANALYSIS_END) + len(ANALYSIS_END):]
    with open(path, "w") as f:
        f.write(md)
