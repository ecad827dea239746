"""`zt convert/compress --scheduler ADDRESS`: zt hands the job to ztensor's
Python front end, which encodes on the workers of a 2-process Dask
LocalCluster; the files are byte-identical to a local run's and the summary
is the same. Also the clear errors when Python, ztensor or Dask is missing.

The binary is found by _cli.py; the interpreter zt runs is this one
(ZT_PYTHON), so it imports the ztensor under test.
"""

import json
import os
import signal
import subprocess
import sys

import numpy as np
import pytest
from _cli import ZT, needs_zt
from _waits import DUMP_ENV, PausePoint, communicate_or_explain

import ztensor
import ztensor.numpy as ztnp

distributed = pytest.importorskip("dask.distributed")
safetensors_numpy = pytest.importorskip("safetensors.numpy")

pytestmark = needs_zt


@pytest.fixture(scope="module")
def cluster():
    # Loopback only, no dashboard; the CLI gets the scheduler's address.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, silence_logs=40) as c:
        with distributed.Client(c, timeout="60s") as client:
            yield c.scheduler_address, client


def _tasks_done(client, prefix):
    """Tasks of `prefix` (a function name) the scheduler saw finish."""
    counts = client.run_on_scheduler(
        lambda dask_scheduler: {k: dict(v.state_counts) for k, v in dask_scheduler.task_prefixes.items()})
    return sum(c.get("memory", 0) for name, c in counts.items() if name.strip("_") == prefix)


def zt(*args, env=None, python=sys.executable):
    full_env = dict(os.environ, ZT_PYTHON=python, **(env or {}))
    return subprocess.run([ZT, *map(str, args)], capture_output=True, text=True, timeout=600, env=full_env)


def _model(path):
    rng = np.random.default_rng(11)
    tensors = {f"layers.{i}.w": (rng.standard_normal((96, 40 + i)) * 0.02).astype(np.float32) for i in range(10)}
    tensors["ids"] = np.arange(5000, dtype=np.int64)
    safetensors_numpy.save_file(tensors, str(path), metadata={"origin": "cli test"})
    return tensors


def _summary(result):
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize("options", [["--compress", "zstd", "--level", "9", "--checksum", "sha256"], []])
def test_convert_byte_identical_and_same_summary(tmp_path, cluster, options):
    address, client = cluster
    src = tmp_path / "in.safetensors"
    _model(src)
    (tmp_path / "local").mkdir()
    (tmp_path / "dask").mkdir()
    before = _tasks_done(client, "encode_on_worker")
    local = _summary(zt("convert", src, tmp_path / "local" / "m.zt", *options, "--json"))
    remote = _summary(zt("convert", src, tmp_path / "dask" / "m.zt", *options, "--json", "--scheduler", address))
    assert _tasks_done(client, "encode_on_worker") - before == 11  # every object encoded on a worker
    assert (tmp_path / "dask" / "m.zt").read_bytes() == (tmp_path / "local" / "m.zt").read_bytes()
    for key in ("output", "files"):
        remote.pop(key), local.pop(key)
    assert remote == local
    assert remote["input_format"] == "safetensors" and remote["objects"] == 11


@pytest.mark.parametrize("options", [["--effort", "balanced"], ["--encoding", "zstd", "--checksum", "crc32c"]])
def test_compress_byte_identical_and_same_summary(tmp_path, cluster, options):
    address, client = cluster
    src = tmp_path / "in.safetensors"
    tensors = _model(src)
    before = _tasks_done(client, "encode_on_worker")
    local = _summary(zt("compress", src, tmp_path / "local.zt", *options, "--json"))
    remote = _summary(zt("compress", src, tmp_path / "dask.zt", *options, "--json", "--scheduler", address))
    assert _tasks_done(client, "encode_on_worker") - before == len(tensors)
    assert (tmp_path / "dask.zt").read_bytes() == (tmp_path / "local.zt").read_bytes()
    for key in ("output", "seconds"):
        remote.pop(key), local.pop(key)
    assert remote == local
    with ztensor.open(tmp_path / "dask.zt", verify=True) as r:
        for name, t in tensors.items():
            np.testing.assert_array_equal(r.read(name), t)


def test_text_summary_names_the_output(tmp_path, cluster):
    address, _ = cluster
    src = tmp_path / "in.safetensors"
    _model(src)
    r = zt("convert", src, tmp_path / "o.zt", "--compress", "zstd", "--scheduler", address)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"{src} -> {tmp_path / 'o.zt'}: 11 objects")


