#!/usr/bin/env python3
"""Checks the layering rule of docs/architecture.md on every #include "..." and every link.

common <- container, codec, remote <- convert <- capi <- core; the front ends (cli/,
python/) include public headers (include/) only. Public headers belong to the
layer that implements them (LAYER_OF_PUBLIC below).

Includes: none may point up or sideways. Links (the OBJECT libraries of src/*/CMakeLists.txt):
a layer's target links only layers it may include and whose headers its sources include, and
reaches through its links every layer its sources include. The compiler enforces the internal
headers' side of this too (cmake/ZtLayers.cmake); this script also covers the public headers.
Exits 1 listing every violation, 0 otherwise.
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
    "common": ["status", "error_codes", "export", "byte_source", "files", "buffers", "test_pause",
               "safetensors_header"],
    "container": ["dtype", "value", "manifest", "reader", "writer", "source", "blob_codec"],
    "convert": ["convert", "gguf", "numpy_format", "onnx_format", "pytorch_format", "z4ai_encoding",
                "sharded_writer"],
    "remote": ["remote"],
    "capi": ["ztensor"],
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
OBJECT_LIBRARY = re.compile(r"add_library\((zt_\w+)\s+OBJECT\s+([^)]*)\)")
SOURCES = re.compile(r"target_sources\((zt_\w+)\s+([^)]*)\)")
LINKS = re.compile(r"target_link_libraries\((zt_\w+)\s+([^)]*)\)")


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


def include_errors(root: pathlib.Path, files) -> list:
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
    return errors


def included_layers(root: pathlib.Path, sources) -> set:
    """Layers named by the includes of `sources` and of the layer's own headers they pull in."""
    layers, seen, todo = set(), set(), list(sources)
    while todo:
        path = todo.pop()
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        own = layer_of_file(root, path)
        for target in INCLUDE.findall(path.read_text(errors="replace")):
            dep = layer_of_header(target)
            if dep not in (None, "unlisted"):
                layers.add(dep)
            if dep == own and not target.startswith(("ztensor/", "z4ai/")):
                todo.append(root / "src" / target)
    return layers


def link_errors(root: pathlib.Path) -> list:
    targets, links = {}, {}
    cmakes = [(cmake, re.sub(r"#.*", "", cmake.read_text())) for cmake in (root / "src").rglob("CMakeLists.txt")]
    for cmake, text in cmakes:
        for name, sources in OBJECT_LIBRARY.findall(text):
            targets[name] = (layer_of_file(root, cmake), [cmake.parent / s for s in sources.split()])
    for cmake, text in cmakes:
        for name, sources in SOURCES.findall(text):  # a subfolder adding sources to its layer's target
            if name in targets:
                targets[name][1].extend(cmake.parent / s for s in sources.split()
                                        if s not in ("PRIVATE", "PUBLIC", "INTERFACE"))
        for name, deps in LINKS.findall(text):
            links.setdefault(name, set()).update(d for d in deps.split() if d.startswith("zt_"))
    errors = []
    for name, (layer, sources) in sorted(targets.items()):
        used = included_layers(root, sources) - {layer}
        reached, todo = set(), list(links.get(name, ()))
        while todo:
            dep = todo.pop()
            if dep in reached or dep not in targets:
                continue
            reached.add(dep)
            todo.extend(links.get(dep, ()))
        for dep in sorted(links.get(name, ())):
            if dep not in targets:
                continue
            dep_layer = targets[dep][0]
            if dep_layer not in ALLOWED[layer]:
                errors.append(f"{name} ({layer}) links {dep} ({dep_layer}), a layer it may not include")
            elif dep_layer != layer and dep_layer not in used:
                errors.append(f"{name} ({layer}) links {dep} ({dep_layer}) but includes nothing of it")
        for dep_layer in sorted(used - {targets[t][0] for t in reached}):
            errors.append(f"{name} ({layer}) includes headers of {dep_layer} without linking it")
    return errors


def main(root: pathlib.Path) -> int:
    files = [p for d in ("src", "include", "cli", "python") for p in (root / d).rglob("*")
             if p.suffix in (".h", ".cc", ".c", ".def")]
    errors = include_errors(root, files) + link_errors(root)
    for e in errors:
        print(e)
    print(f"layering: {len(files)} files, {len(errors)} violations")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1]).resolve()))
