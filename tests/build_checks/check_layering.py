#!/usr/bin/env python3
"""Checks the layering rule of docs/architecture.md on every #include "...".

common <- container, codec, remote <- convert <- capi <- core; the front ends (cli/,
python/) include public headers (include/) only. Public headers belong to the
layer that implements them (LAYER_OF_PUBLIC below). Exits 1 listing every
include that points up or sideways, 0 otherwise.
"""
import pathlib
import re
import sys

# Which layers each layer may include (itself included).
ALLOWED = {
    "common": {"common"},
    "container": {"common", "container"},
    "codec": {"common", "codec"},
    "remote": {"common", "remote"},
    "convert": {"common", "container", "codec", "remote", "convert"},
    "capi": {"common", "container", "codec", "remote", "convert", "capi"},
    "core": {"common", "container", "codec", "remote", "convert", "capi", "core"},
}
LAYER_OF_PUBLIC = {
    "common": ["status", "export", "atomic_file", "mapped_file", "shape_text", "checked_math",
               "page_advice", "byte_source"],
    "container": ["dtype", "value", "manifest", "reader", "writer", "source", "blob_codec"],
    "convert": ["convert", "gguf", "numpy_format", "onnx_format", "pytorch_format", "z4ai_encoding",
                "sharded_writer"],
    "remote": ["remote"],
    "capi": ["ztensor"],
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of_header(name: str):
    """Layer of an included path such as "ztensor/reader.h" or "codec/x.h"."""
    top, _, rest = name.partition("/")
    if top == "z4ai":
        return "codec"
    if top == "ztensor":
        stem = pathlib.PurePath(rest).stem
        for layer, stems in LAYER_OF_PUBLIC.items():
            if stem in stems:
                return layer
        return "unlisted"
    if top in ALLOWED:
        return top
    return None  # a header beside the including file, or a third-party one


def layer_of_file(root: pathlib.Path, path: pathlib.Path):
    rel = path.relative_to(root)
    if rel.parts[0] == "src":
        return rel.parts[1]
    if rel.parts[0] == "include":
        return layer_of_header("/".join(rel.parts[1:]))
    return "frontend"  # cli/, python/


def main(root: pathlib.Path) -> int:
    files = [p for d in ("src", "include", "cli", "python") for p in (root / d).rglob("*")
             if p.suffix in (".h", ".cc", ".c")]
    errors = []
    for path in files:
        layer = layer_of_file(root, path)
        for target in INCLUDE.findall(path.read_text(errors="replace")):
            dep = layer_of_header(target)
            if dep is None:
                continue
            if dep == "unlisted":
                errors.append(f"{path.relative_to(root)}: public header {target} has no layer in check_layering.py")
            elif layer == "frontend":
                if not target.startswith(("ztensor/", "z4ai/")):
                    errors.append(f"{path.relative_to(root)}: a front end includes internal {target}")
            elif dep not in ALLOWED.get(layer, set()):
                errors.append(f"{path.relative_to(root)} ({layer}) includes {target} ({dep})")
    for e in errors:
        print(e)
    print(f"layering: {len(files)} files, {len(errors)} violations")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1]).resolve()))
