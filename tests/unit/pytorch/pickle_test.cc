// The restricted unpickler on hand-written pickles: what it builds, what it
// refuses (with the global named), and that refusing runs nothing.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "../test_util.h"
#include "ztensor/pytorch_format.h"

namespace zt {
namespace {

using Bytes = std::string;

Bytes u(const std::string& s) {  // BINUNICODE
  Bytes b = "X";
  uint32_t n = static_cast<uint32_t>(s.size());
  b.append(reinterpret_cast<const char*>(&n), 4);
  return b + s;
}
Bytes short_u(const std::string& s) { return Bytes("\x8c") + static_cast<char>(s.size()) + s; }
Bytes glob(const std::string& m, const std::string& n) { return "c" + m + "\n" + n + "\n"; }
Bytes stack_glob(const std::string& m, const std::string& n) { return short_u(m) + short_u(n) + "\x93"; }
Bytes i32(int32_t v) {
  Bytes b = "J";
  b.append(reinterpret_cast<const char*>(&v), 4);
  return b;
}
Bytes proto(int p) { return Bytes("\x80") + static_cast<char>(p); }
Bytes k1(int v) { return Bytes("K") + static_cast<char>(v); }  // BININT1 (may be 0: no literal NUL)
// `metadata` is pickled after the hooks: "" for none (six arguments).
Bytes tensor_v2(const std::string& cls, const std::string& key, int numel, int offset, std::vector<int> size,
                std::vector<int> stride, const Bytes& metadata = "") {
  Bytes pid = "(" + u("storage") + glob("torch", cls) + u(key) + u("cpu") + i32(numel) + "tQ";
  auto tup = [](const std::vector<int>& xs) {
    Bytes b = "(";
    for (int x : xs) b += i32(x);
    return b + "t";
  };
  return glob("torch._utils", "_rebuild_tensor_v2") + "(" + pid + i32(offset) + tup(size) + tup(stride) + "\x89" +
         glob("collections", "OrderedDict") + ")R" + metadata + "tR";
}

Result<UnpickledCheckpoint> run(const Bytes& p) {
  return unpickle_restricted({reinterpret_cast<const uint8_t*>(p.data()), p.size()});
}

TEST(Unpickle, BuildsFlattenedTensorsAndAttributes) {
  Bytes p = proto(2) + "}(" + u("model") + "}(" + u("w") + tensor_v2("HalfStorage", "k0", 6, 2, {2, 2}, {2, 1}) +
            u("n") + "K\x07" + "u" + u("lr") + "G?\xb9\x99\x99\x99\x99\x99\x9a" + u("neg") + "\x8a\x01\xfe" + "u.";
  auto r = run(p);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->tensors.size(), 1u);
  const auto& t = r->tensors[0];
  EXPECT_EQ(t.name, "model.w");
  EXPECT_EQ(t.storage_key, "k0");
  EXPECT_EQ(t.dtype, DType::f16);
  EXPECT_EQ(t.storage_offset, 2u);
  EXPECT_EQ(t.storage_bytes, 12u);
  EXPECT_EQ(t.shape, (std::vector<uint64_t>{2, 2}));
  EXPECT_EQ(t.stride, (std::vector<uint64_t>{2, 1}));
  ASSERT_TRUE(r->attributes.is_map());
  EXPECT_EQ(r->attributes.find("model.n")->as_int64(), 7);
  EXPECT_DOUBLE_EQ(r->attributes.find("lr")->as_double(), 0.1);
  EXPECT_EQ(r->attributes.find("neg")->as_int64(), -2);
}

TEST(Unpickle, Protocol5FramesMemoizeAndStackGlobal) {
  Bytes body = "}\x94" + short_u("a") + "\x94" + stack_glob("torch._utils", "_rebuild_tensor_v3") + "\x94(" + "(" +
               u("storage") + stack_glob("torch.storage", "UntypedStorage") + u("0") + u("cpu") + "K\x04" + "tQ" +
               k1(0) + k1(4) + "\x85" + k1(1) + "\x85" + "\x89" + stack_glob("collections", "OrderedDict") + ")R" +
               stack_glob("torch", "float8_e4m3fn") + "tR" + "s.";
  Bytes frame = "\x95";
  uint64_t n = body.size();
  frame.append(reinterpret_cast<const char*>(&n), 8);
  auto r = run(proto(5) + frame + body);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->tensors.size(), 1u);
  EXPECT_EQ(r->tensors[0].dtype, DType::u8);
  EXPECT_EQ(r->tensors[0].type, LogicalType::f8_e4m3fn);
  EXPECT_EQ(r->tensors[0].torch_dtype, "float8_e4m3fn");
}

