"""Writes manifest.json: for every case in cases.py, the SHA-256 and length of
the frame PyPI z4ai 0.2.0's `z4ai.chunked.compress` makes, and of its input.
Run with that package's interpreter (it shares our module name):

    $ZT_PEER_VENVS/bench-z4ai/bin/python tests/golden/z4ai-0.2.0-chunked/make_digests.py

With --tiny it prints {name: frame SHA-256} for cases.tiny_tensors() instead
(test_chunked_identical.py runs that in the peer's venv).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import z4ai  # noqa: E402
import z4ai.chunked  # noqa: E402
from cases import cases, tiny_tensors  # noqa: E402


def main() -> None:
    if sys.argv[1:] == ["--tiny"]:
        digests = {name: hashlib.sha256(z4ai.chunked.compress(data, dtype=dtype)).hexdigest()
                   for name, (data, dtype) in tiny_tensors().items()}
        json.dump(digests, sys.stdout)
        return
    out = {"generator": f"z4ai {z4ai.__version__} z4ai.chunked.compress", "cases": {}}
    for name, (data, kwargs) in cases().items():
        frame = z4ai.chunked.compress(data, **kwargs)
        assert z4ai.chunked.decompress(frame) == data
        out["cases"][name] = {"input_sha256": hashlib.sha256(data).hexdigest(), "input_bytes": len(data),
                              "frame_sha256": hashlib.sha256(frame).hexdigest(), "frame_bytes": len(frame)}
    with open(os.path.join(HERE, "manifest.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
