"""Wrong uses mypy must reject (tests/python/test_typing.py counts one error
per line marked `# E`), proving the package is typed rather than Any."""

import ztensor

src = ztensor.open("m.zt")
n: int = src.keys()  # E
src.format + 1  # E
ztensor.open("m.zt", verify="yes")  # E