def test_worker_error_reaches_the_cli_with_its_code(tmp_path, cluster):
    address, _ = cluster
    src = tmp_path / "in.zt"
    _model(tmp_path / "in.safetensors")
    ztensor.convert(tmp_path / "in.safetensors", src, checksum="sha256")
    with ztensor.open(src) as r:
        info = r.object("layers.4.w").components["data"]
    blob = bytearray(src.read_bytes())
    blob[info.offset + 5] ^= 0xFF  # only a worker reading layers.4.w sees it
    src.write_bytes(bytes(blob))
    (tmp_path / "out").mkdir()
    r = zt("compress", src, tmp_path / "out" / "o.zt", "--scheduler", address)
    assert r.returncode == 1
    assert "zt: error: digest_mismatch:" in r.stderr and "layers.4.w" in r.stderr
    assert os.listdir(tmp_path / "out") == []


def test_missing_python_is_a_clear_error(tmp_path):
    _model(tmp_path / "in.safetensors")
    r = zt("convert", tmp_path / "in.safetensors", tmp_path / "o.zt", "--scheduler", "tcp://127.0.0.1:9",
           python=str(tmp_path / "no-such-python3"))
    assert r.returncode == 1
    assert "zt: error: unsupported:" in r.stderr and "pip install 'ztensor[dask]'" in r.stderr
    assert "no-such-python3" in r.stderr and "ZT_PYTHON" in r.stderr
    assert not (tmp_path / "o.zt").exists()


@pytest.mark.parametrize("module", ["dask", "ztensor"])
def test_python_without_dask_or_ztensor_is_a_clear_error(tmp_path, module):
    # A package of that name that fails to import shadows the real one.
    (tmp_path / "shadow" / module).mkdir(parents=True)
    (tmp_path / "shadow" / module / "__init__.py").write_text(f'raise ImportError("No module named {module!r}")\n')
    _model(tmp_path / "in.safetensors")
    r = zt("compress", tmp_path / "in.safetensors", tmp_path / "o.zt", "--scheduler", "tcp://127.0.0.1:9",
           env={"PYTHONPATH": str(tmp_path / "shadow")})
    assert r.returncode == 1
    assert "zt: error: unsupported:" in r.stderr and "pip install 'ztensor[dask]'" in r.stderr
    assert f"No module named '{module}'" in r.stderr
    assert not (tmp_path / "o.zt").exists()


@pytest.mark.parametrize("args", [["convert", "{src}", "{tmp}/o.npz"], ["convert", "{tmp}", "{tmp}/out"],
                                  ["compress", "{src}", "{tmp}/o.zstn"]])
def test_scheduler_needs_zt_output(tmp_path, args):
    src = tmp_path / "in.safetensors"
    _model(src)
    r = zt(*[a.format(src=src, tmp=tmp_path) for a in args], "--scheduler", "tcp://127.0.0.1:9")
    assert r.returncode == 2
    assert "--scheduler" in r.stderr
    assert sorted(os.listdir(tmp_path)) == ["in.safetensors"]


def test_help_documents_scheduler():
    for command in ("convert", "compress"):
        r = zt(command, "--help")
        assert "--scheduler ADDRESS" in r.stdout and "pip install 'ztensor[dask]'" in r.stdout


