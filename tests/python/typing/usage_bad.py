"""Wrong uses mypy must reject (tests/python/test_typing.py counts one error
per line marked `# E`), proving the package is typed rather than Any."""

import z4ai
import ztensor

src = ztensor.open("m.zt")
n: int = src.keys()  # E
src.format + 1  # E
ztensor.open("m.zt", verify="yes")  # E
z4ai.decompress(b"").no_such_attribute  # E
ztensor.safe_open("m.zt", framework="pt").get_tensor("w").no_such_method()  # E
ztensor.open("m.zt").read("w", "torch").no_such_method()  # E
