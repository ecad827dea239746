#!/usr/bin/env python3
"""Checks that libztensor.so exports its documented interface and nothing else.

Every dynamic symbol the library defines must be a C function declared in
include/ztensor/ztensor.h, or a C++ name in namespace zt or z4ai whose every
identifier appears in the public headers (include/). Standard-library template
instantiations over public types are allowed. Every C function the header
declares must be exported. Exits 1 listing what is wrong.
"""
import pathlib
import re
import subprocess
import sys

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
SPECIAL = re.compile(r"^(vtable|typeinfo|typeinfo name|VTT|construction vtable|non-virtual thunk|"
                     r"virtual thunk|guard variable) for ")


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
    name = SPECIAL.sub("", demangled)
    name = re.sub(r"\[abi:[a-z0-9]+\]", "", name)
    name = strip_templates(name.split("(")[0] if "(" in name else name).strip()
    # A template function's demangled name starts with its return type.
    return name.split(" ")[-1] if " " in name and "operator" not in name else name


def main(lib: pathlib.Path, include: pathlib.Path) -> int:
    headers = "\n".join(p.read_text() for p in include.rglob("*.h"))
    public_words = set(IDENT.findall(headers))
    c_api = set(re.findall(r"\b(zt_[a-z0-9_]+)\s*\(", (include / "ztensor" / "ztensor.h").read_text()))
    nm = subprocess.run(["nm", "-D", "--defined-only", "-C", str(lib)], check=True,
                        capture_output=True, text=True).stdout
    exported, errors, cxx = set(), [], 0
    for line in nm.splitlines():
        parts = line.split(" ", 2)
        if len(parts) < 3:
            continue
        sym = parts[2]
        name = qualified_name(sym)
        if name.startswith(("std::", "__gnu_cxx::", "__cxxabiv1::")) or name in ("_init", "_fini"):
            continue
        if name.startswith("zt_"):
            exported.add(name)
            if name not in c_api:
                errors.append(f"C symbol not in ztensor.h: {sym}")
            continue
        cxx += 1
        words = IDENT.findall(name)
        if not words or words[0] not in ("zt", "z4ai"):
            errors.append(f"exported outside zt/z4ai: {sym}")
            continue
        hidden = [w for w in words if w not in public_words and not w.startswith("operator")]
        if hidden:
            errors.append(f"not declared in include/: {sym} ({', '.join(hidden)})")
    for fn in sorted(c_api - exported):
        errors.append(f"C API function not exported: {fn}")
    for e in errors:
        print(e)
    print(f"exports: {len(exported)} C functions of {len(c_api)} declared, {cxx} C++ symbols; "
          f"{len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])))
