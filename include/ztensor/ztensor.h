/* zTensor C API: read and write .zt files from C or any FFI.
 *
 * Every function that can fail returns an int error code: ZT_OK (0) on
 * success, otherwise one of ZT_E_* (the same numbers as zt::ErrorCode in
 * C++ and the `.code` of Python's ZTensorError). After a failure,
 * zt_last_error() returns a message naming the object, the component and
 * the rule; it is per thread and valid until the next call on that thread.
 * No function lets a C++ exception escape: running out of memory returns
 * ZT_E_LIMIT_EXCEEDED, a bug of ours ZT_E_INTERNAL. A NULL handle or
 * out-pointer returns ZT_E_INVALID_ARGUMENT (the getters return 0 or NULL
 * and set zt_last_error()); the out-pointers of zt_reader_open,
 * zt_writer_create, zt_remote_options_create, zt_reader_open_url and
 * zt_reader_read are set to NULL/0 on failure.
 *
 * Lifetimes. A zt_reader lives from a successful zt_reader_open until
 * zt_reader_close; the strings and arrays it hands out (version, names,
 * zt_object_info, zt_component_info) die with it. A reader may be used from
 * many threads at once, but zt_reader_close must not run while another call
 * on it is in progress, and no call may take the reader after its close:
 * closing twice, or using a closed reader, is the caller's bug and cannot be
 * detected. A zt_buffer, the keepalive of zt_reader_read, owns the bytes it
 * returned and outlives its reader: its data stays valid until
 * zt_buffer_free, before or after zt_reader_close. A zt_writer lives from
 * zt_writer_create until zt_writer_free and is used from one thread at a
 * time; after zt_writer_finish (success or failure) only zt_writer_free may
 * follow (add and finish return ZT_E_INVALID_ARGUMENT). zt_reader_close,
 * zt_buffer_free, zt_writer_free and zt_remote_options_free accept NULL and
 * do nothing. */
#ifndef ZTENSOR_H_
#define ZTENSOR_H_

#include <stddef.h>
#include <stdint.h>

#include "ztensor/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The error codes: ZT_OK (0), then ZT_E_IO (1), ZT_E_BAD_MAGIC, ... up to
 * ZT_E_INTERNAL (a bug in zTensor, not in the input). Their names, numbers
 * and meanings are listed once, in ztensor/error_codes.def. */
enum {
#define ZT_ERROR_CODE(name, number, c_name, python_class, meaning) c_name = number,
#include "ztensor/error_codes.def"
#undef ZT_ERROR_CODE
  ZT_ERROR_CODE_COUNT /* one past the last code */
};

typedef struct zt_reader zt_reader;
typedef struct zt_writer zt_writer;
typedef struct zt_buffer zt_buffer; /* keeps decoded bytes alive */

/* Message of the last failure on this thread ("" if none). */
ZT_API const char* zt_last_error(void);
/* errno of the system call behind the last failure on this thread (ENOENT,
 * EACCES, ...), or 0 when it did not come from one. */
ZT_API int zt_last_errno(void);
/* Stable name of a code, e.g. "digest_mismatch". */
ZT_API const char* zt_error_name(int code);

/* ---- reading ---------------------------------------------------------- */

/* Opens and validates a .zt file (v1.2, v1.1 or v0.1), by path or by
 * http://, https:// or s3:// URL (read lazily with range requests; every
 * digest present is then checked), a URL with the options of the
 * environment (ZT_HTTP_*, AWS_*) and the defaults (docs/remote.md).
 * verify_on_read != 0 also checks raw components' digests when they are read
 * (compressed components are checked whenever they are decoded). */
ZT_API int zt_reader_open(const char* path, int verify_on_read, zt_reader** out);

/* Options for reading URLs, set by name from text: "connect_timeout",
 * "stall_timeout", "open_deadline", "read_deadline" (seconds, e.g. "2.5"),
 * "max_attempts", "redirects" ("none", "same-origin", "public", "any"),
 * "allow_unvalidated", and for s3:// "key", "secret", "token", "region",
 * "endpoint_url", "profile", "anon" (docs/remote.md gives each default).
 * An option left unset takes its environment variable, then its default.
 * zt_remote_options_set returns ZT_E_INVALID_ARGUMENT for an unknown key or
 * a value the key cannot take (the options are then unchanged). */
