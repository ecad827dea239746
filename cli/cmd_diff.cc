// zt diff A B: names, shapes, dtypes and the largest absolute difference of
// values between two files of any supported format.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "args.h"
#include "commands.h"
#include "describe.h"
#include "table.h"
#include "elements.h"

namespace zt::cli {
namespace {

using ojson = nlohmann::ordered_json;

constexpr const char* kDiffHelp =
    "Usage: zt diff A B [--atol X] [--json]\n"
    "\n"
    "Compare two files of any formats `zt info` reads, in any mix (.zt,\n"
    "safetensors, a sharded index.json, GGUF, .npy/.npz, PyTorch zip, .onnx):\n"
    "objects present in only one, differing shapes, formats and dtypes, and for\n"
    "objects of the same shape the maximum absolute difference of their values\n"
    "(dtypes may differ: f32 against f16 is compared numerically). Objects\n"
    "whose values cannot be read as numbers are compared byte for byte.\n"
    "Exit code as diff(1): 0 when A and B hold the same objects with equal\n"
    "values, 1 when they differ, 2 on trouble (a missing or unreadable file,\n"
    "or a usage error).\n"
    "\n"
    "Options:\n"
    "  --atol X      values differing by at most X count as equal (default 0)\n"
    "  --json        machine-readable result on stdout\n"
    "  -h, --help    show this help\n"
    "\n"
    "Examples:\n"
    "  zt diff model.safetensors model.zt\n"
    "  zt diff model-f32.zt model-f16.zt --atol 1e-3\n";

struct ObjectDiff {
  bool same_meta = true;   // shape, format, dtypes
  bool compared = false;   // values compared
  bool equal = true;
  double max_abs = 0;      // numeric comparison only
  std::string note;        // what differs, for humans
};

std::string type_text(const Component& c) {
  std::string t = dtype_name(c.dtype);
  if (!c.type_name.empty()) t += "(" + c.type_name + ")";
  return t;
}

Status compare_numeric(const OpenedFile& fa, const Object& a, const OpenedFile& fb, const Object& b,
                       ObjectDiff& d) {
  const Component& ca = *a.find("data");
  const Component& cb = *b.find("data");
  ZT_ASSIGN_OR_RETURN(ComponentBytes ba, fa.read(a, "data"));
  ZT_ASSIGN_OR_RETURN(ComponentBytes bb, fb.read(b, "data"));
  auto count = element_count(a.shape);
  const uint64_t ra = logical_type_ratio(ca.type), rb = logical_type_ratio(cb.type);
  if (!count || ra != rb) {
    d.equal = false;
    d.note += " (values not comparable)";
    return Status::Ok();
  }
  const uint64_t n = *count * ra;  // complex: real and imaginary parts
  if (ba.bytes.size() < n * value_width(ca.dtype, ca.type) || bb.bytes.size() < n * value_width(cb.dtype, cb.type))
    return Status(ErrorCode::length_mismatch, "object '" + a.name + "': data shorter than its shape");
  d.compared = true;
  for (uint64_t i = 0; i < n; ++i) {
    double x = element_at(ca.dtype, ca.type, ba.bytes.data(), i);
    double y = element_at(cb.dtype, cb.type, bb.bytes.data(), i);
    if (x == y || (std::isnan(x) && std::isnan(y))) continue;
    double diff = std::isnan(x) || std::isnan(y) ? std::numeric_limits<double>::infinity() : std::fabs(x - y);
    if (std::isnan(diff)) diff = std::numeric_limits<double>::infinity();  // inf vs -inf
    if (diff > d.max_abs) d.max_abs = diff;
  }
  return Status::Ok();
}

Status compare_bytes(const OpenedFile& fa, const Object& a, const OpenedFile& fb, const Object& b, ObjectDiff& d) {
  d.compared = true;
  for (const auto& [role, c] : a.components) {
    ZT_ASSIGN_OR_RETURN(ComponentBytes ba, fa.read(a, role));
    ZT_ASSIGN_OR_RETURN(ComponentBytes bb, fb.read(b, role));
    if (ba.bytes.size() != bb.bytes.size() || !std::equal(ba.bytes.begin(), ba.bytes.end(), bb.bytes.begin())) {
      d.equal = false;
      d.note += " component '" + role + "' bytes differ;";
    }
  }
  return Status::Ok();
}

Result<ObjectDiff> compare(const OpenedFile& fa, const Object& a, const OpenedFile& fb, const Object& b,
                           double atol) {
  ObjectDiff d;
  if (a.shape != b.shape) {
    d.same_meta = d.equal = false;
    d.note = "shape " + shape_text(a.shape) + " -> " + shape_text(b.shape);
    return d;
  }
  if (a.format != b.format) {
    d.same_meta = false;
    d.note = "format " + a.format + " -> " + b.format + ";";
  }
  const Component* ca = a.find("data");
  const Component* cb = b.find("data");
  const bool dense = a.format == "dense" && b.format == "dense" && ca && cb;
  if (dense && (ca->dtype != cb->dtype || ca->type_name != cb->type_name)) {
    d.same_meta = false;
    d.note += " dtype " + type_text(*ca) + " -> " + type_text(*cb) + ";";
  }
  if (dense && numeric(ca->dtype, ca->type) && numeric(cb->dtype, cb->type)) {
    ZT_RETURN_IF_ERROR(compare_numeric(fa, a, fb, b, d));
    if (d.max_abs > atol) d.equal = false;
    return d;
  }
  bool same_roles = a.components.size() == b.components.size();
  for (const auto& [role, c] : a.components) {
    const Component* other = b.find(role);
    if (!other || other->dtype != c.dtype || other->type_name != c.type_name) same_roles = false;
  }
  if (!same_roles) {
    d.same_meta = d.equal = false;
    d.note += " components differ;";
    return d;
  }
  ZT_RETURN_IF_ERROR(compare_bytes(fa, a, fb, b, d));
  return d;
}

constexpr OptionSpec kDiffOptions[] = {{"atol", true}, {"json", false}};

int run_diff(const Invocation& inv) {
  const ParsedArgs& a = inv.args;
  double atol = 0;
  if (const auto* t = a.get("atol")) {
    char* end = nullptr;
    atol = std::strtod(t->c_str(), &end);
    if (t->empty() || *end != '\0' || !(atol >= 0)) return usage_error("diff", "--atol must be a number >= 0");
  }
  // diff(1): trouble is 2, so a script can tell "differ" from "could not compare".
  auto trouble = [](const Status& s) {
    status_error(s);
    return kExitDiffTrouble;
  };
  auto fa = open_any(a.positionals[0]);
  if (!fa.ok()) return trouble(fa.status());
  auto fb = open_any(a.positionals[1]);
  if (!fb.ok()) return trouble(fb.status());
  const Manifest& ma = fa.value().manifest();
  const Manifest& mb = fb.value().manifest();
  std::unordered_map<std::string_view, const Object*> in_b;
  for (const auto& o : mb.objects) in_b.emplace(o.name, &o);

  const bool json = a.has("json");
  ojson out;
  ojson only_a = ojson::array(), only_b = ojson::array(), objects = ojson::object();
  bool identical = true;
  size_t equal_count = 0;
  for (const auto& oa : ma.objects) {
    auto it = in_b.find(oa.name);
    if (it == in_b.end()) {
      identical = false;
      only_a.push_back(oa.name);
      if (!json) std::printf("- %s: only in A\n", oa.name.c_str());
      continue;
    }
    auto d = compare(fa.value(), oa, fb.value(), *it->second, atol);
    if (!d.ok()) return trouble(d.status());
    const ObjectDiff& od = d.value();
    const bool same = od.same_meta && od.equal;
    identical = identical && same;
    equal_count += same;
    if (json) {
      objects[oa.name] = {{"equal", same},
                          {"same_shape_format_dtype", od.same_meta},
                          {"max_abs_diff", od.compared ? ojson(od.max_abs) : ojson(nullptr)},
                          {"note", od.note}};
    } else if (!same || od.max_abs > 0) {
      std::string text = od.note;
      if (od.compared && od.max_abs > 0) {
        char buf[48];
        std::snprintf(buf, sizeof buf, " max abs diff %.6g", od.max_abs);
        text += buf;
      }
      std::printf("%c %s:%s\n", same ? '=' : '~', oa.name.c_str(), text.c_str());
    }
  }
  std::unordered_map<std::string_view, bool> in_a;
  for (const auto& o : ma.objects) in_a.emplace(o.name, true);
  for (const auto& ob : mb.objects)
    if (!in_a.count(ob.name)) {
      identical = false;
      only_b.push_back(ob.name);
      if (!json) std::printf("+ %s: only in B\n", ob.name.c_str());
    }
  if (json) {
    out["identical"] = identical;
    out["only_in_a"] = only_a;
    out["only_in_b"] = only_b;
    out["objects"] = objects;
    std::printf("%s\n", out.dump(2, ' ', false, ojson::error_handler_t::replace).c_str());
  } else {
    std::printf("%s: %zu of %zu objects in A equal in B%s\n", identical ? "same" : "different", equal_count,
                ma.objects.size(), atol > 0 ? " (within --atol)" : "");
  }
  return identical ? kExitOk : kExitDiffDiffer;
}

}  // namespace

const Command kDiffCommand{
    "diff",
    "  diff A B [--atol X] [--json]  compare names, shapes, dtypes and values\n",
    kDiffHelp,
    kDiffOptions,
    /*reads_urls=*/true,
    /*operands=*/2,
    "expected two files A and B",
    kExitDiffTrouble,
    run_diff};

}  // namespace zt::cli
