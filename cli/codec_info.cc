#include "codec_info.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>

#include "codec_job.h"
#include "ztensor/files.h"
#include "progress.h"
#include "table.h"
#include "z4ai/model_delta.h"
#include "z4ai/zstn.h"

namespace zt::cli {
namespace {

uint64_t load_u64_le(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

struct HeaderTensor {
  std::string dtype;
  std::vector<uint64_t> shape;
  uint64_t length = 0;  // from data_offsets
};

// The safetensors JSON header kept verbatim in both containers: dtype and
// shape per tensor, plus __metadata__. Malformed entries are shown as unknown.
Status parse_header(std::span<const uint8_t> header, std::map<std::string, HeaderTensor>* tensors,
                    nlohmann::ordered_json* metadata) {
  auto j = nlohmann::ordered_json::parse(header.begin(), header.end(), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object())
    return Status(ErrorCode::corrupt_stream, "the safetensors header kept in the container is not a JSON object");
  *metadata = nullptr;
  for (const auto& [name, v] : j.items()) {
    if (name == "__metadata__") {
      *metadata = v;
      continue;
    }
    HeaderTensor t;
    if (v.is_object() && v.contains("dtype") && v["dtype"].is_string()) t.dtype = v["dtype"].get<std::string>();
    if (v.is_object() && v.contains("shape") && v["shape"].is_array())
      for (const auto& d : v["shape"])
        if (d.is_number_unsigned()) t.shape.push_back(d.get<uint64_t>());
    if (v.is_object() && v.contains("data_offsets") && v["data_offsets"].is_array() && v["data_offsets"].size() == 2 &&
        v["data_offsets"][0].is_number_unsigned() && v["data_offsets"][1].is_number_unsigned() &&
        v["data_offsets"][1].get<uint64_t>() >= v["data_offsets"][0].get<uint64_t>())
      t.length = v["data_offsets"][1].get<uint64_t>() - v["data_offsets"][0].get<uint64_t>();
    (*tensors)[name] = std::move(t);
  }
  return Status::Ok();
}

void fill_from_header(CodecTensor& t, const std::map<std::string, HeaderTensor>& header) {
  if (auto it = header.find(t.name); it != header.end()) {
    t.dtype = it->second.dtype;
    t.shape = it->second.shape;
  }
}

Result<CodecFile> describe_zstn(std::span<const uint8_t> z) {
  ZT_ASSIGN_OR_RETURN(z4ai::zstn::Prefix p, z4ai::zstn::parse_prefix(z));
  CodecFile f;
  f.format = "zstn";
  f.version = z4ai::zstn::kVersion;
  f.file_size = z.size();
  f.data_length = p.data_len;
  f.extra["contiguous"] = p.contiguous;
  std::map<std::string, HeaderTensor> header;
  ZT_RETURN_IF_ERROR(parse_header(z.subspan(size_t(p.header_offset), size_t(p.header_len)), &header, &f.metadata));
  if (!p.contiguous) {  // one frame for the whole data buffer: no per-tensor sizes
    for (const auto& [name, h] : header) f.tensors.push_back({name, h.dtype, h.shape, "opaque", 0, h.length, ""});
    f.extra["frame_length"] = z.size() - p.body_offset;
    return f;
  }
  // Footer: u64 index_offset, u64 index_len, "ZSTN" (docs/codec.md).
  constexpr size_t kFooter = z4ai::zstn::kFooterBytes;
  if (z.size() < p.body_offset + kFooter || std::memcmp(z.data() + z.size() - 4, "ZSTN", 4) != 0)
    return Status(ErrorCode::corrupt_stream, "ZSTN container: footer sentinel missing (truncated file?)");
  const uint64_t footer_at = z.size() - kFooter;
  const uint64_t index_offset = load_u64_le(z.data() + footer_at), index_len = load_u64_le(z.data() + footer_at + 8);
  if (index_offset < p.body_offset || index_offset > footer_at || index_len != footer_at - index_offset)
    return Status(ErrorCode::corrupt_stream, "ZSTN container: index must sit between the frames and the footer");
  ZT_ASSIGN_OR_RETURN(auto entries, z4ai::zstn::parse_index(z.subspan(size_t(index_offset), size_t(index_len)),
                                                            p.data_len, p.body_offset, index_offset));
  for (const auto& e : entries) {
    CodecTensor t;
    t.name = e.name;
    t.length = e.dest_end - e.dest_begin;
    if (e.kind == z4ai::zstn::EntryKind::ref) {
      t.kind = "ref";
      t.ref = entries[e.ref_index].name;  // parse_index checked it is an earlier entry
    } else {
      t.kind = "frame";
      t.stored = e.frame_len;
    }
    fill_from_header(t, header);
    f.tensors.push_back(std::move(t));
  }
  return f;
}

std::string digest_hex(uint64_t d) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, d);
  return std::string("xxh3-64:") + buf;
}

Result<CodecFile> describe_z4dm(std::span<const uint8_t> frame) {
  ZT_ASSIGN_OR_RETURN(z4ai::ModelDeltaContents l, z4ai::list_model_delta(frame));
  CodecFile f;
  f.format = "z4dm";
  f.version = l.version;
  f.file_size = frame.size();
  f.data_length = l.data_length;
  f.extra["base_data_length"] = l.base_data_length;
  f.extra["base_digest"] = digest_hex(l.base_digest);
  if (l.pypi_layout) {  // written by PyPI z4ai 0.x: BLAKE2b-64 of the base data, no base length
    f.extra["layout"] = "PyPI z4ai 0.x";
    f.extra["base_digest"] = "blake2b-64:" + digest_hex(l.base_digest).substr(8);
  }
  std::map<std::string, HeaderTensor> header;
  ZT_RETURN_IF_ERROR(parse_header(l.header, &header, &f.metadata));
  for (const z4ai::ModelDeltaPiece& p : l.pieces) {
    if (p.name.empty()) continue;  // bytes between tensors
    CodecTensor t;
    t.name = p.name;
    t.length = p.length;
    t.stored = p.stored;
    t.kind = p.kind == z4ai::ModelDeltaPiece::Kind::copy    ? "copy"
             : p.kind == z4ai::ModelDeltaPiece::Kind::delta ? "delta"
                                                            : "full";
    fill_from_header(t, header);
    f.tensors.push_back(std::move(t));
  }
  return f;
}

}  // namespace

