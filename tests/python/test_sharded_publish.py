"""A sharded set is one unit: writers of one NAME never mix their shards
under one index, a writer killed at any step of its publish leaves an index
naming a complete set (old or new), and the next write of NAME sweeps what
the killed writer left, without touching a live writer's staging folder.

Each writer is a `zt convert` process; the steps are reached with the
library's pause points (tests/python/_pause.py), never with timing."""

import os
import signal
import subprocess

import numpy as np
import pytest
from _cli import ZT, needs_zt
from _pause import Pause

import ztensor

st = pytest.importorskip("safetensors.numpy")
pytestmark = needs_zt

TENSORS = 6
TENSOR_BYTES = 128 * 128 * 4
THREE_SHARDS = "150000"  # two tensors a shard
SIX_SHARDS = "70000"  # one tensor a shard


def source(tmp_path, value):
    """A safetensors file whose every tensor holds `value`."""
    p = tmp_path / f"src{value}.safetensors"
    if not p.exists():
        st.save_file({f"t{i}": np.full((128, 128), value, np.float32) for i in range(TENSORS)}, str(p))
    return p


def convert_argv(tmp_path, value, shard_size):
    return [ZT, "convert", str(source(tmp_path, value)), str(tmp_path / "out" / "m.zt"), "--max-shard-size",
            shard_size]


def convert(tmp_path, value, shard_size):
    r = subprocess.run(convert_argv(tmp_path, value, shard_size), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr


def values_of_the_set(tmp_path):
    """The one value every tensor of the published set holds (asserting they agree)."""
    with ztensor.open(tmp_path / "out" / "m.zt.index.json") as r:
        assert sorted(r.keys()) == [f"t{i}" for i in range(TENSORS)]
        seen = {float(np.unique(r.read(k))[0]) for k in r.keys()}
    assert len(seen) == 1, f"a mixed set: {seen}"
    return seen.pop()


def files(tmp_path):
    return sorted(p.name for p in (tmp_path / "out").iterdir())


def shard_names(n):
    return [f"m-{i:05d}-of-{n:05d}.zt" for i in range(1, n + 1)]


def the_set(n):
    """The files of a published set of n shards, as files() lists them."""
    return sorted(["m.zt.index.json"] + shard_names(n))


def start(tmp_path, value, shard_size, point):
    pause = Pause(tmp_path, point)
    p = subprocess.Popen(convert_argv(tmp_path, value, shard_size), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env={**os.environ, **pause.env})
    return p, pause


@pytest.fixture
def out(tmp_path):
    (tmp_path / "out").mkdir()
    return tmp_path / "out"


def test_a_second_writer_waits_while_the_first_publishes(tmp_path, out):
    a, pause_a = start(tmp_path, 1, THREE_SHARDS, "set:shard-placed")
    pause_a.wait(a)  # A has renamed its first shard into place and holds the lock
    b, pause_b = start(tmp_path, 2, THREE_SHARDS, "set:lock-busy")
    pause_b.wait(b)  # B is done encoding and finds the lock taken
    pause_a.resume()
    assert a.wait(timeout=300) == 0, a.stderr.read()
    pause_b.resume()
    assert b.wait(timeout=300) == 0, b.stderr.read()
    assert values_of_the_set(tmp_path) == 2  # B published last, whole
    assert files(tmp_path) == the_set(3)


# Bounded: each round runs two writers at once, with no pause points.
CONCURRENT_ROUNDS = 8


def test_concurrent_writers_leave_one_writers_set(tmp_path, out):
    for round_ in range(CONCURRENT_ROUNDS):
        procs = [subprocess.Popen(convert_argv(tmp_path, v, THREE_SHARDS), stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE) for v in (1, 2)]
        for p in procs:
            assert p.wait(timeout=300) == 0, p.stderr.read()
        assert values_of_the_set(tmp_path) in (1, 2), round_
        assert files(tmp_path) == the_set(3), round_


@pytest.mark.parametrize("point,shards,survivor", [
    ("set:shard-placed", THREE_SHARDS, 1),  # same names as the live set: only pending shards are placed
    ("set:pending-index", THREE_SHARDS, 2),  # the new set, under pending names
    ("set:published", THREE_SHARDS, 2),
    ("set:shard-placed", SIX_SHARDS, 1),  # other names: the new shards sit beside the old set
    ("set:published", SIX_SHARDS, 2),
])
def test_a_writer_killed_during_its_publish_leaves_a_complete_set(tmp_path, out, point, shards, survivor):
    convert(tmp_path, 1, THREE_SHARDS)
    w, pause = start(tmp_path, 2, shards, point)
    pid = pause.wait(w)
    os.kill(pid, signal.SIGKILL)
    w.wait(timeout=60)
    pause.close()
    assert values_of_the_set(tmp_path) == survivor  # the index names a complete set

    convert(tmp_path, 3, THREE_SHARDS)  # the next write of the name
    assert values_of_the_set(tmp_path) == 3
    assert files(tmp_path) == the_set(3)  # no temporary, pending shard or lock left


def test_a_live_writers_staging_folder_is_left_alone_and_a_dead_ones_is_swept(tmp_path, out):
    live = ztensor._core.ShardStaging(str(out / "m.zt"))
    dead = out / ".m.zt.shards-dead01"  # a folder whose lock nobody holds, as a killed client leaves it
    dead.mkdir()
    (dead / "lock").write_bytes(b"")
    (dead / "00001.zt").write_bytes(b"x" * 1000)
    convert(tmp_path, 1, THREE_SHARDS)
    assert os.path.isdir(live.folder) and not dead.exists()
    live.close()
    assert not os.path.exists(live.folder)
    assert files(tmp_path) == the_set(3)