TEST(Unpickle, RefusesDangerousGlobalsByName) {
  struct Case {
    Bytes pickle;
    const char* name;
  } cases[] = {
      {proto(2) + glob("os", "system") + u("true") + "\x85R.", "os.system"},
      {proto(2) + glob("posix", "system") + u("true") + "\x85R.", "posix.system"},
      {proto(4) + stack_glob("builtins", "eval") + u("1+1") + "\x85R.", "builtins.eval"},
      {proto(4) + stack_glob("builtins", "exec") + u("pass") + "\x85R.", "builtins.exec"},
      {proto(4) + stack_glob("subprocess", "Popen") + u("true") + "\x85R.", "subprocess.Popen"},
      {proto(2) + glob("torch", "load") + ")R.", "torch.load"},
      {proto(2) + glob("torch._utils", "_rebuild_qtensor") + ")R.", "torch._utils._rebuild_qtensor"},
      {proto(2) + glob("torch", "QInt8Storage") + ".", "torch.QInt8Storage"},
      {proto(2) + glob("numpy.core.multiarray", "_reconstruct") + ")R.", "numpy.core.multiarray._reconstruct"},
      // Not even reached through a container value or the memo.
      {proto(2) + "]" + glob("os", "system") + "q\x01" "a.", "os.system"},
  };
  for (const auto& c : cases) {
    auto r = run(c.pickle);
    ASSERT_FALSE(r.ok()) << c.name;
    EXPECT_EQ(r.status().code(), ErrorCode::unsupported) << c.name;
    EXPECT_NE(r.status().message().find(std::string("refused global '") + c.name + "'"), std::string::npos)
        << r.status().message();
  }
}

TEST(Unpickle, MaliciousPickleHasNoSideEffect) {
  test::TempDir dir;
  const std::string marker = dir.file("pwned");
  const std::string cmd = "touch " + marker;
  const Bytes attacks[] = {
      proto(2) + glob("os", "system") + u(cmd) + "\x85R.",
      proto(4) + stack_glob("os", "system") + short_u(cmd) + "\x85R.",
      proto(2) + glob("builtins", "eval") + u("__import__('os').system('" + cmd + "')") + "\x85R.",
      proto(4) + stack_glob("subprocess", "Popen") + "(" + u("touch") + u(marker) + "l\x85R.",
      // Hidden as a state-dict value after a valid tensor.
      proto(2) + "}(" + u("w") + tensor_v2("FloatStorage", "0", 1, 0, {1}, {1}) + u("x") + glob("os", "system") +
          u(cmd) + "\x85Ru.",
  };
  for (const auto& a : attacks) {
    auto r = run(a);
    EXPECT_EQ(r.status().code(), ErrorCode::unsupported);
    EXPECT_NE(r.status().message().find("refused global"), std::string::npos) << r.status().message();
  }
  EXPECT_FALSE(std::filesystem::exists(marker));
  EXPECT_EQ(dir.entries(), 0u);
}

TEST(Unpickle, RefusesOpcodesOutsideTheSubset) {
  for (const Bytes& p : {proto(2) + glob("collections", "OrderedDict") + ")\x81.",  // NEWOBJ
                         proto(2) + "P0\n.",                                       // PERSID (text)
                         proto(2) + "\x8f.",                                       // EMPTY_SET
                         proto(2) + "i" + "os\nsystem\n."}) {                       // INST
    auto r = run(p);
    EXPECT_EQ(r.status().code(), ErrorCode::unsupported) << r.status().to_string();
  }
  EXPECT_EQ(run(proto(1) + "N.").status().code(), ErrorCode::unsupported);  // protocol 1
  EXPECT_EQ(run(proto(2) + "\xff.").status().code(), ErrorCode::malformed_manifest);
}

