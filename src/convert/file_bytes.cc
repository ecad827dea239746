#include "convert/file_bytes.h"

#include <cstdint>
#include <new>
#include <string>

namespace zt {
namespace {

Result<ComponentBytes> pread_copy(const MappedFile& file, std::span<const uint8_t> span) {
  const uint64_t offset = static_cast<uint64_t>(span.data() - file.bytes().data());
  std::shared_ptr<uint8_t[]> buf;
  try {
    buf.reset(new uint8_t[span.size() ? span.size() : 1]);
  } catch (const std::bad_alloc&) {
    return Status(ErrorCode::limit_exceeded, "'" + file.path() + "': cannot allocate " + std::to_string(span.size()) +
                                                 " bytes to read");
  }
  ZT_RETURN_IF_ERROR(file.read_at(offset, {buf.get(), span.size()}));
  return ComponentBytes{{buf.get(), span.size()}, buf, false};
}

}  // namespace

Result<ComponentBytes> FileByteAccess::read(std::span<const uint8_t> span, std::shared_ptr<const void> owner) const {
  if (copy_) return pread_copy(*file_, span);
  if (file_ && !span.empty())
    ZT_RETURN_IF_ERROR(file_->check_backed(static_cast<uint64_t>(span.data() - file_->bytes().data()) + span.size()));
  return ComponentBytes{span, std::move(owner), true};
}

Result<ComponentBytes> FileByteAccess::read_to_decode(std::span<const uint8_t> span,
                                                 std::shared_ptr<const void> owner) const {
  if (file_ && !span.empty()) return pread_copy(*file_, span);
  return ComponentBytes{span, std::move(owner), false};
}

}  // namespace zt
