// The op registry: every op the library knows, keyed by (domain, op type, opset range), with its
// kernel, its type/shape rule and its facts (ops/facts.h). It sits below the interpreter: exec
// runs the kernels, and verify and the passes ask what an op is without including the
// interpreter. Kernels and rules are function pointers over contexts declared by exec.
#pragma once
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "ops/facts.h"

namespace ofg::exec {
struct OpCtx;
struct InferCtx;
}  // namespace ofg::exec

namespace ofg::ops {

// An op's kernel (exec/interp.h's OpCtx).
using OpFn = void (*)(exec::OpCtx&);
// An op's type/shape rule (exec/infer_rules.h): fills the context's outputs; false when nothing
// can be said about them.
using InferFn = bool (*)(exec::InferCtx&);

struct OpEntry {
  std::string_view domain, op_type;  // static strings (the literals the op families register)
  int64_t since = 1, until = 1 << 30;  // inclusive opset range
  OpFn fn = nullptr;
  // float16/bfloat16 inputs are computed in float32 and float32 outputs are converted back;
  // exact for data movement and within half precision rounding for arithmetic.
  bool promote_half = true;
  InferFn infer = nullptr;  // type/shape rule (ignores the opset range: a rule reads opset() itself)
  uint32_t hash = 0;        // op_hash(op_type)
  OpFacts facts;
};

// The key of an op type in the registry's index: its length and four of its characters, mixed.
// A few instructions (hashing every character cost more than the rest of a lookup), enough to
// spread the op names over the table (a probe compares lengths first).
constexpr uint32_t op_hash(std::string_view op) {
  const size_t n = op.size();
  uint32_t h = static_cast<uint32_t>(n);
  if (n) {
    h ^= static_cast<uint32_t>(static_cast<uint8_t>(op[0])) << 8 ^
         static_cast<uint32_t>(static_cast<uint8_t>(op[n / 3])) << 14 ^
         static_cast<uint32_t>(static_cast<uint8_t>(op[n / 2])) << 20 ^
         static_cast<uint32_t>(static_cast<uint8_t>(op[n - 1])) << 25;
  }
  h ^= h >> 15;
  h *= 0x2c1b3c6du;
  h ^= h >> 12;
  return h;
}

// An op type as a family registers it, with its key. The constructors are constexpr and implicit,
// so for the literals of r.add("Relu", ...) the compiler computes the key: registering costs no
// hashing when a process starts.
#if defined(__GNUC__)
#define OFG_ALWAYS_INLINE __attribute__((always_inline))
#else
#define OFG_ALWAYS_INLINE
#endif
struct OpName {
  std::string_view name;
  uint32_t hash;
  // A literal: its length is the array's, and once inlined the hash folds to a constant.
  template <size_t N>
  OFG_ALWAYS_INLINE constexpr OpName(const char (&s)[N])  // NOLINT(runtime/explicit)
      : name(s, N - 1), hash(op_hash(std::string_view(s, N - 1))) {}
  constexpr OpName(std::string_view s) : name(s), hash(op_hash(s)) {}  // NOLINT(runtime/explicit)
};
#undef OFG_ALWAYS_INLINE

// All ops in one vector in registration order, found through an open-addressing hash index keyed
// by op type (a probe also compares the domain) built once when the registry is made: no sort and
// no string copies at start. Type inference looks an op up for every node of every optimize run,
// so the registry is built in every process; sorting its ~200 entries by name cost more than all
// the lookups of a small model.
class Registry {
 public:
  // The entry just added, to attach its rule and facts on the registration line:
  // r.add("Relu", op_relu).infer(rule).unary(ref, UnaryOp::Relu).activation(FusableAct::Plain).
  class Def {
   public:
    Def(std::vector<OpEntry>& v, size_t i) : v_(v), i_(i) {}
    Def& infer(InferFn f) { v_[i_].infer = f; return *this; }
    Def& traits(uint32_t t) { facts().traits |= t; return *this; }
    // Declared without a type/shape rule, on purpose (the registry test checks every other op has one).
    Def& no_rule() { return traits(kNoRule); }
    // A table's rule column: the rule, or null for an op declared rule-less.
    Def& rule_or_none(InferFn f) { return f ? infer(f) : no_rule(); }
    Def& commutative() { return traits(kCommutative); }
    Def& shape_only() { return traits(kShapeOnly); }
    // A unary elementwise op computed in double (no float32 kernel of its own).
    Def& unary(UnaryRef ref) {
      facts().elementwise = Elementwise::Unary;
      facts().unary_ref = ref;
      return *this;
    }
    // A unary elementwise op whose float32 path is kernel k with the parameters params reads from
    // the node (null: none): it may run inside an elementwise chain.
    Def& unary(UnaryRef ref, kernels::UnaryOp k, UnaryParams params = nullptr) {
      unary(ref);
      facts().has_kernel = facts().chainable = true;
      facts().unary_kernel = k;
      facts().unary_params = params;
      return *this;
    }
    // As above, kept out of elementwise chains (their fused run does not read its parameters).
    Def& unary_unchained(UnaryRef ref, kernels::UnaryOp k, UnaryParams params) {
      unary(ref, k, params);
      facts().chainable = false;
      return *this;
    }
    // A two-input broadcasting op whose float32 path is kernel k (chainable: the table's binary entries).
    Def& binary(BinaryRef ref, kernels::BinaryOp k) {
      facts().elementwise = Elementwise::Binary;
      facts().binary_ref = ref;
      facts().binary_kernel = k;
      facts().has_kernel = facts().chainable = true;
      return *this;
    }
    Def& comparison(BinaryRef ref) {
      facts().elementwise = Elementwise::Comparison;
      facts().binary_ref = ref;
      return *this;
    }
    // An activation that may end a Conv / BatchNormalization chain of the interpreter.
    Def& activation(FusableAct a) { facts().fusable_act = a; return *this; }
    // Output 0 holds input i's values unchanged (verify's tracing of integer inputs).
    Def& passes_input(int i) { facts().passes_input = static_cast<int8_t>(i); return *this; }

