"""The repository stands alone: no tracked file points at a folder outside it (the machine's
shared venv folder, or the sibling spec folder a clone does not have). Peer venvs live under
build/peers or $ZT_PEER_VENVS; docs/spec.md summarises the specifications."""

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Spelled in pieces so this file does not match itself.
OUTSIDE = ["/work/" + "venvs", "../" + "shared/", "/work/" + "shared"]


def test_no_tracked_file_refers_outside_the_repository():
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    hits = []
    for rel in filter(None, files.decode().split("\0")):
        path = ROOT / rel
        if not path.is_file() or path.stat().st_size > 2_000_000:
            continue
        text = path.read_bytes().decode("utf-8", errors="ignore")
        for lineno, line in enumerate(text.splitlines(), 1):
            if any(p in line for p in OUTSIDE):
                hits.append(f"{rel}:{lineno}: {line.strip()[:120]}")
    assert not hits, "references outside the repository:\n" + "\n".join(hits)
