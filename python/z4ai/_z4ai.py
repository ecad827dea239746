"""The codec's native bindings. They are compiled into ztensor's extension module, as its submodule
``ztensor._core._z4ai``, so a process that imports both packages holds one copy of the C++ core
(docs/architecture.md); _z4ai.pyi types them."""

from ztensor._core._z4ai import *  # noqa: F401,F403  (every binding; none starts with "_")

from ._errors import Z4aiError  # noqa: F401  (the base of the codec's errors, as the bindings raise them)
