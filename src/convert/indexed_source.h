// The part every format parser's TensorSource shares: a manifest of objects
// with one slot each, looked up by name, and a read_component that resolves
// the object and its role before handing the slot to the format's decoder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ztensor/reader.h"
#include "ztensor/source.h"

namespace zt {

// A `dense` object whose single `data` component holds `length` bytes that
// sit at `offset` in the file (for information).
Object dense_object(std::string name, std::vector<uint64_t> shape, DType dtype, LogicalType type, uint64_t offset,
                    uint64_t length);

class IndexedSource : public TensorSource {
 public:
  const Manifest& manifest() const final { return manifest_; }
  const Object* find(std::string_view name) const final;
  // Only role "data" exists. Errors: not_found (worded as the format always
  // has), then whatever read_data returns.
  Result<ComponentBytes> read_component(const Object& object, std::string_view role) const final;

 protected:
  // How a miss is worded: `split` says "<prefix>: no object 'x'" or
  // "<prefix>: object 'x' has no component 'r'"; `joined` says
  // "<prefix> no object 'x' with component 'r'" for both.
  enum class Miss { split, joined };
  IndexedSource(std::string miss_prefix, Miss style) : miss_prefix_(std::move(miss_prefix)), miss_(style) {}

  // Appends an object and returns its slot number. A name already present
  // keeps resolving to its first object (callers that forbid duplicates
  // check contains() first).
  size_t add_object(Object object);
  bool contains(std::string_view name) const { return index_.count(std::string(name)) != 0; }
  size_t object_count() const { return manifest_.objects.size(); }

  // The `data` bytes of the object in `slot`, with `object` for messages.
  virtual Result<ComponentBytes> read_data(size_t slot, const Object& object) const = 0;

  Manifest manifest_;

 private:
  std::string miss_prefix_;
  Miss miss_;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace zt