TEST(Unpickle, MalformedPicklesFailCleanly) {
  EXPECT_EQ(run("").status().code(), ErrorCode::malformed_manifest);
  EXPECT_EQ(run(proto(2) + "N").status().code(), ErrorCode::malformed_manifest);        // no STOP
  EXPECT_EQ(run(proto(2) + ".").status().code(), ErrorCode::malformed_manifest);        // empty stack
  EXPECT_EQ(run(proto(2) + "NN.").status().code(), ErrorCode::malformed_manifest);      // two values
  EXPECT_EQ(run(proto(2) + "s.").status().code(), ErrorCode::malformed_manifest);       // underflow
  EXPECT_EQ(run(proto(2) + "(Ns.").status().code(), ErrorCode::malformed_manifest);     // below MARK
  EXPECT_EQ(run(proto(2) + "h\x03.").status().code(), ErrorCode::malformed_manifest);   // memo unset
  EXPECT_EQ(run(proto(2) + "X\xff\xff\xff\xff.").status().code(), ErrorCode::malformed_manifest);
  EXPECT_EQ(run(proto(2) + "\x8d\xff\xff\xff\xff\xff\xff\xff\xff.").status().code(), ErrorCode::malformed_manifest);
  EXPECT_EQ(run(proto(2) + "cos").status().code(), ErrorCode::malformed_manifest);     // GLOBAL without newline
  EXPECT_EQ(run(proto(2) + "\x8a\x09" + Bytes(9, '\x01') + ".").status().code(), ErrorCode::unsupported);
  EXPECT_EQ(run(proto(2) + "N)R.").status().code(), ErrorCode::unsupported);            // call None
  // _rebuild_tensor_v2 with a non-storage first argument.
  EXPECT_EQ(run(proto(2) + glob("torch._utils", "_rebuild_tensor_v2") + "(N" + k1(0) + ")))\x89Nt" + "R.").status().code(),
            ErrorCode::malformed_manifest);
}

TEST(Unpickle, SelfReferenceAndDeepNestingHitLimits) {
  // l = []; l.append(l): a cycle through the memo.
  auto cyc = run(proto(2) + "}" + u("l") + "]q\x01" "h\x01" "as.");
  EXPECT_EQ(cyc.status().code(), ErrorCode::limit_exceeded) << cyc.status().to_string();
  Bytes deep = proto(2) + "}" + u("d");
  for (int i = 0; i < 200; ++i) deep += "]";
  for (int i = 0; i < 199; ++i) deep += "a";
  auto r = run(deep + "s.");
  EXPECT_EQ(r.status().code(), ErrorCode::limit_exceeded);
  // A diamond chain (list i holds list i-1 twice) has 2^60 paths; the walk
  // budget stops it instead of running for ever.
  Bytes dag = proto(2) + "}" + u("x") + "]q" + Bytes(1, '\0') + "0";
  for (int i = 1; i < 60; ++i)
    dag += "]q" + Bytes(1, static_cast<char>(i)) + "(h" + Bytes(1, static_cast<char>(i - 1)) + "h" +
           Bytes(1, static_cast<char>(i - 1)) + "e0";
  auto d = run(dag + "h" + Bytes(1, static_cast<char>(59)) + "s.");
  EXPECT_EQ(d.status().code(), ErrorCode::limit_exceeded) << d.status().to_string();
}

TEST(Unpickle, DuplicateFlattenedNamesAreRefused) {
  // {'a.b': 1, 'a': {'b': 2}} -> two leaves named 'a.b'.
  auto r = run(proto(2) + "}(" + u("a.b") + "K\x01" + u("a") + "}" + u("b") + "K\x02" + "su.");
  EXPECT_EQ(r.status().code(), ErrorCode::invalid_structure);
  EXPECT_NE(r.status().message().find("'a.b'"), std::string::npos);
}

TEST(Unpickle, BareTensorRootIsNamedTensor) {
  auto r = run(proto(2) + tensor_v2("LongStorage", "0", 3, 0, {3}, {1}) + ".");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->tensors.size(), 1u);
  EXPECT_EQ(r->tensors[0].name, "tensor");
  EXPECT_EQ(r->tensors[0].storage_bytes, 24u);
}

// torch.save of x.conj() / torch._neg_view(x): base storage plus a metadata
// dict {"conj": True, "neg": True} (the 7th argument of _rebuild_tensor_v2).
TEST(Unpickle, ConjAndNegViewBitsAreRead) {
  Bytes bits = "}(" + u("neg") + "\x88" + u("conj") + "\x88" + "u";
  auto r = run(proto(2) + "}" + u("c") + tensor_v2("ComplexFloatStorage", "0", 2, 0, {2}, {1}, bits) + "s" + u("p") +
               tensor_v2("FloatStorage", "1", 2, 0, {2}, {1}, "}") + "s.");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->tensors.size(), 2u);
  EXPECT_TRUE(r->tensors[0].conj);
  EXPECT_TRUE(r->tensors[0].neg);
  EXPECT_FALSE(r->tensors[1].conj);
  EXPECT_FALSE(r->tensors[1].neg);
}

TEST(Unpickle, UnknownViewBitIsRefusedNamingTheTensor) {
  Bytes bits = "}" + u("zerotensor") + "\x88" + "s";
  auto r = run(proto(2) + "}" + u("z") + tensor_v2("FloatStorage", "0", 2, 0, {2}, {1}, bits) + "s.");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::unsupported);
  EXPECT_NE(r.status().message().find("'z'"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("zerotensor"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace zt
