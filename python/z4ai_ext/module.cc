// The codec's thin bindings, the submodule ztensor._core._z4ai (z4ai/_z4ai.py
// re-exports it); argument policy (defaults, dtype inference, NumPy) lives in
// the pure-Python package python/z4ai.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstring>

#include "buffer.h"
#include "bytes_frame.h"
#include "ztensor/safetensors_header.h"
#include "z4ai/chunked.h"
#include "z4ai/codec.h"
#include "z4ai/delta.h"
#include "z4ai/model_delta.h"
#include "z4ai/zstn.h"

namespace nb = nanobind;
using z4ai_py::Buffer;
using z4ai_py::BytesFrame;
using z4ai_py::check;

namespace {

nb::bytes to_bytes(const std::vector<uint8_t>& v) { return nb::bytes(reinterpret_cast<const char*>(v.data()), v.size()); }

z4ai::CompressOptions options(const std::string& dtype, int level, unsigned threads, bool auto_select,
                              const std::string& effort) {
  z4ai::CompressOptions o;
  o.dtype = dtype;
  o.level = level;
  o.threads = threads;
  o.auto_select = auto_select;
  auto e = z4ai::parse_effort(effort);
  check(e.status());
  o.effort = e.value();
  return o;
}

// Allocates a bytes object of `n` bytes, uninitialised (the decoder writes
// every byte, chunk by chunk), and lets `fill` write into it with the GIL
// released: decoding lands in the result with no extra copy. `n` has been
// checked against the frame's bytes; here it meets the caller's max_output,
// and a size the machine cannot hold is limit_exceeded, not MemoryError.
template <class Fill>
nb::object decode_to_bytes(const char* what, uint64_t n, uint64_t max_output, Fill&& fill) {
  check(z4ai::check_max_output(what, n, max_output));
  PyObject* raw = n > uint64_t(PY_SSIZE_T_MAX) ? nullptr : PyBytes_FromStringAndSize(nullptr, Py_ssize_t(n));
  if (!raw) {
    PyErr_Clear();
    z4ai_py::raise({zt::ErrorCode::limit_exceeded, std::string(what) + ": cannot allocate the " + std::to_string(n) +
                                                       " decoded bytes it declares (max_output=" +
                                                       std::to_string(max_output) + ")"});
  }
  nb::object obj = nb::steal(raw);
  std::span<uint8_t> out(reinterpret_cast<uint8_t*>(PyBytes_AS_STRING(raw)), size_t(n));
  zt::Status s;
  {
    nb::gil_scoped_release release;
    s = fill(out);
  }
  check(s);
  return obj;
}

// The encoding twin of decode_to_bytes: a bytes object of the encoder's
// bound `n`, uninitialised (a large one is a fresh mapping, paged in only
// where the encoder writes), filled with the GIL released, then shrunk in
// place to the length `fill` returns: the frame is never copied.
template <class Fill>
nb::object encode_to_bytes(const char* what, uint64_t n, Fill&& fill) {
  PyObject* raw = n > uint64_t(PY_SSIZE_T_MAX) ? nullptr : PyBytes_FromStringAndSize(nullptr, Py_ssize_t(n));
  if (!raw) {
    PyErr_Clear();
    z4ai_py::raise({zt::ErrorCode::limit_exceeded,
                    std::string(what) + ": cannot allocate the " + std::to_string(n) + " bytes its output may need"});
  }
  nb::object obj = nb::steal(raw);  // freed if `fill` fails or throws
  zt::Result<size_t> r = size_t{0};
  {
    nb::gil_scoped_release release;
    r = fill(std::span<uint8_t>(reinterpret_cast<uint8_t*>(PyBytes_AS_STRING(raw)), size_t(n)));
  }
  check(r.status());
  raw = obj.release().ptr();  // _PyBytes_Resize needs the only reference
  if (_PyBytes_Resize(&raw, Py_ssize_t(r.value())) != 0) throw nb::python_error();  // it freed raw
  return nb::steal(raw);
}

z4ai::zstn::Options zstn_options(int level, unsigned threads, unsigned workers, const std::string& effort) {
  const z4ai::CompressOptions c = options("", level, threads, true, effort);
  return z4ai::zstn::Options{c.level, c.threads, workers, c.effort};
}

const char* kind_name(z4ai::FrameKind k) {
  switch (k) {
    case z4ai::FrameKind::z4ai: return "Z4AI";
    case z4ai::FrameKind::zara: return "ZARA";
    case z4ai::FrameKind::chunked: return "Z4AIMF01";
    case z4ai::FrameKind::delta: return "Z4XD";
  }
  return "?";
}

}  // namespace

