"""effort="balanced"/"max" (ZARA frames): round trips for every float dtype
and thread count, never larger than the default frame, and on seeded
checkpoint-like weights never larger than PyPI z4ai 0.2.0's effort="max"
(the peer venv of test_pypi_z4ai_frames.py; ZT_NO_SKIPS=1 creates it)."""
import json
import subprocess

import numpy as np
import pytest

import z4ai
from test_pypi_z4ai_frames import _clean_env, peer_python  # noqa: F401  (fixture)

# Tensors of different scale back to back, like a checkpoint: the same code
# runs in the peer's interpreter, so both codecs see identical bytes.
SEEDED = '''
import numpy as np
def seeded(dtype, seed, n=300_000):
    rng = np.random.default_rng(seed)
    parts, left = [], n
    while left > 0:
        k = min(left, int(rng.integers(20_000, 150_000)))
        parts.append(rng.standard_normal(k).astype(np.float32) * np.float32(2.0 ** -rng.integers(2, 9)))
        left -= k
    x = np.concatenate(parts)
    if dtype == "fp32":
        return x.tobytes()
    if dtype == "fp16":
        return x.astype(np.float16).tobytes()
    return (x.view(np.uint32) >> 16).astype(np.uint16).tobytes()
'''
CASES = [(dt, seed) for dt in ("fp32", "bf16", "fp16") for seed in (1, 2)]
namespace: dict = {}
exec(SEEDED, namespace)
seeded = namespace["seeded"]


@pytest.mark.parametrize("effort", ["balanced", "max"])
@pytest.mark.parametrize("dtype", ["fp32", "bf16", "fp16"])
def test_round_trip_every_thread_count(effort, dtype):
    data = seeded(dtype, 5)[:-3]  # an odd tail
    frames = [z4ai.compress(data, dtype=dtype, effort=effort, threads=t) for t in (1, 2)]
    assert frames[0] == frames[1] and frames[0][:4] == b"ZARA"
    for t in (1, 2):
        assert z4ai.decompress(frames[0], threads=t) == data


@pytest.mark.parametrize("dtype,seed", CASES)
def test_max_le_balanced_le_default(dtype, seed):
    data = seeded(dtype, seed)
    default, balanced, best = (len(z4ai.compress(data, dtype=dtype, effort=e)) for e in (None, "balanced", "max"))
    assert best <= balanced <= default


def test_max_not_larger_than_pypi_max(peer_python):  # noqa: F811
    code = SEEDED + f'''
import json, z4ai
print(json.dumps([len(z4ai.compress(seeded(d, s), dtype=d, effort="max")) for d, s in {CASES!r}]))
'''
    out = subprocess.run([str(peer_python), "-I", "-c", code], capture_output=True, text=True, env=_clean_env())
    assert out.returncode == 0, out.stderr[-2000:]
    theirs = json.loads(out.stdout)
    ours = [len(z4ai.compress(seeded(d, s), dtype=d, effort="max")) for d, s in CASES]
    larger = [(c, o, t) for c, o, t in zip(CASES, ours, theirs) if o > t]
    assert not larger, larger
