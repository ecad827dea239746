"""Native core of the z4ai codec (see the z4ai package)."""

from z4ai._errors import Z4aiError as Z4aiError


def compress(data: object, dtype: str = '', level: int = -1, threads: int = 0, auto_select: bool = True, effort: str = '') -> bytes: ...

def peek(blob: object) -> tuple[str, str, int]:
    """(kind, dtype, original_length) of any z4ai frame."""

def decompress(blob: object, threads: int = 0, max_output: int = 1099511627776) -> bytes: ...

def decompress_into(blob: object, out: object, threads: int = 0) -> int:
    """
    Decode into the first original_length bytes of `out`; returns that length.
    """

def is_z4ai_frame(arg: object, /) -> bool: ...

def dtype_width(arg: str, /) -> int: ...

def chunked_compress(data: object, width: int = 1, level: int = 1, threads: int = 0, chunk_size: int = 2097152) -> bytes: ...

def chunked_decompress(blob: object, threads: int = 0, max_output: int = 1099511627776) -> bytes: ...

def compress_delta(current: object, reference: object, dtype: str = '', level: int = -1, threads: int = 0, auto_select: bool = True, effort: str = '') -> bytes: ...

def decompress_delta(blob: object, reference: object, threads: int = 0, max_output: int = 1099511627776) -> bytes: ...

def model_delta_compress(target: object, base: object, level: int = -1, threads: int = 0) -> bytes: ...

def model_delta_decompress(blob: object, base: object, threads: int = 0, max_output: int = 1099511627776) -> bytes: ...

def is_model_delta(blob: object) -> bool: ...

def zstn_compress(safetensors: object, level: int = -1, threads: int = 0, workers: int = 0, effort: str = '') -> bytes: ...

def zstn_decompress(blob: object, workers: int = 0) -> bytes: ...

def zstn_compress_file(in_path: str, out_path: str, level: int = -1, threads: int = 0, workers: int = 0, effort: str = '') -> tuple[int, int]:
    """
    Streams a safetensors file to a ZSTN file in bounded memory; returns (input_bytes, output_bytes).
    """

def zstn_decompress_file(in_path: str, out_path: str, workers: int = 0) -> tuple[int, int]:
    """
    Streams a ZSTN file back to its safetensors file in bounded memory; returns (input_bytes, output_bytes).
    """

def zstn_parse_prefix(head: object) -> tuple[bool, int, int, int, int]:
    """
    (contiguous, header_offset, header_len, data_len, body_offset) of a ZSTN container.
    """

def zstn_prefix_length(head: object) -> int:
    """Bytes of a ZSTN container's prefix, from its first 14 bytes."""

def zstn_parse_footer(footer: object, size: int, body_offset: int) -> tuple[int, int]:
    """
    (index_offset, index_len) from the last 20 bytes of a contiguous ZSTN container of `size` bytes.
    """

def safetensors_header(header: object, data_len: int, require_tiling: bool) -> tuple:
    """
    The library's safetensors parser over a JSON header: ([(name, dtype, shape, begin, end)] in data order, [(key, value)] of __metadata__).
    """

def zstn_parse_index(index: object, data_len: int, frames_begin: int, frames_end: int) -> list[tuple[bytes, int, int, int, int, int, int]]:
    """
    Validated index entries: (name bytes, begin, end, kind 0=FRAME/1=REF, frame_offset, frame_len, ref_index).
    """
