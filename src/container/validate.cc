#include "container/validate.h"

#include <algorithm>

#include "common/checked_math.h"
#include "container/limits.h"

namespace zt {
namespace {

Status fail(ErrorCode code, const Object& o, const std::string& role, const std::string& rule) {
  return Status(code, describe(o, role) + ": " + rule);
}

Status check_component(const Object& o, const std::string& role, const Component& c, uint64_t data_end,
                       const ValidationRules& rules) {
  // §1 "offset ... Must be a multiple of 64."
  if (c.offset % limits::kAlignment != 0)
    return fail(ErrorCode::misaligned_offset, o, role,
                "offset " + std::to_string(c.offset) + " is not a multiple of 64");
  // §5 "offset + length MUST NOT exceed the file size"; blobs also may not
  // overlap the header magic or run into the manifest.
  auto end = checked_add(c.offset, c.length);
  if (!end) return fail(ErrorCode::offset_out_of_range, o, role, "offset + length overflows u64");
  if (c.length > 0 && c.offset < limits::kMagicSize)
    return fail(ErrorCode::offset_out_of_range, o, role, "blob overlaps the header magic");
  if (*end > data_end)
    return fail(ErrorCode::offset_out_of_range, o, role,
                "offset + length = " + std::to_string(*end) + " runs past the data section end " +
                    std::to_string(data_end));
  if (c.type != LogicalType::none && logical_type_storage(c.type) != c.dtype)
    return fail(ErrorCode::wrong_type, o, role,
                std::string("logical type ") + logical_type_name(c.type) + " requires storage dtype " +
                    dtype_name(logical_type_storage(c.type)) + ", not " + dtype_name(c.dtype));
  if (c.encoding == Encoding::zstd || c.encoding == Encoding::z4ai) {
    if (!c.uncompressed_length) {
      if (rules.require_uncompressed_length)
        return fail(ErrorCode::missing_field, o, role,
                    std::string("uncompressed_length is required for encoding ") + encoding_name(c.encoding));
    } else {
      uint64_t u = *c.uncompressed_length;
      if (u > limits::kMaxUncompressedBytes)
        return fail(ErrorCode::limit_exceeded, o, role,
                    "uncompressed_length " + std::to_string(u) + " over kMaxUncompressedBytes");
      // z4ai frames carry their own chunk table, checked by the codec.
      auto bound = checked_mul(c.length, limits::kMaxZstdExpansion);
      if (c.encoding == Encoding::zstd && bound && u > *bound + limits::kZstdExpansionSlack)
        return fail(ErrorCode::limit_exceeded, o, role,
                    "uncompressed_length " + std::to_string(u) + " is implausible for " +
                        std::to_string(c.length) + " stored bytes (kMaxZstdExpansion)");
    }
  }
  if (auto n = decoded_length(c); n && *n % dtype_width(c.dtype) != 0)
    return fail(ErrorCode::length_mismatch, o, role,
                "decoded length " + std::to_string(*n) + " is not a multiple of the " + dtype_name(c.dtype) +
                    " width");
  return Status::Ok();
}

Result<const Component*> require(const Object& o, const char* role) {
  const Component* c = o.find(role);
  if (!c)
    return Status(ErrorCode::missing_component,
                  describe(o) + ": format " + o.format + " requires component '" + role + "'");
  return c;
}

// Number of storage elements, when the manifest states the decoded size.
std::optional<uint64_t> element_len(const Component& c) {
  auto n = decoded_length(c);
  if (!n) return std::nullopt;
  return *n / dtype_width(c.dtype);
}

Status check_index_dtype(const Object& o, const char* role, const Component& c, const ValidationRules& rules) {
  if (c.dtype == DType::u64) return Status::Ok();
  bool integer = c.dtype == DType::i64 || c.dtype == DType::i32 || c.dtype == DType::i16 ||
                 c.dtype == DType::i8 || c.dtype == DType::u32 || c.dtype == DType::u16 || c.dtype == DType::u8;
  if (!rules.require_u64_indices && integer) return Status::Ok();
  return fail(ErrorCode::wrong_type, o, role,
              std::string("index components MUST use dtype u64, found ") + dtype_name(c.dtype));
}

Status check_dense(const Object& o, uint64_t count) {
  ZT_ASSIGN_OR_RETURN(const Component* data, require(o, "data"));
  auto width = checked_mul(dtype_width(data->dtype), logical_type_ratio(data->type));
  auto expected = checked_mul(count, *width);
  if (!expected) return fail(ErrorCode::shape_overflow, o, "data", "product(shape) * width overflows u64");
  if (auto n = decoded_length(*data); n && *n != *expected)
    return fail(ErrorCode::length_mismatch, o, "data",
                "decoded length " + std::to_string(*n) + " != product(shape) * width * ratio = " +
                    std::to_string(*expected));
  return Status::Ok();
}

Status check_csr(const Object& o, const ValidationRules& rules) {
  ZT_ASSIGN_OR_RETURN(const Component* values, require(o, "values"));
  ZT_ASSIGN_OR_RETURN(const Component* indices, require(o, "indices"));
  ZT_ASSIGN_OR_RETURN(const Component* indptr, require(o, "indptr"));
  ZT_RETURN_IF_ERROR(check_index_dtype(o, "indices", *indices, rules));
  ZT_RETURN_IF_ERROR(check_index_dtype(o, "indptr", *indptr, rules));
  if (o.shape.size() != 2)
    return fail(ErrorCode::invalid_structure, o, "", "sparse_csr needs a 2-D shape");
  auto nptr = element_len(*indptr);
  if (nptr && (o.shape[0] == UINT64_MAX || *nptr != o.shape[0] + 1))
    return fail(ErrorCode::length_mismatch, o, "indptr",
                "has " + std::to_string(*nptr) + " entries, expected rows + 1 = " + std::to_string(o.shape[0] + 1));
  auto nval = element_len(*values);
  auto nidx = element_len(*indices);
  if (nval && nidx && *nval / logical_type_ratio(values->type) != *nidx)
    return fail(ErrorCode::length_mismatch, o, "indices",
                "has " + std::to_string(*nidx) + " entries but values has " + std::to_string(*nval));
  return Status::Ok();
}

Status check_coo(const Object& o, const ValidationRules& rules) {
  ZT_ASSIGN_OR_RETURN(const Component* values, require(o, "values"));
  ZT_ASSIGN_OR_RETURN(const Component* coords, require(o, "coords"));
  ZT_RETURN_IF_ERROR(check_index_dtype(o, "coords", *coords, rules));
  auto nval = element_len(*values);
  auto ncoord = element_len(*coords);
  if (nval && ncoord) {
    auto want = checked_mul(o.shape.size(), *nval / logical_type_ratio(values->type));
    if (!want || *ncoord != *want)
      return fail(ErrorCode::length_mismatch, o, "coords",
                  "has " + std::to_string(*ncoord) + " entries, expected ndim * nnz");
  }
  return Status::Ok();
}

Status check_quantized(const Object& o) {
  for (const char* role : {"packed_weight", "scales", "zeros"}) {
    ZT_ASSIGN_OR_RETURN(const Component* c, require(o, role));
    (void)c;
  }
  return Status::Ok();
}

}  // namespace

std::string describe(const Object& o, const std::string& role) {
  std::string s = "object '" + o.name + "'";
  if (!role.empty()) s += " component '" + role + "'";
  return s;
}

Result<uint64_t> element_count(const Object& o) {
  auto n = checked_product(o.shape);
  if (!n) return Status(ErrorCode::shape_overflow, describe(o) + ": product(shape) overflows u64");
  return *n;
}

std::optional<uint64_t> decoded_length(const Component& c) {
  if (c.encoding == Encoding::raw) return c.length;
  return c.uncompressed_length;
}

Status check_components_disjoint(const std::vector<Object>& objects) {
  struct Blob {
    uint64_t begin, end;
    const Object* object;
    const std::string* role;
  };
  std::vector<Blob> blobs;
  for (const auto& o : objects)
    for (const auto& [role, c] : o.components)
      if (c.length > 0) blobs.push_back({c.offset, c.offset + c.length, &o, &role});  // bounds checked before
  std::sort(blobs.begin(), blobs.end(), [](const Blob& a, const Blob& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  const Blob* reach = nullptr;  // the blob reaching furthest so far
  for (const auto& b : blobs) {
    if (reach && b.begin < reach->end)
      return Status(ErrorCode::invalid_structure,
                    describe(*b.object, *b.role) + " [" + std::to_string(b.begin) + ", " + std::to_string(b.end) +
                        ") shares bytes with " + describe(*reach->object, *reach->role) + " [" +
                        std::to_string(reach->begin) + ", " + std::to_string(reach->end) +
                        "): every component must have bytes of its own");
    if (!reach || b.end > reach->end) reach = &b;
  }
  return Status::Ok();
}

Status validate_object(const Object& o, uint64_t data_end, const ValidationRules& rules) {
  if (o.shape.size() > limits::kMaxRank)
    return fail(ErrorCode::limit_exceeded, o, "", "rank " + std::to_string(o.shape.size()) + " over kMaxRank");
  ZT_RETURN_IF_ERROR(check_name(o.name, "object"));
  ZT_ASSIGN_OR_RETURN(uint64_t count, element_count(o));
  for (const auto& [role, c] : o.components) {
    ZT_RETURN_IF_ERROR(check_name(role, describe(o) + " component"));
    ZT_RETURN_IF_ERROR(check_component(o, role, c, data_end, rules));
  }
  if (o.format == "dense") return check_dense(o, count);
  if (o.format == "sparse_csr") return check_csr(o, rules);
  if (o.format == "sparse_coo") return check_coo(o, rules);
  if (o.format == "quantized_group") return check_quantized(o);
  return Status::Ok();  // open set of formats: components stay readable
}

}  // namespace zt
