"""The repository stands alone: no tracked file points at a folder outside it (the machine's
shared venv folder, or the sibling spec folder a clone does not have), nothing in bench/ names any
absolute folder but the system's, and no code comment cites an issue of a tracker the repository
does not have. Peer venvs live under build/peers or $ZT_PEER_VENVS; docs/spec.md summarises the
specifications."""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Spelled in pieces so this file does not match itself.
OUTSIDE = ["/work/" + "venvs", "../" + "shared/", "/work/" + "shared"]
# An absolute path: "/" + a name, not preceded by anything that makes it part of a longer path, a
# URL, a closing tag or an expression ("build/x", "s3://b/k", "</sub>", "a / b", "{out}/data").
ABSOLUTE_PATH = re.compile(r"(?<![\w.:/~$}\])>\-<*])/([A-Za-z_][\w.-]*)(?:/[\w.-]+)*")
# Folders every Debian machine has, which a benchmark may name (/proc/self/status, /dev/null, ...).
SYSTEM_ROOTS = {"bin", "dev", "etc", "lib", "proc", "sbin", "sys", "tmp", "usr", "var/tmp"}
ISSUE_REFERENCE = re.compile(r"\b[Ii]ssues?[ -]#?\d+")
CODE_SUFFIXES = {".c", ".cc", ".h", ".def", ".py", ".pyi", ".sh", ".cmake", ".toml", ".txt", ".in"}


def tracked_text_files(under: str = ""):
    """(path relative to the root, text) of every tracked text file, optionally under a folder."""
    files = subprocess.run(["git", "ls-files", "-z", "--", under or "."], cwd=ROOT, capture_output=True,
                           check=True).stdout
    for rel in filter(None, files.decode().split("\0")):
        path = ROOT / rel
        if not path.is_file() or path.stat().st_size > 2_000_000:
            continue
        data = path.read_bytes()
        if b"\0" not in data:
            yield rel, data.decode("utf-8", errors="ignore")


def test_no_tracked_file_refers_outside_the_repository():
    hits = []
    for rel, text in tracked_text_files():
        for lineno, line in enumerate(text.splitlines(), 1):
            if any(p in line for p in OUTSIDE):
                hits.append(f"{rel}:{lineno}: {line.strip()[:120]}")
    assert not hits, "references outside the repository:\n" + "\n".join(hits)


def outside_folders(text: str):
    """Absolute paths of `text` outside SYSTEM_ROOTS."""
    for m in ABSOLUTE_PATH.finditer(text):
        path = m.group(0)
        if not any(path == "/" + r or path.startswith("/" + r + "/") for r in SYSTEM_ROOTS):
            yield path


def test_the_absolute_path_finder():
    assert list(outside_folders('peers = os.environ.get("ZT_PEER_VENVS", "/work/peers")')) == ["/work/peers"]
    assert list(outside_folders("--dir /big/disk --tmp /var/tmp/x")) == ["/big/disk"]
    assert not list(outside_folders('open("/proc/self/status"); "</sub>"; f"{out}/data"; a/b; s3://b/k'))


def test_bench_names_no_folder_outside_the_repository():
    """A benchmark's defaults and examples name folders of the repository (build/peers), the
    system's, or ones the user passes: never a folder of the machine it was written on."""
    hits = [f"{rel}:{lineno}: {path}" for rel, text in tracked_text_files("bench")
            for lineno, line in enumerate(text.splitlines(), 1) for path in outside_folders(line)]
    assert not hits, "bench/ names folders outside the repository:\n" + "\n".join(hits)


def test_no_code_comment_cites_an_issue_number():
    """The reason goes in the comment; a tracker's issue number means nothing in a clone."""
    hits = []
    for rel, text in tracked_text_files():
        if Path(rel).suffix not in CODE_SUFFIXES and Path(rel).name not in ("Makefile", "README.md"):
            continue
        if (rel.endswith(".md") and not rel.startswith(("bench/", "tests/"))):
            continue
        for lineno, line in enumerate(text.splitlines(), 1):
            if ISSUE_REFERENCE.search(line):
                hits.append(f"{rel}:{lineno}: {line.strip()[:120]}")
    assert not hits, "issue numbers in code comments:\n" + "\n".join(hits)