def test_sharded_convert_written_by_the_workers(tmp_path, cluster):
    address, client = cluster
    src = tmp_path / "in.safetensors"
    _model(src)
    (tmp_path / "local").mkdir()
    (tmp_path / "dask").mkdir()
    args = ("--compress", "zstd", "--max-shard-size", "50KB", "--json")
    local = _summary(zt("convert", src, tmp_path / "local" / "m.zt", *args))
    before = _tasks_done(client, "write_shard_on_worker")
    remote = _summary(zt("convert", src, tmp_path / "dask" / "m.zt", *args, "--scheduler", address))
    assert len(local["files"]) > 3  # shards + index
    assert _tasks_done(client, "write_shard_on_worker") - before == len(local["files"]) - 1
    assert [os.path.basename(f) for f in remote["files"]] == [os.path.basename(f) for f in local["files"]]
    assert sorted(os.listdir(tmp_path / "dask")) == sorted(os.listdir(tmp_path / "local"))
    for name in os.listdir(tmp_path / "local"):
        assert (tmp_path / "dask" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()


@pytest.mark.parametrize("signo,sharded,ignored_at_start", [(signal.SIGINT, False, False),
                                                            (signal.SIGTERM, True, False),
                                                            (signal.SIGINT, False, True)])
def test_signal_while_workers_encode_publishes_nothing(tmp_path, cluster, signo, sharded, ignored_at_start):
    """ignored_at_start: zt starts with SIGINT ignored, as a background job
    of a script (or a CI runner) starts it; the client must still take it."""
    address, client = cluster
    rng = np.random.default_rng(5)
    src = tmp_path / "in.safetensors"
    safetensors_numpy.save_file({f"w{i}": (rng.standard_normal(1 << 18) * 0.02).astype(np.float32)
                                 for i in range(24)}, str(src))
    (tmp_path / "out").mkdir()
    args = ["--compress", "zstd", "--max-shard-size", "2MB"] if sharded else []
    # zt's Python side stops after its first progress report (an object, or a
    # shard, done and the next ones submitted) until released: the signal
    # lands mid-job however fast the workers are.
    with PausePoint(tmp_path) as pause:
        start = ["sh", "-c", 'trap "" INT; exec "$@"', "sh"] if ignored_at_start else []
        proc = subprocess.Popen([*start, ZT, "convert" if sharded else "compress", str(src),
                                 str(tmp_path / "out" / "m.zt"), *args, "--scheduler", address],
                                env=dict(os.environ, ZT_PYTHON=sys.executable, **DUMP_ENV, **pause.env),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            pause.wait(proc)
            if sharded:
                assert any(name.startswith(".m.zt.shards-") for name in os.listdir(tmp_path / "out"))
            proc.send_signal(signo)
            _, err = communicate_or_explain(proc)
        finally:
            proc.kill()  # only if an assertion above left it running
    assert proc.returncode == 128 + signo, err
    assert "interrupted, nothing written" in err
    assert os.listdir(tmp_path / "out") == []  # no output, temporary, shard or staging folder


def test_a_signal_between_zts_check_and_its_wait_still_reaches_the_client(tmp_path, cluster):
    """zt waits on the client's channel and forwards a signal it gets meanwhile.
    The signal lands at the worst moment: zt has handled a progress line and
    checked for signals, and is about to wait again (its pause point
    "handoff:wait"), while the client is paused after that line and will
    write nothing more. A check-then-read() zt waits forever here; zt must
    still forward the signal, and the client publish nothing."""
    from _pause import Pause

    address, _ = cluster
    src = tmp_path / "in.safetensors"
    rng = np.random.default_rng(6)
    safetensors_numpy.save_file({f"w{i}": (rng.standard_normal(1 << 16) * 0.02).astype(np.float32)
                                 for i in range(8)}, str(src))
    (tmp_path / "out").mkdir()
    client_pause = Pause(tmp_path, "progress")
    zt_pause = Pause(tmp_path, "handoff:wait")
    # The client takes its own pause point: zt's environment names zt's.
    python = tmp_path / "python-pausing-at-progress"
    python.write_text("#!/bin/sh\n" + " ".join(f"{k}='{v}'" for k, v in client_pause.env.items())
                      + f" exec '{sys.executable}' \"$@\"\n")
    python.chmod(0o755)
    proc = subprocess.Popen([ZT, "compress", str(src), str(tmp_path / "out" / "m.zt"), "--scheduler", address],
                            env=dict(os.environ, ZT_PYTHON=str(python), **DUMP_ENV, **zt_pause.env),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        client_pause.wait(proc)
        assert zt_pause.wait(proc) == proc.pid
        proc.send_signal(signal.SIGINT)
        zt_pause.resume()
        _, err = communicate_or_explain(proc)
    finally:
        proc.kill()  # only if an assertion above left it running
        client_pause.resume()
    assert proc.returncode == 128 + signal.SIGINT, err
    assert "interrupted, nothing written" in err
    assert os.listdir(tmp_path / "out") == []


def test_a_killed_clients_staging_folder_is_swept_by_the_next_write(tmp_path, cluster):
    """kill -9 of the client once the workers have written every shard: the
    staging folder (with complete shards) stays, its lock released; the next
    write of the same name, local here, removes it."""
    from _pause import Pause

    address, _ = cluster
    src = tmp_path / "in.safetensors"
    _model(src)
    (tmp_path / "out").mkdir()
    pause = Pause(tmp_path, "set:staged-publish")
    proc = subprocess.Popen([ZT, "convert", str(src), str(tmp_path / "out" / "m.zt"), "--max-shard-size", "50KB",
                             "--scheduler", address], env=dict(os.environ, ZT_PYTHON=sys.executable, **pause.env),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    client_pid = pause.wait(proc)  # the Python client zt started, about to publish
    staging = [p for p in (tmp_path / "out").iterdir() if p.name.startswith(".m.zt.shards-")]
    assert len(staging) == 1 and len(list(staging[0].glob("*.zt"))) > 1
    os.kill(client_pid, signal.SIGKILL)
    proc.communicate(timeout=120)
    pause.close()
    assert proc.returncode != 0 and staging[0].exists()

    r = zt("convert", src, tmp_path / "out" / "m.zt", "--max-shard-size", "50KB")
    assert r.returncode == 0, r.stderr
    assert not staging[0].exists()
    assert not any(p.name.startswith(".") for p in (tmp_path / "out").iterdir())
