"""Sharded .zt sets: NAME.zt.index.json + NAME-0000i-of-0000N.zt
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


# --- writing shards ---------------------------------------------------------
# tensors(): five f32 [8, 16] arrays of 512 bytes each.


def shard_names(tmp_path, stem="model"):
    return sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(stem))


def test_numpy_save_file_max_shard_size(tmp_path):
    src = tensors()
    # 1100 bytes: two 512-byte tensors per shard -> [0 1] [2 3] [4]
    ztnp.save_file(src, tmp_path / "model.zt", max_shard_size=1100)
    assert shard_names(tmp_path) == ["model-00001-of-00003.zt", "model-00002-of-00003.zt",
                                     "model-00003-of-00003.zt", "model.zt.index.json"]
    index = json.loads((tmp_path / "model.zt.index.json").read_text())
    assert index["metadata"]["total_size"] == 5 * 512
    assert index["weight_map"]["layer1.weight"] == "model-00001-of-00003.zt"
    assert index["weight_map"]["layer2.weight"] == "model-00002-of-00003.zt"
    assert index["weight_map"]["layer4.weight"] == "model-00003-of-00003.zt"
    with ztensor.open(tmp_path / "model-00002-of-00003.zt") as r:  # each shard a complete .zt file
        assert r.format == "zt" and r.keys() == ["layer2.weight", "layer3.weight"]
    loaded = ztnp.load_file(tmp_path / "model.zt.index.json")
    assert list(loaded) == list(src)
    for k, v in src.items():
        np.testing.assert_array_equal(loaded[k], v)


def test_string_sizes_and_one_file_when_it_fits(tmp_path):
    src = tensors()
    ztnp.save_file(src, tmp_path / "model.zt", max_shard_size="1KB")  # 1000 bytes: one tensor a shard
    assert len(shard_names(tmp_path)) == 6
    ztnp.save_file(src, tmp_path / "big.zt", max_shard_size="1MiB")
    assert shard_names(tmp_path, "big") == ["big.zt"]  # no index, as transformers
    with pytest.raises(ztensor.ZTensorError, match="5QB"):
        ztnp.save_file(src, tmp_path / "bad.zt", max_shard_size="5QB")
    with pytest.raises(TypeError):
        ztnp.save_file(src, tmp_path / "bad.zt", max_shard_size=1.5)
    assert shard_names(tmp_path, "bad") == []


def test_failed_save_publishes_no_shard(tmp_path):
    src = tensors()
    src["bad"] = object()  # fails after two shards are already written
    with pytest.raises(Exception):
        ztnp.save_file(src, tmp_path / "model.zt", max_shard_size=600)
    assert list(tmp_path.iterdir()) == []


def test_torch_save_file_and_save_model(tmp_path):
    torch = pytest.importorskip("torch")
    import ztensor.torch as zttorch

    model = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.Linear(16, 4))
    zttorch.save_model(model, tmp_path / "m.zt", max_shard_size=1024)  # weights 1024 + 256 bytes, biases 64, 16
    assert shard_names(tmp_path, "m") == ["m-00001-of-00002.zt", "m-00002-of-00002.zt", "m.zt.index.json"]
    fresh = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.Linear(16, 4))
    missing, unexpected = zttorch.load_model(fresh, tmp_path / "m.zt.index.json")
    assert (missing, unexpected) == ([], [])
    for a, b in zip(model.state_dict().values(), fresh.state_dict().values()):
        assert torch.equal(a, b)

    tensors_ = {"a": torch.zeros(256), "b": torch.ones(256)}
    zttorch.save_file(tensors_, tmp_path / "t.zt", max_shard_size="1KiB")
    assert shard_names(tmp_path, "t") == ["t-00001-of-00002.zt", "t-00002-of-00002.zt", "t.zt.index.json"]
    loaded = zttorch.load_file(tmp_path / "t.zt.index.json")
    assert torch.equal(loaded["b"], tensors_["b"])


def test_convert_max_shard_size(tmp_path):
    src = tensors()
    ztnp.save_file(src, tmp_path / "in.zt")
    stats = ztensor.convert(tmp_path / "in.zt", tmp_path / "out.zt", compression="zstd", max_shard_size=1100)
    assert [f.rsplit("/", 1)[1] for f in stats.files] == ["out-00001-of-00003.zt", "out-00002-of-00003.zt",
                                                          "out-00003-of-00003.zt", "out.zt.index.json"]
    with ztensor.open(tmp_path / "out.zt.index.json") as r:
        assert r.keys() == list(src)
        np.testing.assert_array_equal(r.read("layer3.weight"), src["layer3.weight"])
    with pytest.raises(ztensor.ZTensorError, match="max_shard_size"):
        ztensor.convert(tmp_path / "in.zt", tmp_path / "out.safetensors", max_shard_size=1100)


@needs_zt
def test_cli_convert_max_shard_size(tmp_path):
    src = tensors()
    ztnp.save_file(src, tmp_path / "in.zt")
    r = zt("convert", tmp_path / "in.zt", tmp_path / "out.zt", "--max-shard-size", "1KB", "--json")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert len(j["files"]) == 6 and j["files"][-1].endswith("out.zt.index.json")
    assert j["output_bytes"] == sum((tmp_path / f.rsplit("/", 1)[1]).stat().st_size for f in j["files"])
    # Re-sharding under the same name with fewer shards drops the stale ones.
    r = zt("convert", tmp_path / "out.zt.index.json", tmp_path / "out.zt", "--max-shard-size", "2KiB")
    assert r.returncode == 0, r.stderr
    assert shard_names(tmp_path, "out") == ["out-00001-of-00002.zt", "out-00002-of-00002.zt", "out.zt.index.json"]
    r = zt("convert", tmp_path / "in.zt", tmp_path / "x.zt", "--max-shard-size", "5 parsecs")
    assert r.returncode == 2 and "--max-shard-size" in r.stderr
    r = zt("convert", tmp_path / "in.zt", tmp_path / "x.safetensors", "--max-shard-size", "1KB")
    assert r.returncode == 2


# --- Hugging Face model folders ---------------------------------------------


def hf_folder(tmp_path, sharded=True):
    """A model folder as transformers saves it: shards + index, config and
    tokenizer files, a sentence-transformers style subfolder."""
    st = pytest.importorskip("safetensors.numpy")
    src = tensors()
    names = list(src)
    d = tmp_path / "hf"
    d.mkdir()
    if sharded:
        groups = {"model-00001-of-00002.safetensors": names[:3], "model-00002-of-00002.safetensors": names[3:]}
        weight_map = {}
        for fname, keys in groups.items():
            st.save_file({k: src[k] for k in keys}, str(d / fname), metadata={"format": "pt"})
            weight_map.update({k: fname for k in keys})
        (d / "model.safetensors.index.json").write_text(
            json.dumps({"metadata": {"total_size": 5 * 512}, "weight_map": weight_map}))
    else:
        st.save_file(src, str(d / "model.safetensors"))
    (d / "config.json").write_text('{"model_type": "toy", "hidden_size": 16}\n')
    (d / "tokenizer.json").write_bytes(b'{"version": "1.0", "bytes": "\xc3\xa9"}')
    (d / "1_Pooling").mkdir()
    (d / "1_Pooling" / "config.json").write_text('{"pooling_mode_mean_tokens": true}')
    return d, src


def relative_files(d):
    return sorted(str(p.relative_to(d)) for p in d.rglob("*") if p.is_file())


@needs_zt
def test_cli_convert_hf_folder_keeps_the_shard_count_and_copies_the_rest(tmp_path):
    d, src = hf_folder(tmp_path)
    out = tmp_path / "out"
    r = zt("convert", d, out, "--compress", "zstd", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["objects"] == 5
    assert relative_files(out) == ["1_Pooling/config.json", "config.json", "model-00001-of-00002.zt",
                                   "model-00002-of-00002.zt", "model.zt.index.json", "tokenizer.json"]
    for f in ("config.json", "tokenizer.json", "1_Pooling/config.json"):
        assert (out / f).read_bytes() == (d / f).read_bytes()
    index = json.loads((out / "model.zt.index.json").read_text())
    assert index["weight_map"]["layer2.weight"] == "model-00001-of-00002.zt"
    assert index["weight_map"]["layer3.weight"] == "model-00002-of-00002.zt"
    with ztensor.open(out / "model.zt.index.json") as zr:
        for k, v in src.items():
            np.testing.assert_array_equal(zr.read(k), v)
        assert zr.object("layer0.weight").components["data"].encoding == "zstd"

    out2 = tmp_path / "out2"
    r = zt("convert", d, out2, "--max-shard-size", "600")
    assert r.returncode == 0, r.stderr
    assert len([f for f in relative_files(out2) if f.endswith(".zt")]) == 5


@needs_zt
def test_cli_convert_hf_folder_single_file(tmp_path):
    d, src = hf_folder(tmp_path, sharded=False)
    out = tmp_path / "out"
    r = zt("convert", d, out)
    assert r.returncode == 0, r.stderr
    assert relative_files(out) == ["1_Pooling/config.json", "config.json", "model.zt", "tokenizer.json"]
    assert set(ztnp.load_file(out / "model.zt")) == set(src)
    (d / "extra.safetensors").write_bytes((d / "model.safetensors").read_bytes())
    r = zt("convert", d, tmp_path / "out3")
    assert r.returncode == 1 and "no index" in r.stderr, r.stderr


def test_writer_files_and_save_bytes_refuses_shards(tmp_path):
    src = tensors()
    with ztensor.Writer(tmp_path / "w.zt", max_shard_size="1KB") as w:
        for k, v in src.items():
            w.add(k, v)
    assert [f.rsplit("/", 1)[1] for f in w.files][-1] == "w.zt.index.json"
    assert len(w.files) == 6
    with pytest.raises(TypeError, match="max_shard_size"):
        ztnp.save(src, max_shard_size="1KB")


@needs_zt
def test_cli_convert_hf_folder_into_a_subfolder_of_itself(tmp_path):
    d, src = hf_folder(tmp_path)
    r = zt("convert", d, d / "zt")
    assert r.returncode == 0, r.stderr
    assert relative_files(d / "zt") == ["1_Pooling/config.json", "config.json", "model-00001-of-00002.zt",
                                        "model-00002-of-00002.zt", "model.zt.index.json", "tokenizer.json"]


def test_file_size_of_an_index_is_the_sum_of_its_shards(tmp_path):
    ztnp.save_file(tensors(), tmp_path / "model.zt", max_shard_size=1100)
    shards = [p for p in tmp_path.iterdir() if p.name.endswith(".zt")]
    with ztensor.open(tmp_path / "model.zt.index.json") as r:
        assert r.file_size == sum(p.stat().st_size for p in shards) > 0
    with ztensor.open(shards[0]) as r:
        assert r.file_size == shards[0].stat().st_size


def test_single_file_over_a_sharded_set_removes_the_stale_set_and_back(tmp_path):
    src = tensors()
    ztnp.save_file(src, tmp_path / "model.zt", max_shard_size=1100)
    assert len(shard_names(tmp_path)) == 4
    # One file now: the old index would still open the old values.
    ztnp.save_file({k: v + 1 for k, v in src.items()}, tmp_path / "model.zt")
    assert shard_names(tmp_path) == ["model.zt"]
    # And back: a set over the single file takes its place.
    ztnp.save_file(src, tmp_path / "model.zt", max_shard_size=1100)
    assert "model.zt" not in shard_names(tmp_path) and len(shard_names(tmp_path)) == 4
    loaded = ztnp.load_file(tmp_path / "model.zt.index.json")
    for k, v in src.items():
        np.testing.assert_array_equal(loaded[k], v)
