// The op registry's index and lookups (the registration of the families is exec's:
// Registry::instance in exec/interp.cpp).
#include "ops/registry.h"

#include <cstring>

namespace ofg::ops {

Registry::Def Registry::add(OpName op, OpFn fn, int64_t since, int64_t until, bool promote_half,
                            std::string_view domain) {
  OpEntry e;
  e.domain = domain;
  e.op_type = op.name;
  e.hash = op.hash;
  e.since = since;
  e.until = until;
  e.fn = fn;
  e.promote_half = promote_half;
  entries_.push_back(e);
  return Def(entries_, entries_.size() - 1);
}

void Registry::build_index() {
  size_t size = 16;
  while (size < 2 * entries_.size()) size *= 2;  // at most half full: short probe runs
  slots_.reset(new uint32_t[size]);
  std::memset(slots_.get(), 0, size * sizeof(uint32_t));
  slot_mask_ = size - 1;
  next_.assign(entries_.size(), kNone);
  // Backwards, each entry put before the ones of its op already indexed: the chains end up in
  // registration order.
  for (size_t i = entries_.size(); i-- > 0;) {
    const OpEntry& e = entries_[i];
    for (size_t k = e.hash & slot_mask_;; k = (k + 1) & slot_mask_) {
      uint32_t& slot = slots_[k];
      if (slot != 0 && (entries_[slot - 1].op_type != e.op_type || entries_[slot - 1].domain != e.domain)) continue;
      if (slot != 0) next_[i] = slot - 1;
      slot = static_cast<uint32_t>(i + 1);
      break;
    }
  }
}

uint32_t Registry::first(std::string_view domain, std::string_view op) const {
  if (!slots_) return kNone;
  if (domain == "ai.onnx") domain = std::string_view();
  const uint32_t h = op_hash(op);
  for (size_t k = h & slot_mask_;; k = (k + 1) & slot_mask_) {
    uint32_t slot = slots_[k];
    if (slot == 0) return kNone;
    const OpEntry& e = entries_[slot - 1];
    if (e.hash == h && e.op_type == op && e.domain == domain) return slot - 1;
  }
}

const OpEntry* Registry::find(std::string_view domain, std::string_view op, int64_t opset) const {
  for (uint32_t i = first(domain, op); i != kNone; i = next_[i]) {
    const OpEntry& e = entries_[i];
    if (e.fn && opset >= e.since && opset <= e.until) return &e;
  }
  return nullptr;
}

InferFn Registry::rule(std::string_view domain, std::string_view op) const {
  for (uint32_t i = first(domain, op); i != kNone; i = next_[i])
    if (entries_[i].infer) return entries_[i].infer;
  return nullptr;
}

uint32_t Registry::traits(std::string_view domain, std::string_view op) const {
  uint32_t t = 0;
  for (uint32_t i = first(domain, op); i != kNone; i = next_[i]) t |= entries_[i].facts.traits;
  return t;
}

std::vector<const OpEntry*> Registry::all() const {
  std::vector<const OpEntry*> out;
  for (const OpEntry& e : entries_)
    if (e.fn) out.push_back(&e);
  return out;
}

const OpFacts& Registry::facts(std::string_view domain, std::string_view op) const {
  static const OpFacts kUnknown;
  const uint32_t i = first(domain, op);
  return i == kNone ? kUnknown : entries_[i].facts;
}

std::vector<const OpEntry*> Registry::all_entries() const {
  std::vector<const OpEntry*> out;
  for (const OpEntry& e : entries_) out.push_back(&e);
  return out;
}

}  // namespace ofg::ops