   private:
    OpFacts& facts() { return v_[i_].facts; }
    std::vector<OpEntry>& v_;
    size_t i_;
  };
  // The registry of every op family (built on first use; exec/interp.cpp registers the families).
  static Registry& instance();
  // op and domain must outlive the registry (string literals); call build_index() after the last add.
  Def add(OpName op, OpFn fn, int64_t since = 1, int64_t until = 1 << 30, bool promote_half = true,
          std::string_view domain = "");
  // An op known without a kernel (its rule and traits still count; the interpreter reports it
  // unsupported).
  Def declare(OpName op, std::string_view domain = "") { return add(op, nullptr, 1, 1 << 30, true, domain); }
  void build_index();
  // The kernel entry for a node at an opset (entries without a kernel are skipped; of several
  // entries of one op, the first registered that covers the opset).
  const OpEntry* find(std::string_view domain, std::string_view op, int64_t opset) const;
  // An op's type/shape rule whatever the opset, or null.
  InferFn rule(std::string_view domain, std::string_view op) const;
  // The OpTrait bits of an op (all its entries).
  uint32_t traits(std::string_view domain, std::string_view op) const;
  // The facts of an op's first entry whatever the opset (an op's entries share them); the facts
  // of no op (all defaults) when it is unknown.
  const OpFacts& facts(std::string_view domain, std::string_view op) const;
  std::vector<const OpEntry*> all() const;  // registration order, entries with a kernel
  std::vector<const OpEntry*> all_entries() const;  // registration order, declared ones too

 private:
  static constexpr uint32_t kNone = ~0u;
  // The first entry of (domain, op) in registration order, or kNone; next_[i] is the entry of the
  // same op registered after entry i.
  uint32_t first(std::string_view domain, std::string_view op) const;
  std::vector<OpEntry> entries_;
  std::unique_ptr<uint32_t[]> slots_;  // hash index: entry + 1 of each op's first entry, 0 = empty
  size_t slot_mask_ = 0;               // table size - 1 (a power of two)
  std::vector<uint32_t> next_;
};

}  // namespace ofg::ops
