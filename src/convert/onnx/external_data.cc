#include "convert/onnx/external_data.h"

#include <climits>
#include <cstdlib>
#include <sys/stat.h>

#include "common/checked_math.h"
#include "common/mapped_file.h"

namespace zt::onnx {
namespace {

Result<uint64_t> parse_decimal(const std::string& s, const std::string& where, const char* key) {
  if (s.empty() || s.size() > 20)
    return Status(ErrorCode::malformed_manifest, where + ": external_data " + key + " '" + s + "' is not a decimal integer");
  uint64_t v = 0;
  for (char c : s) {
    auto next = c >= '0' && c <= '9' ? checked_mul(v, 10) : std::nullopt;
    next = next ? checked_add(*next, static_cast<uint64_t>(c - '0')) : std::nullopt;
    if (!next) return Status(ErrorCode::malformed_manifest, where + ": external_data " + key + " '" + s + "' is not a decimal integer");
    v = *next;
  }
  return v;
}

Result<std::string> real_path(const std::string& p, const std::string& where) {
  char buf[PATH_MAX];
  if (!::realpath(p.c_str(), buf)) return Status(ErrorCode::io_error, where + ": cannot resolve '" + p + "'");
  return std::string(buf);
}

}  // namespace

Result<ExternalSpan> ExternalFiles::resolve(const OnnxTensor& t) {
  const std::string where = "onnx: tensor '" + t.name + "'";
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
  bool has_location = false;
  for (const auto& [k, v] : t.external_data) {
    if (k == "location") {
      location = v;
      has_location = true;
    } else if (k == "offset") {
      ZT_ASSIGN_OR_RETURN(offset, parse_decimal(v, where, "offset"));
    } else if (k == "length") {
      ZT_ASSIGN_OR_RETURN(length, parse_decimal(v, where, "length"));
    }  // "checksum" and unknown keys are ignored
  }
  if (!has_location || location.empty()) return Status(ErrorCode::invalid_structure, where + ": external data without a location");
  if (base_dir_.empty())
    return Status(ErrorCode::unsupported, where + ": external data needs the model's folder (open the model by path)");
  // Lexical rules first: no absolute paths, no parent components, no NULs.
  if (location.front() == '/' || location.find('\0') != std::string::npos)
    return Status(ErrorCode::invalid_structure, where + ": external data location '" + location + "' is absolute");
  for (size_t start = 0; start <= location.size();) {
    size_t end = location.find_first_of("/\\", start);
    if (end == std::string::npos) end = location.size();
    if (location.compare(start, end - start, "..") == 0 && end - start == 2)
      return Status(ErrorCode::invalid_structure, where + ": external data location '" + location + "' leaves the model's folder ('..')");
    start = end + 1;
  }
  if (real_base_.empty()) {
    ZT_ASSIGN_OR_RETURN(real_base_, real_path(base_dir_, where));
  }
  ZT_ASSIGN_OR_RETURN(std::string real, real_path(base_dir_ + "/" + location, where + " external data"));
  // Symlinks are followed; what they reach must still be inside the folder.
  std::string prefix = real_base_ == "/" ? "/" : real_base_ + "/";
  if (real.compare(0, prefix.size(), prefix) != 0)
    return Status(ErrorCode::invalid_structure, where + ": external data location '" + location + "' resolves outside the model's folder");
  struct stat st {};
  if (::stat(real.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return Status(ErrorCode::io_error, where + ": external data '" + location + "' is not a regular file");

  auto it = files_.find(real);
  if (it == files_.end()) {
    ZT_ASSIGN_OR_RETURN(auto mapped, MappedFile::open(real));
    it = files_.emplace(real, std::move(mapped)).first;
  }
  const auto& file = it->second;
  uint64_t want = length.value_or(t.nbytes);
  if (want != t.nbytes)
    return Status(ErrorCode::length_mismatch, where + ": external data length " + std::to_string(want) + ", shape and " +
                                                  t.type->name + " need " + std::to_string(t.nbytes));
  auto end = checked_add(offset, want);
  if (!end || *end > file->size())
    return Status(ErrorCode::offset_out_of_range, where + ": external data [" + std::to_string(offset) + ", +" + std::to_string(want) +
                                                      ") runs past '" + location + "' of " + std::to_string(file->size()) + " bytes");
  ExternalSpan s;
  s.bytes = file->bytes().subspan(static_cast<size_t>(offset), static_cast<size_t>(want));
  s.file = file;
  return s;
}

}  // namespace zt::onnx
