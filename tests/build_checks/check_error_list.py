#!/usr/bin/env python3
"""Adding an error code is one line: proves it on a copy of include/.

Appends a row to a copy of ztensor/error_codes.def and compiles against the copy: a C program
must see the new ZT_E_* and ZT_ERROR_CODE_COUNT one higher, and a C++ program (with
src/common/status.cc) the new zt::ErrorCode, zt::kErrorCodeCount one higher and the new name
from zt::error_code_name. A row whose number leaves a gap must not compile. (Python's table comes
from the same rows through the extension: tests/python/test_errors.py.)

Usage: check_error_list.py SOURCE_DIR CC CXX. Exits 1 naming what failed.
"""
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROW = re.compile(r"^ZT_ERROR_CODE\(", re.M)

C_PROBE = """#include <stdio.h>
#include "ztensor/ztensor.h"
int main(void) { printf("%d %d\\n", (int)ZT_ERROR_CODE_COUNT, (int)ZT_E_PROBE_ADDED); return 0; }
"""
CXX_PROBE = """#include <cstdio>
#include "ztensor/status.h"
int main() {
  std::printf("%d %d %s\\n", zt::kErrorCodeCount, static_cast<int>(zt::ErrorCode::probe_added),
              zt::error_code_name(zt::ErrorCode::probe_added));
}
"""


def include_copy(root: pathlib.Path, work: pathlib.Path, number: int) -> pathlib.Path:
    include = work / f"include-{number}"
    shutil.copytree(root / "include", include)
    table = include / "ztensor" / "error_codes.def"
    table.write_text(table.read_text() + f'ZT_ERROR_CODE(probe_added, {number}, ZT_E_PROBE_ADDED, LimitError, '
                                         f'"added by check_error_list.py")\n')
    return include


def build_and_run(cmd: list, exe: pathlib.Path) -> str:
    subprocess.run(cmd + ["-o", str(exe)], check=True, capture_output=True, text=True)
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()


def main(root: pathlib.Path, cc: str, cxx: str) -> int:
    count = len(ROW.findall((root / "include" / "ztensor" / "error_codes.def").read_text()))
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        (work / "probe.c").write_text(C_PROBE)
        (work / "probe.cc").write_text(CXX_PROBE)
        include = include_copy(root, work, count)
        c_out = build_and_run([cc, "-std=c11", "-Wall", "-Werror", f"-I{include}", str(work / "probe.c")],
                              work / "probe_c")
        if c_out != [str(count + 1), str(count)]:
            errors.append(f"C: ZT_ERROR_CODE_COUNT, ZT_E_PROBE_ADDED = {c_out}, want {count + 1}, {count}")
        status_cc = str(root / "src" / "common" / "status.cc")
        cxx_cmd = [cxx, "-std=c++20", "-Wall", "-Werror", f"-I{include}", str(work / "probe.cc"), status_cc]
        cxx_out = build_and_run(cxx_cmd, work / "probe_cxx")
        if cxx_out != [str(count + 1), str(count), "probe_added"]:
            errors.append(f"C++: kErrorCodeCount, ErrorCode::probe_added, its name = {cxx_out}, "
                          f"want {count + 1}, {count}, probe_added")
        gap = include_copy(root, work, count + 1)
        compiled = subprocess.run([cxx, "-std=c++20", "-fsyntax-only", f"-I{gap}", status_cc],
                                  capture_output=True, text=True)
        if compiled.returncode == 0 or "numbered 0, 1, 2" not in compiled.stderr:
            errors.append("a row numbered past the end of the list compiled:\n" + compiled.stderr[-2000:])
    for e in errors:
        print(e)
    print(f"error list: {count} codes; a row appended reaches C and C++; {len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1]).resolve(), sys.argv[2], sys.argv[3]))