void z4ai_py::init_module(nb::module_& m) {
  z4ai_py::init_errors();

  m.def(
      "compress",
      [](nb::handle data, const std::string& dtype, int level, unsigned threads, bool auto_select,
         const std::string& effort) {
        Buffer in(data.ptr(), false);
        auto o = options(dtype, level, threads, auto_select, effort);
        // The frame is written straight into the bytes object returned.
        BytesFrame frame;
        zt::Status s;
        {
          nb::gil_scoped_release release;
          s = z4ai::compress_to(in.bytes(), o, frame);
        }
        check(s);
        return frame.take();
      },
      nb::arg("data"), nb::arg("dtype") = "", nb::arg("level") = -1, nb::arg("threads") = 0,
      nb::arg("auto_select") = true, nb::arg("effort") = "");

  m.def(
      "peek",
      [](nb::handle blob) {
        Buffer in(blob.ptr(), false);
        auto r = z4ai::peek(in.bytes());
        check(r.status());
        return std::make_tuple(std::string(kind_name(r->kind)), std::string(z4ai::dtype_name(r->dtype)),
                               r->original_length);
      },
      nb::arg("blob"), "(kind, dtype, original_length) of any z4ai frame.");

  m.def(
      "decompress",
      [](nb::handle blob, unsigned threads, uint64_t max_output) {
        Buffer in(blob.ptr(), false);
        auto info = z4ai::peek(in.bytes());
        check(info.status());
        if (info->kind == z4ai::FrameKind::chunked || info->kind == z4ai::FrameKind::delta)
          z4ai_py::raise({zt::ErrorCode::invalid_argument,
                          "z4ai.decompress: this is a chunked or delta frame; use z4ai.chunked / decompress_delta"});
        return decode_to_bytes("z4ai.decompress", info->original_length, max_output,
                               [&](std::span<uint8_t> out) { return z4ai::decompress_into(in.bytes(), out, threads); });
      },
      nb::arg("blob"), nb::arg("threads") = 0, nb::arg("max_output") = z4ai::kNoOutputLimit);

  m.def(
      "decompress_into",
      [](nb::handle blob, nb::handle out, unsigned threads) {
        Buffer in(blob.ptr(), false);
        Buffer dst(out.ptr(), true);
        auto info = z4ai::peek(in.bytes());
        check(info.status());
        if (dst.writable().size() < info->original_length)
          z4ai_py::raise({zt::ErrorCode::length_mismatch,
                          "z4ai.decompress: out buffer too small: " + std::to_string(dst.writable().size()) + " < " +
                              std::to_string(info->original_length)});
        zt::Status s;
        {
          nb::gil_scoped_release release;
          s = z4ai::decompress_into(in.bytes(), dst.writable().first(size_t(info->original_length)), threads);
        }
        check(s);
        return info->original_length;
      },
      nb::arg("blob"), nb::arg("out"), nb::arg("threads") = 0,
      "Decode into the first original_length bytes of `out`; returns that length.");

  m.def("is_z4ai_frame", [](nb::handle blob) {
    Buffer in(blob.ptr(), false);
    return z4ai::is_z4ai_frame(in.bytes());
  });

  m.def("dtype_width", [](const std::string& name) {
    auto r = z4ai::dtype_width(name);
    check(r.status());
    return r.value();
  });

  m.def(
      "chunked_compress",
      [](nb::handle data, uint32_t width, int level, unsigned threads, uint64_t chunk_size) {
        Buffer in(data.ptr(), false);
        z4ai::chunked::Options o{width, level, threads, chunk_size};
        auto bound = z4ai::chunked::compressed_bound(in.bytes().size(), o);
        check(bound.status());
        return encode_to_bytes("z4ai.chunked.compress", bound.value(), [&](std::span<uint8_t> out) {
          return z4ai::chunked::compress_into(in.bytes(), o, out);
        });
      },
      nb::arg("data"), nb::arg("width") = 1, nb::arg("level") = z4ai::chunked::kDefaultLevel,
      nb::arg("threads") = 0, nb::arg("chunk_size") = z4ai::chunked::kDefaultChunkSize);

  m.def(
      "chunked_decompress",
      [](nb::handle blob, unsigned threads, uint64_t max_output) {
        Buffer in(blob.ptr(), false);
        zt::Result<uint64_t> n = uint64_t{0};
        {
          nb::gil_scoped_release release;
          n = z4ai::chunked::decoded_length(in.bytes());  // checks every plane against its bytes
        }
        check(n.status());
        return decode_to_bytes("z4ai.chunked.decompress", n.value(), max_output, [&](std::span<uint8_t> out) {
          return z4ai::chunked::decompress_into(in.bytes(), out, threads);
        });
      },
      nb::arg("blob"), nb::arg("threads") = 0, nb::arg("max_output") = z4ai::kNoOutputLimit);

  m.def(
      "compress_delta",
      [](nb::handle current, nb::handle reference, const std::string& dtype, int level, unsigned threads,
         bool auto_select, const std::string& effort) {
        Buffer cur(current.ptr(), false), ref(reference.ptr(), false);
        auto o = options(dtype, level, threads, auto_select, effort);
        zt::Result<std::vector<uint8_t>> r = std::vector<uint8_t>{};
        {
          nb::gil_scoped_release release;
          r = z4ai::compress_delta(cur.bytes(), ref.bytes(), o);
        }
        check(r.status());
        return to_bytes(r.value());
      },
      nb::arg("current"), nb::arg("reference"), nb::arg("dtype") = "", nb::arg("level") = -1,
      nb::arg("threads") = 0, nb::arg("auto_select") = true, nb::arg("effort") = "");

  m.def(
      "decompress_delta",
      [](nb::handle blob, nb::handle reference, unsigned threads, uint64_t max_output) {
        Buffer in(blob.ptr(), false), ref(reference.ptr(), false);
        auto info = z4ai::peek(in.bytes());
        check(info.status());
        if (info->kind != z4ai::FrameKind::delta)
          z4ai_py::raise({zt::ErrorCode::bad_magic, "z4ai.decompress_delta: not a delta frame (magic 'Z4XD')"});
        return decode_to_bytes("z4ai.decompress_delta", info->original_length, max_output, [&](std::span<uint8_t> out) {
          return z4ai::decompress_delta_into(in.bytes(), ref.bytes(), out, threads);
        });
      },
      nb::arg("blob"), nb::arg("reference"), nb::arg("threads") = 0, nb::arg("max_output") = z4ai::kNoOutputLimit);

  m.def(
      "model_delta_compress",
      [](nb::handle target, nb::handle base, int level, unsigned threads) {
        Buffer t(target.ptr(), false), b(base.ptr(), false);
        z4ai::ModelDeltaOptions o;
        o.level = level;
        o.threads = threads;
        zt::Result<std::vector<uint8_t>> r = std::vector<uint8_t>{};
        {
          nb::gil_scoped_release release;
          r = z4ai::compress_model_delta(t.bytes(), b.bytes(), o);
        }
        check(r.status());
        return to_bytes(r.value());
      },
      nb::arg("target"), nb::arg("base"), nb::arg("level") = -1, nb::arg("threads") = 0);

  m.def(
      "model_delta_decompress",
      [](nb::handle blob, nb::handle base, unsigned threads, uint64_t max_output) {
        Buffer in(blob.ptr(), false), b(base.ptr(), false);
        zt::Result<z4ai::ModelDeltaInfo> info = z4ai::ModelDeltaInfo{};
        {
          nb::gil_scoped_release release;
          info = z4ai::peek_model_delta(in.bytes());
        }
        check(info.status());
        return decode_to_bytes("z4ai.model_delta.decompress", info->target_length, max_output,
                               [&](std::span<uint8_t> out) {
                                 return z4ai::decompress_model_delta_into(in.bytes(), b.bytes(), out, threads);
                               });
      },
      nb::arg("blob"), nb::arg("base"), nb::arg("threads") = 0, nb::arg("max_output") = z4ai::kNoOutputLimit);

  m.def(
      "is_model_delta", [](nb::handle blob) { return z4ai::is_model_delta(Buffer(blob.ptr(), false).bytes()); },
      nb::arg("blob"));

  m.def(
      "zstn_compress",
      [](nb::handle safetensors, int level, unsigned threads, unsigned workers, const std::string& effort) {
        Buffer in(safetensors.ptr(), false);
        const auto o = zstn_options(level, threads, workers, effort);
        zt::Result<std::vector<uint8_t>> r = std::vector<uint8_t>{};
        {
          nb::gil_scoped_release release;
          r = z4ai::zstn::compress(in.bytes(), o);
        }
        check(r.status());
        return to_bytes(r.value());
      },
      nb::arg("safetensors"), nb::arg("level") = -1, nb::arg("threads") = 0, nb::arg("workers") = 0,
      nb::arg("effort") = "");

  m.def(
      "zstn_decompress",
      [](nb::handle blob, unsigned workers) {
        Buffer in(blob.ptr(), false);
        zt::Result<std::vector<uint8_t>> r = std::vector<uint8_t>{};
        {
          nb::gil_scoped_release release;
          r = z4ai::zstn::decompress(in.bytes(), workers);
        }
        check(r.status());
        return to_bytes(r.value());
      },
      nb::arg("blob"), nb::arg("workers") = 0);

  m.def(
      "zstn_compress_file",
      [](const std::string& in_path, const std::string& out_path, int level, unsigned threads, unsigned workers,
         const std::string& effort) {
        const auto o = zstn_options(level, threads, workers, effort);
        zt::Result<z4ai::zstn::FileStats> r = z4ai::zstn::FileStats{};
        {
          nb::gil_scoped_release release;
          r = z4ai::zstn::compress_file(in_path, out_path, o);
        }
        check(r.status());
        return std::make_tuple(r->input_bytes, r->output_bytes);
      },
      nb::arg("in_path"), nb::arg("out_path"), nb::arg("level") = -1, nb::arg("threads") = 0,
      nb::arg("workers") = 0, nb::arg("effort") = "",
      "Streams a safetensors file to a ZSTN file in bounded memory; returns (input_bytes, output_bytes).");

  m.def(
      "zstn_decompress_file",
      [](const std::string& in_path, const std::string& out_path, unsigned workers) {
        zt::Result<z4ai::zstn::FileStats> r = z4ai::zstn::FileStats{};
        {
          nb::gil_scoped_release release;
          r = z4ai::zstn::decompress_file(in_path, out_path, workers);
        }
        check(r.status());
        return std::make_tuple(r->input_bytes, r->output_bytes);
      },
      nb::arg("in_path"), nb::arg("out_path"), nb::arg("workers") = 0,
      "Streams a ZSTN file back to its safetensors file in bounded memory; returns (input_bytes, output_bytes).");

  m.def(
      "zstn_parse_prefix",
      [](nb::handle head) {
        Buffer in(head.ptr(), false);
        auto r = z4ai::zstn::parse_prefix(in.bytes());
        check(r.status());
        return std::make_tuple(r->contiguous, r->header_offset, r->header_len, r->data_len, r->body_offset);
      },
      nb::arg("head"), "(contiguous, header_offset, header_len, data_len, body_offset) of a ZSTN container.");

  m.def(
      "zstn_prefix_length",
      [](nb::handle head) {
        Buffer in(head.ptr(), false);
        auto r = z4ai::zstn::prefix_length(in.bytes());
        check(r.status());
        return r.value();
      },
      nb::arg("head"), "Bytes of a ZSTN container's prefix, from its first 14 bytes.");

  m.def(
      "zstn_parse_footer",
      [](nb::handle footer, uint64_t size, uint64_t body_offset) {
        Buffer in(footer.ptr(), false);
        auto r = z4ai::zstn::parse_footer(in.bytes(), size, body_offset);
        check(r.status());
        return std::make_tuple(r->index_offset, r->index_len);
      },
      nb::arg("footer"), nb::arg("size"), nb::arg("body_offset"),
      "(index_offset, index_len) from the last 20 bytes of a contiguous ZSTN container of `size` bytes.");

  m.def(
      "safetensors_header",
      [](nb::handle header, uint64_t data_len, bool require_tiling) {
        Buffer in(header.ptr(), false);
        auto r = zt::parse_safetensors_header(in.bytes(), data_len, {zt::SafetensorsOrder::verbatim, require_tiling});
        check(r.status());
        nb::list tensors, metadata;
        for (const zt::SafetensorsTensor& t : r->tensors)
          tensors.append(nb::make_tuple(nb::str(t.name.data(), t.name.size()), t.st_dtype, t.shape, t.begin, t.end));
        for (const auto& [k, v] : r->metadata) metadata.append(nb::make_tuple(k, v));
        return nb::make_tuple(tensors, metadata);
      },
      nb::arg("header"), nb::arg("data_len"), nb::arg("require_tiling"),
      "The library's safetensors parser over a JSON header: ([(name, dtype, shape, begin, end)] in data order, "
      "[(key, value)] of __metadata__).");

  m.def(
      "zstn_parse_index",
      [](nb::handle index, uint64_t data_len, uint64_t frames_begin, uint64_t frames_end) {
        Buffer in(index.ptr(), false);
        auto r = z4ai::zstn::parse_index(in.bytes(), data_len, frames_begin, frames_end);
        check(r.status());
        std::vector<std::tuple<nb::bytes, uint64_t, uint64_t, int, uint64_t, uint64_t, uint32_t>> out;
        for (const auto& e : r.value())
          out.emplace_back(nb::bytes(e.name.data(), e.name.size()), e.dest_begin, e.dest_end, int(e.kind),
                           e.frame_offset, e.frame_len, e.ref_index);
        return out;
      },
      nb::arg("index"), nb::arg("data_len"), nb::arg("frames_begin"), nb::arg("frames_end"),
      "Validated index entries: (name bytes, begin, end, kind 0=FRAME/1=REF, frame_offset, frame_len, ref_index).");
}
