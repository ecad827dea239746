// list_model_delta (z4ai/model_delta.h): the Z4DM layout as the public
// listing that `zt info` and `zt verify` print, so the frame layout itself
// stays internal to the codec.
#include "codec/delta/model_delta_format.h"
#include "z4ai/model_delta.h"

namespace z4ai {

zt::Result<ModelDeltaContents> list_model_delta(std::span<const uint8_t> frame) {
  ZT_ASSIGN_OR_RETURN(detail::ModelDeltaLayout l, detail::parse_model_delta(frame));
  ModelDeltaContents c;
  c.version = detail::kModelDeltaVersion;
  c.header = l.header;
  c.data_length = l.data_len;
  c.base_data_length = l.base_data_len;
  c.base_digest = l.base_digest;
  c.pypi_layout = l.pypi_layout;
  c.pieces.reserve(l.entries.size());
  for (const detail::ModelDeltaEntry& e : l.entries) {
    ModelDeltaPiece p;
    p.name = e.name;
    p.kind = e.kind == detail::ModelDeltaKind::copy    ? ModelDeltaPiece::Kind::copy
             : e.kind == detail::ModelDeltaKind::delta ? ModelDeltaPiece::Kind::delta
                                                       : ModelDeltaPiece::Kind::full;
    p.length = e.dest_end - e.dest_begin;
    p.stored = e.frame.size();
    c.pieces.push_back(std::move(p));
  }
  return c;
}

}  // namespace z4ai
