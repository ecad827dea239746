#!/usr/bin/env python3
"""Checks that libztensor.so exports what docs/architecture.md ("ABI") promises, and nothing else.

The promise: every C function of include/ztensor/ztensor.h, and the C++ entry points of
CXX_ENTRY_POINTS below. Each is marked ZT_API where it is declared in include/, and the marks must
be exactly these. Any other dynamic symbol the library defines (a template's static, a class of
the C++ API, a `detail` function, a copy of a dependency) is a stray export and fails the check.
Exits 1 listing what is wrong.
"""
import pathlib
import re
import subprocess
import sys

# The C++ entry points of libztensor.so (docs/architecture.md, "ABI"): the error model a caller
# of them needs, and the buffer codec, which has no C API.
CXX_ENTRY_POINTS = {
    "zt::error_code_name",
    "zt::ok_status",
    "zt::Status::Status",
    "zt::Status::to_string",
    "z4ai::compress",
    "z4ai::decompress",
    "z4ai::decompress_into",
    "z4ai::peek",
}
# What a shared object defines whatever it exports.
LINKER_SYMBOLS = {"_init", "_fini"}
MARKED = re.compile(r"^[ \t]*ZT_API\b[^;(\n]*?(~?\w+)\s*\(", re.M)


def strip_templates(name: str) -> str:
    out, depth = [], 0
    for ch in name:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def qualified_name(demangled: str) -> str:
    """"zt::Status::to_string" from "zt::Status::to_string[abi:cxx11]() const"."""
    name = re.sub(r"\[abi:[a-z0-9]+\]", "", demangled)
    name = strip_templates(name.split("(")[0]).strip()
    # A template function's demangled name starts with its return type.
    return name.split(" ")[-1] if " " in name and "operator" not in name else name


def marked_declarations(include: pathlib.Path) -> set:
    """Names of the declarations marked ZT_API in the public headers."""
    names = set()
    for header in include.rglob("*"):
        if header.suffix in (".h", ".def") and header.name != "export.h":
            names.update(MARKED.findall(header.read_text()))
    return names


def main(lib: pathlib.Path, include: pathlib.Path) -> int:
    c_api = set(re.findall(r"\b(zt_[a-z0-9_]+)\s*\(", (include / "ztensor" / "ztensor.h").read_text()))
    promised = c_api | CXX_ENTRY_POINTS
    errors = []
    marks = marked_declarations(include)
    want_marks = c_api | {name.split("::")[-1] for name in CXX_ENTRY_POINTS}
    for name in sorted(marks - want_marks):
        errors.append(f"ZT_API on {name} in include/, which the ABI does not promise (CXX_ENTRY_POINTS)")
    for name in sorted(want_marks - marks):
        errors.append(f"{name} is promised but its declaration in include/ is not marked ZT_API")

    nm = subprocess.run(["nm", "-D", "--defined-only", "-C", str(lib)], check=True,
                        capture_output=True, text=True).stdout
    exported = set()
    for line in nm.splitlines():
        parts = line.split(" ", 2)
        if len(parts) < 3:
            continue
        name = qualified_name(parts[2])
        if name in LINKER_SYMBOLS:
            continue
        if name in promised:
            exported.add(name)
        else:
            errors.append(f"stray export: {parts[2]}")
    for name in sorted(promised - exported):
        errors.append(f"promised but not exported: {name}")
    for e in errors:
        print(e)
    print(f"exports: {len(exported & c_api)} of {len(c_api)} C functions, "
          f"{len(exported & CXX_ENTRY_POINTS)} of {len(CXX_ENTRY_POINTS)} C++ entry points; {len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])))