std::optional<Result<CodecFile>> describe_codec_file(const std::string& path) {
  auto mapped = map_file(path);
  if (!mapped.ok()) return std::nullopt;
  const auto bytes = mapped->bytes;
  Result<CodecFile> r = Status(ErrorCode::unsupported, "");
  if (z4ai::zstn::is_zstn(bytes)) r = describe_zstn(bytes);
  else if (z4ai::is_model_delta(bytes)) r = describe_z4dm(bytes);
  else return std::nullopt;
  if (!r.ok()) return Result<CodecFile>(Status(r.status().code(), "'" + path + "': " + r.status().message()));
  return r;
}

int print_codec_info(const std::string& path, const CodecFile& f, bool json) {
  using ojson = nlohmann::ordered_json;
  if (json) {
    ojson j;
    j["file"] = path;
    j["format"] = f.format;
    j["version"] = f.version;
    j["file_size"] = f.file_size;
    j["data_length"] = f.data_length;
    for (const auto& [k, v] : f.extra.items()) j[k] = v;
    j["metadata"] = f.metadata;
    ojson tensors = ojson::object();
    for (const auto& t : f.tensors)
      tensors[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"kind", t.kind}, {"stored_length", t.stored},
                         {"length", t.length}, {"ref", t.ref.empty() ? ojson(nullptr) : ojson(t.ref)}};
    j["tensors"] = std::move(tensors);
    std::printf("%s\n", j.dump(2, ' ', false, ojson::error_handler_t::replace).c_str());
    return 0;
  }
  std::printf("%s: %s v%u, %zu tensors, %s on disk, %s of tensor data\n", path.c_str(),
              f.format == "zstn" ? "ZSTN" : "Z4DM model delta", f.version, f.tensors.size(),
              human_bytes(f.file_size).c_str(), human_bytes(f.data_length).c_str());
  for (const auto& [k, v] : f.extra.items())
    std::printf("  %s: %s\n", k.c_str(), v.is_string() ? v.get<std::string>().c_str() : v.dump().c_str());
  if (!f.metadata.is_null())
    std::printf("  metadata: %s\n", f.metadata.dump(-1, ' ', false, ojson::error_handler_t::replace).c_str());
  if (f.tensors.empty()) return 0;
  using Row = std::vector<std::string>;
  std::vector<Row> rows = {{"NAME", "DTYPE", "SHAPE", "KIND", "STORED", "LENGTH"}};
  for (const auto& t : f.tensors)
    rows.push_back({t.name, t.dtype.empty() ? "-" : t.dtype, shape_text(t.shape),
                    t.ref.empty() ? t.kind : t.kind + " -> " + t.ref, std::to_string(t.stored),
                    std::to_string(t.length)});
  print_aligned("tensors", rows);
  return 0;
}

}  // namespace zt::cli
