"""zTensor C++ core (container reader/writer, other formats, conversion)."""

from collections.abc import Callable, Mapping, Sequence
from typing import Annotated

import numpy
from numpy.typing import NDArray


def error_code_name(arg: int, /) -> str:
    """Stable name of a numeric zt::ErrorCode."""

ERROR_CODES: tuple = ...

class Reader:
    @staticmethod
    def open(path: str, verify_on_read: bool = False) -> Reader:
        """
        Map and validate a .zt file, or open any other supported format (detected by content).
        """

    @staticmethod
    def from_bytes(data: bytes, verify_on_read: bool = False) -> Reader: ...

    @staticmethod
    def open_url(url: str, options: Mapping[str, str], verify_on_read: bool = False) -> Reader:
        """
        Open an http(s):// or s3:// URL with remote options (name -> text, see docs/remote.md).
        """

    @staticmethod
    def open_with_opener(url: str, opener: Callable, verify_on_read: bool = False) -> Reader: ...

    @staticmethod
    def open_callback(name: str, size: int, read: Callable, verify_on_read: bool = False) -> Reader: ...

    @property
    def version(self) -> str: ...

    @property
    def file_size(self) -> int: ...

    @property
    def format(self) -> str: ...

    def torch_mapping(self) -> object:
        """
        The whole local .zt file as a torch uint8 tensor over the reader's one private mapping of the inode it validated (writes stay in this process), or None for a source that is not a mapped .zt file.
        """

    @property
    def closed(self) -> bool: ...

    def attributes(self) -> object: ...

    def names(self) -> object: ...

    def __len__(self) -> int: ...

    def has(self, arg: str, /) -> bool: ...

    def index(self) -> list: ...

    def partition(self) -> tuple: ...

    def object_info(self, name: str) -> tuple: ...

    def read_component(self, name: str, role: str) -> object: ...

    def read_dense(self, names: Sequence[str], threads: int = 0) -> tuple: ...

    def read_dense_one(self, name: str) -> object: ...

    def dequantize(self, name: str) -> object: ...

    def verify(self) -> None: ...

    def verify_object(self, arg: str, /) -> None: ...

    def close(self) -> None: ...

class Writer:
    def __init__(self, path: str, attributes: object | None = None, durable: bool = True, max_shard_size: int = 0) -> None: ...

    def add(self, name: str, shape: Sequence[int], format: str, attributes: object | None, components: Sequence[tuple[str, str, str, Annotated[NDArray[numpy.uint8], dict(shape=(None,), order='C', device='cpu', writable=False)], str, int, str]]) -> None: ...

    def add_dense(self, name: str, shape: Sequence[int], dtype: str, type: str, data: object, encoding: str, level: int, digest: str, attributes: object | None) -> None: ...

    def finish(self) -> list[str]: ...

    def abort(self) -> None: ...

    @property
    def closed(self) -> bool: ...

    @property
    def object_count(self) -> int: ...

def convert(src: object, dst: str, out_format: str, encoding: str, level: int, effort: int, digest: str, durable: bool, progress: object | None, max_shard_size: int = 0, encoded: object | None = None, objects: Sequence[int] = []) -> tuple:
    """
    Convert any readable file (a path or URL, or an open Reader) to .zt, safetensors or .npz (see ztensor.convert).
    """

def convert_folder(src: str, dst: str, encoding: str, level: int, effort: int, digest: str, durable: bool, progress: object | None, max_shard_size: int = 0) -> tuple:
    """Convert a Hugging Face model folder (see ztensor.convert)."""

def test_pause(point: str) -> None:
    """
    Test-only: pause at `point` when ZT_TEST_PAUSE_AT names it (ztensor/test_pause.h).
    """

def parse_byte_size(text: str) -> int:
    """
    Bytes in a shard size: an integer, or with a unit as Hugging Face accepts ('5GB', '2GiB').
    """

def encode_object(src: object, name: str, encoding: str, level: int, effort: int, threads: int = 0) -> list:
    """
    Encode one object's components of a source (a path or URL, or an open Reader) as convert would (for Dask workers).
    """

def plan_shards(src: object, max_shard_size: int) -> tuple:
    """
    The shards a sharded convert of src (a path or URL, or an open Reader) makes: objects per shard, bytes per shard, source format.
    """

def publish_staged_shards(path: str, staged: Sequence[str], shard_objects: Sequence[Sequence[str]], total_size: int, durable: bool) -> list[str]:
    """
    Publish complete shard files written elsewhere as a sharded .zt set (see zt::publish_staged_shards).
    """

class ShardStaging:
    """
    A locked staging folder beside a sharded .zt output (see zt::ShardStaging).
    """

    def __init__(self, path: str) -> None: ...

    @property
    def folder(self) -> str: ...

    def close(self) -> None:
        """Remove the folder and what it holds, and release its lock."""

class TensorSlice:
    def __init__(self, reader: Reader, name: str, torch: bool) -> None:
        """
        A lazy index of one dense object of `reader` (numpy views, or torch tensors when `torch`).
        """

    def __getitem__(self, key: object | None) -> object: ...

    @property
    def name(self) -> str: ...

    @property
    def shape(self) -> tuple: ...

    @property
    def storage(self) -> str: ...

    @property
    def logical(self) -> str | None: ...

    @property
    def torch(self) -> bool: ...
