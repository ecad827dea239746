#include "ztensor/source.h"

#include <string>

#include "container/validate.h"
#include "ztensor/reader.h"

namespace zt {

Status check_component_range(const Object& object, std::string_view role, uint64_t size, uint64_t offset,
                             uint64_t length) {
  if (offset <= size && length <= size - offset) return Status::Ok();
  return Status(ErrorCode::offset_out_of_range, describe(object, std::string(role)) + ": bytes [" +
                                                    std::to_string(offset) + ", +" + std::to_string(length) +
                                                    ") are past its " + std::to_string(size) + " bytes");
}

Result<ComponentBytes> TensorSource::read_component_with_threads(const Object& object, std::string_view role,
                                                                unsigned) const {
  return read_component(object, role);
}

Result<ComponentBytes> TensorSource::read_component_range(const Object& object, std::string_view role,
                                                          uint64_t offset, uint64_t length) const {
  ZT_ASSIGN_OR_RETURN(ComponentBytes all, read_component(object, role));
  ZT_RETURN_IF_ERROR(check_component_range(object, role, all.bytes.size(), offset, length));
  all.bytes = all.bytes.subspan(static_cast<size_t>(offset), static_cast<size_t>(length));
  return all;
}

}  // namespace zt
