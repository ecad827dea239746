#include "convert/pytorch/pickle_vm.h"

#include <cstdio>
#include <cstring>

#include "convert/pytorch/pickle_globals.h"

namespace zt::pickle {
namespace {

std::string hex_byte(uint8_t b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", b);
  return buf;
}

Status malformed(size_t at, const std::string& what) {
  return {ErrorCode::malformed_manifest, "pickle offset " + std::to_string(at) + ": " + what};
}

// Opcode names for the refusal message of opcodes we do not run.
const char* opcode_name(uint8_t op) {
  switch (op) {
    case 'i': return "INST";
    case 'o': return "OBJ";
    case 0x81: return "NEWOBJ";
    case 0x92: return "NEWOBJ_EX";
    case 'P': return "PERSID";
    case 0x82: case 0x83: case 0x84: return "EXT";
    case 0x8f: return "EMPTY_SET";
    case 0x90: return "ADDITEMS";
    case 0x91: return "FROZENSET";
    case 0x96: return "BYTEARRAY8";
    case 0x97: return "NEXT_BUFFER";
    case 0x98: return "READONLY_BUFFER";
    case 'I': return "INT";
    case 'L': return "LONG";
    case 'F': return "FLOAT";
    case 'S': return "STRING";
    case 'V': return "UNICODE";
    case 'g': return "GET";
    case 'p': return "PUT";
    default: return nullptr;
  }
}

}  // namespace

Result<Ref> Machine::make(Obj o) {
  if (objs_.size() >= kMaxObjects)
    return Status(ErrorCode::limit_exceeded, "pickle: more than " + std::to_string(kMaxObjects) + " objects");
  objs_.push_back(std::move(o));
  return static_cast<Ref>(objs_.size() - 1);
}

Status Machine::push(Ref r) {
  if (stack_.size() >= kMaxStackDepth)
    return {ErrorCode::limit_exceeded, "pickle: stack deeper than " + std::to_string(kMaxStackDepth)};
  stack_.push_back(r);
  return {};
}

Result<Ref> Machine::pop() {
  size_t floor = marks_.empty() ? 0 : marks_.back();
  if (stack_.size() <= floor) return malformed(pos_, "stack underflow");
  Ref r = stack_.back();
  stack_.pop_back();
  return r;
}

Result<std::vector<Ref>> Machine::pop_mark() {
  if (marks_.empty()) return malformed(pos_, "no MARK to pop to");
  size_t m = marks_.back();
  marks_.pop_back();
  std::vector<Ref> items(stack_.begin() + static_cast<ptrdiff_t>(m), stack_.end());
  stack_.resize(m);
  return items;
}

Result<std::span<const uint8_t>> Machine::take(uint64_t n, const char* what) {
  // Lengths are checked against the bytes left before anything is allocated.
  if (n > code_.size() - pos_)
    return malformed(pos_, std::string(what) + " of " + std::to_string(n) + " bytes runs past the end (" +
                               std::to_string(code_.size() - pos_) + " left)");
  auto s = code_.subspan(pos_, static_cast<size_t>(n));
  pos_ += static_cast<size_t>(n);
  return s;
}

Result<uint64_t> Machine::take_le(int n, const char* what) {
  ZT_ASSIGN_OR_RETURN(auto b, take(static_cast<uint64_t>(n), what));
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | b[static_cast<size_t>(i)];
  return v;
}

Result<std::string> Machine::take_line(const char* what) {
  const void* nl = std::memchr(code_.data() + pos_, '\n', code_.size() - pos_);
  if (!nl) return malformed(pos_, std::string(what) + " has no terminating newline");
  size_t end = static_cast<size_t>(static_cast<const uint8_t*>(nl) - code_.data());
  std::string s(reinterpret_cast<const char*>(code_.data() + pos_), end - pos_);
  pos_ = end + 1;
  return s;
}

Status Machine::memo_put(uint64_t index) {
  if (stack_.empty()) return malformed(pos_, "memo store from an empty stack");
  if (memo_.size() >= kMaxMemoEntries && !memo_.count(index))
    return {ErrorCode::limit_exceeded, "pickle: more than " + std::to_string(kMaxMemoEntries) + " memo entries"};
  memo_[index] = stack_.back();
  return {};
}

Result<Ref> Machine::memo_get(uint64_t index) {
  auto it = memo_.find(index);
  if (it == memo_.end()) return malformed(pos_, "memo key " + std::to_string(index) + " was never stored");
  return it->second;
}

Result<Ref> Machine::run() {
  // Opcodes are at least one byte each, so kMaxOps only matters for huge
  // pickles; it keeps the worst case linear and bounded.
  uint64_t ops = 0;
  while (!stopped_) {
    if (pos_ >= code_.size()) return malformed(pos_, "ends without STOP");
    if (++ops > kMaxOps) return Status(ErrorCode::limit_exceeded, "pickle: more than " + std::to_string(kMaxOps) + " opcodes");
    size_t at = pos_;
    uint8_t op = code_[pos_++];
    ZT_RETURN_IF_ERROR(step(op, at));
  }
  if (stack_.size() != 1 || !marks_.empty())
    return malformed(pos_, "STOP with " + std::to_string(stack_.size()) + " values on the stack (expected 1)");
  return stack_.back();
}

Status Machine::step(uint8_t op, size_t at) {
  auto new_obj = [&](Obj o) -> Status {
    ZT_ASSIGN_OR_RETURN(Ref r, make(std::move(o)));
    return push(r);
  };
  auto scalar_int = [&](int64_t v) {
    Obj o;
    o.kind = Kind::integer;
    o.i = v;
    return new_obj(std::move(o));
  };
  auto text = [&](uint64_t n, Kind kind, const char* what) -> Status {
    ZT_ASSIGN_OR_RETURN(auto b, take(n, what));
    Obj o;
    o.kind = kind;
    o.s.assign(reinterpret_cast<const char*>(b.data()), b.size());
    return new_obj(std::move(o));
  };
  auto make_tuple = [&](std::vector<Ref> items) {
    Obj o;
    o.kind = Kind::tuple;
    o.items = std::move(items);
    return new_obj(std::move(o));
  };
  auto top_container = [&](Kind want, const char* opname) -> Result<Ref> {
    size_t floor = marks_.empty() ? 0 : marks_.back();
    if (stack_.size() <= floor) return malformed(at, std::string(opname) + " without a target");
    Ref r = stack_.back();
    if (objs_[r].kind != want)
      return malformed(at, std::string(opname) + " on a value that is not a " + (want == Kind::dict ? "dict" : "list"));
    return r;
  };

  switch (op) {
    case 0x80: {  // PROTO
      ZT_ASSIGN_OR_RETURN(uint64_t v, take_le(1, "PROTO"));
      if (v < 2 || v > 5)
        return {ErrorCode::unsupported, "pickle protocol " + std::to_string(v) + " (only 2-5 are read)"};
      return {};
    }
    case 0x95: {  // FRAME: a length hint only
      ZT_ASSIGN_OR_RETURN(uint64_t n, take_le(8, "FRAME"));
      if (n > code_.size() - pos_) return malformed(at, "FRAME of " + std::to_string(n) + " bytes runs past the end");
      return {};
    }
    case '.':  // STOP
      stopped_ = true;
      return {};
    case '(':  // MARK
      if (marks_.size() >= kMaxMarkDepth)
        return {ErrorCode::limit_exceeded, "pickle: more than " + std::to_string(kMaxMarkDepth) + " nested MARKs"};
      marks_.push_back(stack_.size());
      return {};
    case '0':  // POP
      return pop().status();
    case '1':  // POP_MARK
      return pop_mark().status();
    case '2': {  // DUP
      if (stack_.empty()) return malformed(at, "DUP on an empty stack");
      return push(stack_.back());
    }
    case 'N': return new_obj(Obj{});
    case 0x88: case 0x89: {  // NEWTRUE, NEWFALSE
      Obj o;
      o.kind = Kind::boolean;
      o.i = op == 0x88;
      return new_obj(std::move(o));
    }
    case 'J': {
      ZT_ASSIGN_OR_RETURN(uint64_t v, take_le(4, "BININT"));
      return scalar_int(static_cast<int32_t>(static_cast<uint32_t>(v)));
    }
    case 'K': {
      ZT_ASSIGN_OR_RETURN(uint64_t v, take_le(1, "BININT1"));
      return scalar_int(static_cast<int64_t>(v));
    }
    case 'M': {
      ZT_ASSIGN_OR_RETURN(uint64_t v, take_le(2, "BININT2"));
      return scalar_int(static_cast<int64_t>(v));
    }
    case 0x8a: case 0x8b: {  // LONG1, LONG4: little-endian two's complement
      ZT_ASSIGN_OR_RETURN(uint64_t n, take_le(op == 0x8a ? 1 : 4, "LONG length"));
      if (n > 8) return {ErrorCode::unsupported, "pickle offset " + std::to_string(at) + ": integer of " + std::to_string(n) + " bytes (over 64 bits)"};
      ZT_ASSIGN_OR_RETURN(auto b, take(n, "LONG"));
      uint64_t v = 0;
      for (size_t i = n; i-- > 0;) v = (v << 8) | b[i];
      if (n > 0 && n < 8 && (b[n - 1] & 0x80)) v |= ~uint64_t{0} << (8 * n);  // sign-extend
      return scalar_int(static_cast<int64_t>(v));
    }
    case 'G': {  // BINFLOAT: big-endian double
      ZT_ASSIGN_OR_RETURN(auto b, take(8, "BINFLOAT"));
      uint64_t bits = 0;
      for (size_t i = 0; i < 8; ++i) bits = (bits << 8) | b[i];
      Obj o;
      o.kind = Kind::floating;
      std::memcpy(&o.f, &bits, 8);
      return new_obj(std::move(o));
    }
    case 'X': { ZT_ASSIGN_OR_RETURN(uint64_t n, take_le(4, "BINUNICODE length")); return text(n, Kind::text, "BINUNICODE"); }
    case 0x8c: { ZT_ASSIGN_OR_RETURN(uint64_t n, take_le(1, "SHORT_BINUNICODE length")); return text(n, Kind::text, "SHORT_BINUNICODE"); }
    case 0x8d: { ZT_ASSIGN_OR_RETURN(uint64_t n, take_le(8, "BINUNICODE8 length")); return text(n, Kind::text, "BINUNICODE8"); }
    case 'T': { ZT_ASSIGN_OR_RETURN(uint64_t n, take_le(4, "BINSTRING length")); return text(n, Kind::text, "BINSTRING"); }
    case 'U': { ZT_ASSIGN_OR_RETURN(uint64_t n, take_le(1, "SHORT_BINSTRING length")); return text(n, Kind::text, "SHORT_BINSTRING"); }
    case 'B': { ZT_ASSIGN_OR_RETURN(uint64_t n, take_le(4, "BINBYTES length")); return text(n, Kind::bytes, "BINBYTES"); }
    case 'C': { ZT_ASSIGN_OR_RETURN(uint64_t n, take_le(1, "SHORT_BINBYTES length")); return text(n, Kind::bytes, "SHORT_BINBYTES"); }
    case 0x8e: { ZT_ASSIGN_OR_RETURN(uint64_t n, take_le(8, "BINBYTES8 length")); return text(n, Kind::bytes, "BINBYTES8"); }
    case '}': { Obj o; o.kind = Kind::dict; return new_obj(std::move(o)); }
    case ']': { Obj o; o.kind = Kind::list; return new_obj(std::move(o)); }
    case ')': return make_tuple({});
    case 0x85: case 0x86: case 0x87: {  // TUPLE1..3
      size_t n = op - 0x84u;
      size_t floor = marks_.empty() ? 0 : marks_.back();
      if (stack_.size() < floor + n) return malformed(at, "TUPLE" + std::to_string(n) + ": stack underflow");
      std::vector<Ref> items(stack_.end() - static_cast<ptrdiff_t>(n), stack_.end());
      stack_.resize(stack_.size() - n);
      return make_tuple(std::move(items));
    }
    case 't': { ZT_ASSIGN_OR_RETURN(auto items, pop_mark()); return make_tuple(std::move(items)); }
    case 'l': {  // LIST
      ZT_ASSIGN_OR_RETURN(auto items, pop_mark());
      Obj o;
      o.kind = Kind::list;
      o.items = std::move(items);
      return new_obj(std::move(o));
    }
    case 'd': {  // DICT
      ZT_ASSIGN_OR_RETURN(auto items, pop_mark());
      if (items.size() % 2) return malformed(at, "DICT with an odd number of items");
      Obj o;
      o.kind = Kind::dict;
      for (size_t i = 0; i < items.size(); i += 2) o.entries.emplace_back(items[i], items[i + 1]);
      return new_obj(std::move(o));
    }
    case 'a': {  // APPEND
      ZT_ASSIGN_OR_RETURN(Ref v, pop());
      ZT_ASSIGN_OR_RETURN(Ref l, top_container(Kind::list, "APPEND"));
      objs_[l].items.push_back(v);
      return {};
    }
    case 'e': {  // APPENDS
      ZT_ASSIGN_OR_RETURN(auto items, pop_mark());
      ZT_ASSIGN_OR_RETURN(Ref l, top_container(Kind::list, "APPENDS"));
      auto& dst = objs_[l].items;
      dst.insert(dst.end(), items.begin(), items.end());
      return {};
    }
    case 's': {  // SETITEM
      ZT_ASSIGN_OR_RETURN(Ref v, pop());
      ZT_ASSIGN_OR_RETURN(Ref k, pop());
      ZT_ASSIGN_OR_RETURN(Ref d, top_container(Kind::dict, "SETITEM"));
      objs_[d].entries.emplace_back(k, v);
      return {};
    }
    case 'u': {  // SETITEMS
      ZT_ASSIGN_OR_RETURN(auto items, pop_mark());
      if (items.size() % 2) return malformed(at, "SETITEMS with an odd number of items");
      ZT_ASSIGN_OR_RETURN(Ref d, top_container(Kind::dict, "SETITEMS"));
      for (size_t i = 0; i < items.size(); i += 2) objs_[d].entries.emplace_back(items[i], items[i + 1]);
      return {};
    }
    case 'q': { ZT_ASSIGN_OR_RETURN(uint64_t i, take_le(1, "BINPUT")); return memo_put(i); }
    case 'r': { ZT_ASSIGN_OR_RETURN(uint64_t i, take_le(4, "LONG_BINPUT")); return memo_put(i); }
    case 0x94: return memo_put(memo_.size());  // MEMOIZE
    case 'h':
    case 'j': {  // BINGET, LONG_BINGET
      ZT_ASSIGN_OR_RETURN(uint64_t i, take_le(op == 'h' ? 1 : 4, "BINGET"));
      ZT_ASSIGN_OR_RETURN(Ref r, memo_get(i));
      return push(r);
    }
    case 'c': {  // GLOBAL "module\nname\n"
      ZT_ASSIGN_OR_RETURN(std::string module, take_line("GLOBAL module"));
      ZT_ASSIGN_OR_RETURN(std::string name, take_line("GLOBAL name"));
      ZT_ASSIGN_OR_RETURN(Ref g, find_global(*this, module, name));
      return push(g);
    }
    case 0x93: {  // STACK_GLOBAL
      ZT_ASSIGN_OR_RETURN(Ref name, pop());
      ZT_ASSIGN_OR_RETURN(Ref module, pop());
      if (objs_[name].kind != Kind::text || objs_[module].kind != Kind::text)
        return malformed(at, "STACK_GLOBAL needs two strings");
      ZT_ASSIGN_OR_RETURN(Ref g, find_global(*this, objs_[module].s, objs_[name].s));
      return push(g);
    }
    case 'R': {  // REDUCE
      ZT_ASSIGN_OR_RETURN(Ref args, pop());
      ZT_ASSIGN_OR_RETURN(Ref fn, pop());
      ZT_ASSIGN_OR_RETURN(Ref r, reduce(*this, fn, args));
      return push(r);
    }
    case 'b': {  // BUILD
      ZT_ASSIGN_OR_RETURN(Ref state, pop());
      size_t floor = marks_.empty() ? 0 : marks_.back();
      if (stack_.size() <= floor) return malformed(at, "BUILD without a target");
      return build(*this, stack_.back(), state);
    }
    case 'Q': {  // BINPERSID
      ZT_ASSIGN_OR_RETURN(Ref pid, pop());
      ZT_ASSIGN_OR_RETURN(Ref r, persistent_load(*this, pid));
      return push(r);
    }
    default: {
      const char* name = opcode_name(op);
      if (name)
        return {ErrorCode::unsupported, "pickle offset " + std::to_string(at) + ": opcode " + name +
                                            " is not allowed by the restricted unpickler"};
      return malformed(at, "unknown opcode " + hex_byte(op) +
                               (at == 0 ? " (not a pickle; the legacy pre-1.6 torch.save format is not read)" : ""));
    }
  }
}

}  // namespace zt::pickle
