"""Sharded .zt sets (issue 10 §1): NAME.zt.index.json + NAME-0000i-of-0000N.zt
read as one source from Python and the CLI."""

import json
import subprocess

import numpy as np
import pytest
from _cli import ZT, needs_zt

import ztensor
import ztensor.numpy as ztnp


def zt(*args):
    return subprocess.run([ZT, *map(str, args)], capture_output=True, text=True, timeout=120)


def tensors():
    rng = np.random.default_rng(10)
    return {f"layer{i}.weight": rng.standard_normal((8, 16)).astype(np.float32) for i in range(5)}


def write_set_by_hand(tmp_path, src, groups, stem="model"):
    """Shards written one by one with save_file, then the index, as a user would."""
    n = len(groups)
    weight_map = {}
    for i, names in enumerate(groups, 1):
        fname = f"{stem}-{i:05d}-of-{n:05d}.zt"
        ztnp.save_file({k: src[k] for k in names}, tmp_path / fname, metadata={"origin": "test"}, checksum="sha256")
        weight_map.update({k: fname for k in names})
    index = tmp_path / f"{stem}.zt.index.json"
    total = sum(src[k].nbytes for k in src)
    index.write_text(json.dumps({"metadata": {"total_size": total}, "weight_map": weight_map}))
    return index


def test_open_index_reads_the_set_as_one_source(tmp_path):
    src = tensors()
    names = list(src)
    index = write_set_by_hand(tmp_path, src, [names[:3], names[3:]])
    with ztensor.open(index) as r:
        assert r.format == "zt_index"
        assert r.keys() == names  # shard order, then each shard's order
        assert r.attributes == {"origin": "test"}
        for k, v in src.items():
            np.testing.assert_array_equal(r.read(k), v)
        r.verify()
    loaded = ztnp.load_file(index)
    assert set(loaded) == set(src)


def test_open_index_disagreeing_with_its_shards_fails(tmp_path):
    src = tensors()
    names = list(src)
    index = write_set_by_hand(tmp_path, src, [names[:3], names[3:]])
    j = json.loads(index.read_text())
    j["weight_map"][names[0]] = "model-00002-of-00002.zt"
    index.write_text(json.dumps(j))
    with pytest.raises(ztensor.ZTensorError, match="places in 'model-00002-of-00002.zt'"):
        ztensor.open(index)


@needs_zt
def test_cli_info_ls_verify_diff_convert_on_a_zt_index(tmp_path):
    src = tensors()
    names = list(src)
    index = write_set_by_hand(tmp_path, src, [names[:2], names[2:]])

    r = zt("info", index, "--json")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["format"] == "zt_index"
    assert [s.rsplit("/", 1)[1] for s in j["shards"]] == ["model-00001-of-00002.zt", "model-00002-of-00002.zt"]
    assert list(j["objects"]) == names
    r = zt("info", index)
    assert r.returncode == 0 and "sharded zTensor" in r.stdout, r.stdout + r.stderr

    r = zt("ls", index)
    assert r.returncode == 0, r.stderr
    assert [line.split("\t", 1)[0] for line in r.stdout.splitlines()] == names

    r = zt("verify", index)
    assert r.returncode == 0, r.stderr

    one = tmp_path / "one.zt"
    r = zt("convert", index, one)
    assert r.returncode == 0, r.stderr
    r = zt("diff", index, one)
    assert r.returncode == 0, r.stdout + r.stderr

    # A corrupt blob in the second shard: verify fails naming that shard.
    shard2 = tmp_path / "model-00002-of-00002.zt"
    data = bytearray(shard2.read_bytes())
    data[64] ^= 0xFF
    shard2.write_bytes(bytes(data))
    r = zt("verify", index)
    assert r.returncode != 0
    assert "digest_mismatch" in r.stderr and "model-00002-of-00002.zt" in r.stderr, r.stderr
