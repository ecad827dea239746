"""`zt` in a terminal: progress lines fit the terminal's width,
show percentage, rate and ETA when the total is known (.zstn compress too),
stay off when output is not a terminal; the summary's ratio is of the sizes
it prints; effort names are fast|balanced|max with `default` as an alias.

Runs zt under a pseudo-terminal of a set size (COLUMNS=80 too).
ZT_PROGRESS_DELAY_MS=0 makes small inputs draw a bar.
"""

import fcntl
import json
import os
import re
import select
import signal
import struct
import subprocess
import termios

import numpy as np
import pytest

from _cli import ZT, needs_zt
from _waits import EVENT_SECONDS, PausePoint

pytestmark = needs_zt
safetensors_numpy = pytest.importorskip("safetensors.numpy")


def run_in_pty(args, columns=80, env_extra=None):
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    env = dict(os.environ, COLUMNS=str(columns), ZT_PROGRESS_DELAY_MS="0", **(env_extra or {}))
    p = subprocess.Popen([ZT, *args], stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
    os.close(slave)
    chunks = []
    try:
        while (data := read_terminal(master)) is not None:
            chunks.append(data)
    except BaseException:
        p.kill()
        raise
    finally:
        os.close(master)
    assert p.wait(timeout=EVENT_SECONDS) == 0, b"".join(chunks).decode(errors="replace")
    return b"".join(chunks).decode(errors="replace")


def read_terminal(master):
    """The next output on the terminal, or None once zt has closed it;
    fails if it writes nothing for EVENT_SECONDS."""
    ready, _, _ = select.select([master], [], [], EVENT_SECONDS)
    assert ready, f"zt wrote nothing to its terminal for {EVENT_SECONDS} s"
    try:
        return os.read(master, 65536) or None
    except OSError:  # EIO: the child closed the terminal
        return None


def screen_lines(text):
    """What each redraw put on the line: split at \\r and \\n, erase codes removed."""
    return [s.replace("\x1b[K", "") for s in re.split(r"[\r\n]", text) if s.replace("\x1b[K", "")]


def finished_lines(text):
    """screen_lines of the redraws that are complete: the last one may still
    be arriving."""
    return screen_lines(text[:max(text.rfind("\r"), text.rfind("\n")) + 1])


def make_model(path, tensors=64, rows=512):
    rng = np.random.default_rng(0)
    data = {f"layer{i:03d}.weight": (rng.standard_normal((rows, 256)) * 0.02).astype(np.float32)
            for i in range(tensors)}
    safetensors_numpy.save_file(data, str(path))


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = tmp_path_factory.mktemp("term") / "m.safetensors"
    make_model(path)
    return path


# percentage, sizes, rate and ETA, with or without the bar
BAR = re.compile(r"\d+%\s+\S+ \S+ / \S+ \S+\s+\S+ \S+/s\s+ETA \S+")


@pytest.mark.parametrize("columns", [80, 64])
def test_convert_progress_fits_the_terminal_with_percent_rate_eta(tmp_path, model, columns):
    out = run_in_pty(["convert", str(model), str(tmp_path / "m.zt")], columns=columns)
    lines = screen_lines(out)
    assert any(BAR.search(s) for s in lines), lines
    too_wide = [s for s in lines if s.startswith("converting") and len(s) > columns - 1]
    assert not too_wide, too_wide


def test_narrow_terminal_sheds_fields_instead_of_wrapping(tmp_path, model):
    out = run_in_pty(["convert", str(model), str(tmp_path / "m.zt")], columns=40)
    lines = screen_lines(out)
    assert any(re.search(r"\d+%", s) for s in lines), lines
    bars = [s for s in lines if s.startswith("converting")]
    assert bars and all(len(s) <= 39 for s in bars), bars


def test_zstn_compress_shows_percent_and_eta(tmp_path, model):
    out = run_in_pty(["compress", str(model), str(tmp_path / "m.zstn"), "--effort", "max", "--threads", "1"])
    lines = screen_lines(out)
    bars = [s for s in lines if s.startswith("compressing")]
    assert any(re.search(r"\d+%", s) for s in bars), lines  # not the moving marker
    assert not any("<=>" in s for s in bars), bars
    assert all(len(s) <= 79 for s in bars), bars


@pytest.mark.parametrize("cmd,label", [("decompress", "decompressing"), ("verify", "verifying")])
def test_zstn_decompress_and_verify_show_percent(tmp_path, model, cmd, label):
    zstn = tmp_path / "m.zstn"
    subprocess.run([ZT, "compress", str(model), str(zstn)], check=True, capture_output=True, timeout=600)
    args = [cmd, str(zstn)] + ([str(tmp_path / "back.safetensors")] if cmd == "decompress" else [])
    bars = [s for s in screen_lines(run_in_pty(args)) if s.startswith(label)]
    assert any(re.search(r"\d+%", s) for s in bars), bars
    assert not any("<=>" in s for s in bars) and all(len(s) <= 79 for s in bars), bars


def test_no_progress_when_not_a_terminal(tmp_path, model):
    env = dict(os.environ, ZT_PROGRESS_DELAY_MS="0")
    r = subprocess.run([ZT, "convert", str(model), str(tmp_path / "m.zt")], capture_output=True, text=True, env=env,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    assert "\r" not in r.stderr and "%" not in r.stderr


def test_no_progress_when_stdout_is_piped(tmp_path, model):
    # stderr a terminal, stdout a pipe (zt ... | tee): no bar either
    master, slave = os.openpty()
    env = dict(os.environ, ZT_PROGRESS_DELAY_MS="0")
    r = subprocess.run([ZT, "convert", str(model), str(tmp_path / "m.zt")], stdout=subprocess.PIPE, stderr=slave,
                       env=env, timeout=600)
    os.close(slave)
    os.set_blocking(master, False)
    try:
        err = os.read(master, 65536).decode(errors="replace")
    except OSError:  # nothing was written (EAGAIN), or the terminal is gone (EIO)
        err = ""
    os.close(master)
    assert r.returncode == 0
    assert "%" not in err


@pytest.mark.parametrize("out_name", ["m.zt", "m.zstn"])
def test_summary_ratio_is_of_the_printed_sizes(tmp_path, model, out_name):
    r = subprocess.run([ZT, "compress", str(model), str(tmp_path / out_name), "--json"], capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["input_bytes"] == os.path.getsize(model)
    assert j["output_bytes"] == os.path.getsize(tmp_path / out_name)
    assert j["ratio"] == pytest.approx(j["input_bytes"] / j["output_bytes"])
    r = subprocess.run([ZT, "decompress", str(tmp_path / out_name), str(tmp_path / "back.safetensors"), "--json"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["ratio"] == pytest.approx(j["output_bytes"] / j["input_bytes"])


@pytest.mark.parametrize("given,reported", [("fast", "fast"), ("default", "fast"), ("balanced", "balanced"),
                                            ("max", "max")])
def test_effort_names_and_default_alias(tmp_path, model, given, reported):
    r = subprocess.run([ZT, "compress", str(model), str(tmp_path / "m.zstn"), "--effort", given, "--json"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["effort"] == reported


def test_effort_help_and_error_name_fast_balanced_max(tmp_path, model):
    h = subprocess.run([ZT, "compress", "--help"], capture_output=True, text=True).stdout
    assert "--effort fast|balanced|max" in h and "default|balanced" not in h
    r = subprocess.run([ZT, "compress", str(model), str(tmp_path / "m.zstn"), "--effort", "fastest"],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "fast, balanced or max" in r.stderr


def test_bar_redraws_to_the_new_width_after_sigwinch(tmp_path):
    src = tmp_path / "model.safetensors"
    make_model(src, tensors=32)
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    # zt stops after its first tensor until released, its main thread still
    # redrawing the bar: the resize lands mid-job however fast the machine.
    # Stages: wide (100 columns), resized (SIGWINCH sent, zt still paused),
    # released (zt has drawn at 40 columns and goes on).
    text = {"wide": "", "resized": "", "released": ""}
    stage = "wide"
    with PausePoint(tmp_path) as pause:
        env = dict(os.environ, COLUMNS="100", ZT_PROGRESS_DELAY_MS="0", **pause.env)
        p = subprocess.Popen([ZT, "compress", str(src), str(tmp_path / "m.zstn"), "--threads", "1"],
                             stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
        os.close(slave)  # so that reading the master ends (EIO) when zt exits
        try:
            while (data := read_terminal(master)) is not None:
                text[stage] += data.decode(errors="replace")
                if stage == "wide" and "%" in text["wide"] and pause.reached():
                    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 40, 0, 0))
                    p.send_signal(signal.SIGWINCH)
                    stage = "resized"
                elif stage == "resized" and any(len(s) <= 39 for s in finished_lines(text["resized"])
                                                if s.startswith("compressing")):
                    pause.release()
                    stage = "released"
        except BaseException:
            p.kill()
            raise
        finally:
            os.close(master)
    assert p.wait(timeout=EVENT_SECONDS) == 0
    assert stage == "released", text
    assert any(len(s) > 40 for s in screen_lines(text["wide"]) if s.startswith("compressing")), text["wide"]
    # Lines drawn before zt saw the signal may still arrive; from the first
    # line at the new width on, every line fits it.
    later = [s for s in screen_lines(text["resized"] + text["released"]) if s.startswith("compressing")]
    first = next(i for i, s in enumerate(later) if len(s) <= 39)
    assert all(len(s) <= 39 for s in later[first:]), later
