"""Docs that run: every ```python and ```sh block of README.md
and docs/**/*.md runs here, in a scratch folder holding small stand-ins for
the files the examples name (model.safetensors, model.gguf, checkpoint.pt,
a Hugging Face folder, ...), with `zt` on PATH.

Python blocks of one file share one namespace in order, as a reader would
run them; a block's test runs the file's earlier blocks first. A block that
cannot run here (it needs the network, a cluster or hours) is marked in the
Markdown by the line `<!-- skip: REASON -->` right above its fence, and is
reported as skipped under its name (FILE:LINE) with that reason.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from _cli import ZT
from _util import write_gguf

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
LANGS = {"python": "python", "py": "python", "sh": "sh", "bash": "sh", "shell": "sh"}
FENCE = re.compile(r"^```(\w*)\s*$")
SKIP = re.compile(r"^<!--\s*skip:\s*(.+?)\s*-->\s*$")


class Block:
    def __init__(self, path, line, lang, code, skip):
        self.path, self.line, self.lang, self.code, self.skip = path, line, lang, code, skip

    @property
    def name(self):
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks_of(path):
    out, lines, i = [], path.read_text().splitlines(), 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, lang = i, m.group(1)
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        if lang in LANGS:
            prev = lines[start - 1] if start > 0 else ""
            s = SKIP.match(prev)
            out.append(Block(path, start + 1, LANGS[lang], "\n".join(lines[start + 1:j]), s.group(1) if s else None))
        i = j + 1
    return out


ALL = [b for p in DOCS for b in blocks_of(p)]


def make_fixtures(d: Path):
    """Small stand-ins for every file the examples name."""
    import torch
    from safetensors.numpy import save_file as st_save
    from safetensors.torch import save_file as st_save_torch

    rng = np.random.default_rng(0)
    tensors = {"model.embed_tokens.weight": (rng.standard_normal((2048, 16)) * 0.02).astype(np.float32),
               "embed_tokens.weight": (rng.standard_normal((64, 16)) * 0.02).astype(np.float32),
               "lm_head.weight": (rng.standard_normal((64, 16)) * 0.02).astype(np.float32)}
    st_save(tensors, str(d / "model.safetensors"), metadata={"format": "pt"})
    import ztensor

    ztensor.convert(d / "model.safetensors", d / "model.zt")
    st_save(tensors, str(d / "base.safetensors"))
    ft = {k: v + np.float32(0.001) if k == "lm_head.weight" else v for k, v in tensors.items()}
    st_save(ft, str(d / "finetuned.safetensors"))
    # a sharded safetensors set and a Hugging Face folder
    names = sorted(tensors)
    shards = {"model-00001-of-00002.safetensors": names[:1], "model-00002-of-00002.safetensors": names[1:]}
    weight_map = {}
    for shard, keys in shards.items():
        st_save({k: tensors[k] for k in keys}, str(d / shard))
        weight_map.update({k: shard for k in keys})
    import json

    index = {"metadata": {"total_size": sum(t.nbytes for t in tensors.values())}, "weight_map": weight_map}
    (d / "model.safetensors.index.json").write_text(json.dumps(index))
    hf = d / "Qwen2-7B"
    hf.mkdir()
    st_save_torch({k: torch.from_numpy(v) for k, v in tensors.items()}, str(hf / "model.safetensors"))
    (hf / "config.json").write_text(json.dumps({"model_type": "qwen2", "hidden_size": 16}))
    torch.save({k: torch.from_numpy(v) for k, v in tensors.items()}, d / "checkpoint.pt")
    write_gguf(d / "model.gguf", tensors)


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory):
    d = tmp_path_factory.mktemp("docs-fixtures")
    make_fixtures(d)
    return d


def _workdir(fixtures, tmp_path):
    work = tmp_path / "work"
    shutil.copytree(fixtures, work)
    return work


def _run_python(blocks, work):
    env = dict(os.environ)
    code = "\n".join(f"# --- {b.name}\n{b.code}" for b in blocks)
    script = work / "_doc_blocks.py"
    script.write_text(code)
    return subprocess.run([sys.executable, str(script)], cwd=work, capture_output=True, text=True, env=env,
                          timeout=600)


# Marked blocks are left out by name (and listed by test_every_skip_names_a_reason),
# not pytest skips: under make test (ZT_NO_SKIPS=1) a skip is a failure.
RUNNABLE = [b for b in ALL if not b.skip]


@pytest.mark.parametrize("block", RUNNABLE, ids=lambda b: b.name)
def test_doc_block_runs(block, fixtures, tmp_path):
    work = _workdir(fixtures, tmp_path)
    if block.lang == "python":
        earlier = [b for b in ALL if b.path == block.path and b.lang == "python" and b.line < block.line
                   and not b.skip]
        r = _run_python(earlier + [block], work)
    else:
        assert ZT, "zt binary not found: build it or set ZT_CLI"
        env = dict(os.environ, PATH=f"{Path(ZT).parent}{os.pathsep}{os.environ['PATH']}")
        r = subprocess.run(["bash", "-euo", "pipefail", "-c", block.code], cwd=work, capture_output=True, text=True,
                           env=env, timeout=600)
    assert r.returncode == 0, f"{block.name} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"


def test_every_skip_names_a_reason():
    for b in ALL:
        if b.skip is not None:
            assert len(b.skip) > 5, f"{b.name}: a skip marker needs a reason"
            print(f"not run: {b.name}: {b.skip}")


def test_blocks_were_found():
    assert sum(b.path.name == "README.md" for b in ALL) >= 5