typedef struct zt_remote_options zt_remote_options;
ZT_API int zt_remote_options_create(zt_remote_options** out);
ZT_API int zt_remote_options_set(zt_remote_options* options, const char* key, const char* value);
ZT_API void zt_remote_options_free(zt_remote_options* options);
/* zt_reader_open for an http://, https:// or s3:// URL with `options` (NULL:
 * none), which also apply to the shards of a sharded index. A path that is
 * not such a URL is ZT_E_INVALID_ARGUMENT. */
ZT_API int zt_reader_open_url(const char* url, const zt_remote_options* options, int verify_on_read, zt_reader** out);
ZT_API void zt_reader_close(zt_reader* reader);
/* Manifest version string, e.g. "1.2.0". */
ZT_API const char* zt_reader_version(const zt_reader* reader);
ZT_API size_t zt_reader_count(const zt_reader* reader);
/* Name of the i-th object in file order; NULL (ZT_E_NOT_FOUND) when out of
 * range. */
ZT_API const char* zt_reader_name(const zt_reader* reader, size_t index);

typedef struct {
  const char* format;     /* "dense", "sparse_csr", ... */
  size_t ndim;
  const uint64_t* shape;  /* ndim entries, owned by the reader */
  size_t num_components;
} zt_object_info;

typedef struct {
  const char* role;
  const char* dtype;      /* storage dtype, e.g. "f32" */
  const char* type;       /* logical type or "" */
  const char* encoding;   /* "raw", "zstd", ... */
  const char* digest;     /* "" when absent */
  uint64_t offset;
  uint64_t length;        /* bytes on disk */
  uint64_t uncompressed_length; /* 0 when absent */
} zt_component_info;

ZT_API int zt_reader_object(const zt_reader* reader, const char* name, zt_object_info* out);
/* The index-th component of an object (0 <= index < num_components). */
ZT_API int zt_reader_component(const zt_reader* reader, const char* name, size_t index, zt_component_info* out);
/* Decoded little-endian storage bytes of a component. Raw data is a
 * zero-copy view of the mapping. *keepalive must be released with
 * zt_buffer_free once *data is no longer used (it may outlive the reader). */
ZT_API int zt_reader_read(const zt_reader* reader, const char* name, const char* role, const void** data,
                          uint64_t* length, zt_buffer** keepalive);
ZT_API void zt_buffer_free(zt_buffer* buffer);
/* Checks every digest and decodes every encoded component. */
ZT_API int zt_reader_verify(const zt_reader* reader);

/* ---- writing ---------------------------------------------------------- */

/* Starts a file; nothing appears at `path` until zt_writer_finish. */
ZT_API int zt_writer_create(const char* path, zt_writer** out);

typedef struct {
  const char* role;      /* "data", "values", ... */
  const char* dtype;     /* storage dtype name */
  const char* type;      /* logical type name or NULL */
  const void* data;
  uint64_t length;       /* bytes */
} zt_component_input;

/* Adds one object. encoding: "raw", "zstd" or "z4ai"; level: 0 for the
 * encoding's default (zstd's 3, the z4ai codec's own), else a zstd level
 * (-7..22; 1..22 for z4ai); digest: NULL, "sha256" or "crc32c". */
ZT_API int zt_writer_add(zt_writer* writer, const char* name, const char* format, const uint64_t* shape,
                         size_t ndim, const zt_component_input* components, size_t num_components,
                         const char* encoding, int level, const char* digest);
/* Writes manifest and footer and publishes the file atomically. The handle
 * must still be released with zt_writer_free. */
ZT_API int zt_writer_finish(zt_writer* writer);
/* Frees the handle; an unfinished file is discarded. */
ZT_API void zt_writer_free(zt_writer* writer);

#ifdef __cplusplus
}
#endif

#endif /* ZTENSOR_H_ */
