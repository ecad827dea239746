"""The README's codec and wheel figures are the ones the benchmark docs
measured: recomputed here from docs/benchmarks-codec.md's tables (and
docs/packaging.md's wheel size), so a rerun that changes them, or a README
edit that rounds them up, fails until the two agree."""

import math
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
CODEC_DOC = (ROOT / "docs" / "benchmarks-codec.md").read_text()
# The whole-model MiniLM entries the README's sentence is about.
MINILM = ("minilm-fp32", "minilm-bf16", "minilm-fp16")


def table(title):
    """{entry: {column: cell}} of the table under the heading `title`."""
    lines = CODEC_DOC[CODEC_DOC.index(title):].splitlines()[1:]
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    header = rows[0]
    return {r[0]: dict(zip(header, r)) for r in rows[2:]}


def number(cell):
    return float(cell.replace("*", "").replace(",", ""))


def geo_mean(values):
    return math.exp(sum(map(math.log, values)) / len(values))


def speed_ratios(threads, direction):
    """z4ai / ZipNN MB/s of each MiniLM entry; direction 0 compress, 1 decompress."""
    t = table(f"## Throughput at threads={threads}")
    return [number(t[e]["z4ai"].split("/")[direction]) / number(t[e]["zipnn"].split("/")[direction]) for e in MINILM]


def span(values, digits, unit=""):
    return f"{min(values):.{digits}f}-{max(values):.{digits}f}{unit}"


def test_minilm_size_lead_over_zipnn():
    ratio = table("## Ratio (original / compressed)")
    smaller = [100 * (1 - number(ratio[e]["zipnn"]) / number(ratio[e]["z4ai"])) for e in MINILM]
    assert f"{span(smaller, 2)} % smaller than ZipNN's" in README


def test_minilm_speed_against_zipnn_is_the_geo_mean_per_thread_count():
    compress = [geo_mean(speed_ratios(t, 0)) for t in (1, 2)]
    decompress = [geo_mean(speed_ratios(t, 1)) for t in (1, 2)]
    text = " ".join(README.split())
    assert f"compresses {span(compress, 2, 'x')} and decompresses {span(decompress, 2, 'x')} as fast" in text


def test_tied_and_copied_weights_ratio_and_lead_over_pypi():
    ratio = table("## Ratio (original / compressed)")
    tied, copied = ratio["tied-embedding-bf16"], ratio["repeated-bf16"]
    assert number(tied["z4ai"]) > number(tied["pypi-z4ai"]) and number(copied["z4ai"]) > number(copied["pypi-z4ai"])
    text = " ".join(README.split())
    assert f"compress {number(tied['z4ai']):.1f}-{number(copied['z4ai']):.0f}x, ahead of PyPI z4ai" in text


def test_wheel_size_is_the_one_packaging_measured():
    measured = re.search(r"each wheel is ([\d.]+) MB", (ROOT / "docs" / "packaging.md").read_text()).group(1)
    assert f"Each wheel is {measured} MB" in README
