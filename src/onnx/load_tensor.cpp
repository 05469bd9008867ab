// TensorProto: one bounds-checked decoder for the tensors of models and of .pb files.
#include <algorithm>
#include <climits>
#include <cstring>

#include "ir/int128.h"
#include "onnx/loader.h"

namespace ofg::load {

Tensor* TensorReader::tensor(Bytes b) {
  Tensor* t = a_.make<Tensor>();
  t->source = b;
  TensorFields fields;
  read_fields(b, t, fields);
  store_data(t, fields);
  return t;
}

void TensorReader::read_fields(Bytes b, Tensor* t, TensorFields& fields) {
  Reader r(b, &ctx_);
  ArenaVec<int64_t>& dims = fields.dims;
  bool& has_raw = fields.has_raw;
  bool& external = fields.external;
  std::vector<Bytes>& packed_fixed = fields.packed_fixed;
  std::vector<uint64_t>& varints = fields.varints;
  size_t& fixed_elem = fields.fixed_elem;
  int& typed_fields = fields.typed_fields;
  uint32_t& typed_field = fields.typed_field;
  ArenaVec<Bytes>& strings = fields.strings;
  auto note_typed = [&](uint32_t f) {
    if (typed_field != f) {
      ++typed_fields;
      typed_field = f;
    }
  };
  uint32_t f, wt;
  while (r.next(f, wt)) {
    switch (f) {
      case pb::TensorProto::kDimsFieldNumber:
        if (!r.repeated_varint(wt, [&](uint64_t v) { dims.push(a_, static_cast<int64_t>(v)); })) break;
        if (dims.size > kMaxRank) fail(Status::kLimit, ctx_ + ": tensor of rank above " + std::to_string(kMaxRank));
        continue;
      case pb::TensorProto::kDataTypeFieldNumber:
        if (int_field(r, wt, t->data_type, t->has_data_type)) continue;
        break;
      case pb::TensorProto::kNameFieldNumber:
        if (str_field(r, wt, t->name)) continue;
        break;
      case pb::TensorProto::kDocStringFieldNumber:
        if (str_field(r, wt, t->doc_string)) continue;
        break;
      case pb::TensorProto::kRawDataFieldNumber:
        if (wt != kLengthDelimited) break;
        t->data = r.length_delimited();
        has_raw = true;
        continue;
      case pb::TensorProto::kFloatDataFieldNumber:
      case pb::TensorProto::kDoubleDataFieldNumber: {
        size_t width = f == pb::TensorProto::kFloatDataFieldNumber ? 4 : 8;
        if (wt == kLengthDelimited) {
          Bytes chunk = r.length_delimited();
          if (chunk.size % width) invalid("tensor '" + name_of(t->name) + "': packed data length is not a multiple of " + std::to_string(width));
          packed_fixed.push_back(chunk);
        } else if ((width == 4 && wt == kFixed32) || (width == 8 && wt == kFixed64)) {
          const uint8_t* start = r.position();
          width == 4 ? (void)r.fixed32() : (void)r.fixed64();
          packed_fixed.push_back(Bytes{start, width});
        } else {
          break;
        }
        fixed_elem = width;
        note_typed(f);
        continue;
      }
      case pb::TensorProto::kInt32DataFieldNumber:
      case pb::TensorProto::kInt64DataFieldNumber:
      case pb::TensorProto::kUint64DataFieldNumber:
        if (!r.repeated_varint(wt, [&](uint64_t v) { varints.push_back(v); })) break;
        note_typed(f);
        continue;
      case pb::TensorProto::kStringDataFieldNumber:
        if (wt != kLengthDelimited) break;
        strings.push(a_, r.length_delimited());
        note_typed(f);
        continue;
      case pb::TensorProto::kDataLocationFieldNumber:
        if (wt != kVarint) break;
        external = r.varint() == pb::TensorProto_DataLocation_EXTERNAL;
        t->extra.push(a_, r.raw_field(f));  // kept as written; the storage kind is modelled too
        continue;
      default:
        break;
    }
    keep(t->extra, r, f, wt);
  }
  t->dims.data = dims.data;
  t->dims.size = dims.size;
  t->strings.data = strings.data;
  t->strings.size = strings.size;
}

void TensorReader::store_data(Tensor* t, const TensorFields& fields) {
  const ArenaVec<int64_t>& dims = fields.dims;
  const bool has_raw = fields.has_raw, external = fields.external;
  const int typed_fields = fields.typed_fields;
  const ArenaVec<Bytes>& strings = fields.strings;
  const std::string where = "tensor '" + name_of(t->name) + "'";
  // A tensor with a 0 among its dims is empty whatever the others are, in any order (a pass that
  // folds a Transpose of it moves them): only the product of a non-empty tensor's dims is checked.
  bool empty = false;
  for (int64_t d : dims) {
    if (d < 0) invalid(where + " has a negative dimension " + std::to_string(d));
    empty = empty || d == 0;
  }
  int64_t numel = empty ? 0 : 1;
  for (int64_t d : dims) {
    if (empty) break;
    if (numel > INT64_MAX / d) invalid(where + ": the product of its dimensions overflows");
    numel *= d;
  }
  if (!t->has_data_type || t->data_type == kUndefined) invalid(where + " has no data type");
  size_t bits = dtype_bits(t->data_type);
  if (bits == 0 && t->data_type != kString) invalid(where + " has unknown data type " + std::to_string(t->data_type));
  if (typed_fields > 1 || (typed_fields && has_raw) || (external && (has_raw || typed_fields)))
    invalid(where + " stores its data in more than one field");

  // Bytes the data must have, checked against the bytes present before anything is made.
  uint128 want_bits = static_cast<uint128>(numel) * bits;
  if (want_bits > (static_cast<uint128>(1) << 62)) invalid(where + " is larger than any file can hold");
  size_t want = static_cast<size_t>((want_bits + 7) / 8);

  if (t->data_type == kString) {
    if (numel != static_cast<int64_t>(strings.size))
      invalid(where + " has " + std::to_string(strings.size) + " strings for " + std::to_string(numel) + " elements");
    t->storage = Tensor::kTyped;
  } else if (external) {
    t->storage = Tensor::kExternal;
    if (!external_) invalid(where + " uses external data, but the model was loaded from memory without an external-data folder");
    t->data = external_->resolve(*t, m_, want, where);
    m_.loaded_external_data = true;
  } else if (has_raw) {
    t->storage = Tensor::kRaw;
    if (t->data.size != want)
      invalid(where + ": raw_data has " + std::to_string(t->data.size) + " bytes, its type and dims need " + std::to_string(want));
  } else if (typed_fields) {
    t->storage = Tensor::kTyped;
    decode_typed(t, where, want, fields.packed_fixed, fields.fixed_elem, fields.varints, fields.typed_field);
  } else {
    t->storage = Tensor::kTyped;
    if (numel != 0) invalid(where + " has " + std::to_string(numel) + " elements but no data");
  }
}

void TensorReader::decode_typed(Tensor* t, const std::string& where, size_t want, const std::vector<Bytes>& fixed,
                                size_t fixed_elem, const std::vector<uint64_t>& varints, uint32_t field) {
  if (fixed_elem) {
    size_t total = 0;
    for (Bytes c : fixed) total += c.size;
    if (total != want) invalid(where + ": typed data has " + std::to_string(total) + " bytes, its type and dims need " + std::to_string(want));
    if (fixed.size() == 1) {
      t->data = fixed[0];
      return;
    }
    uint8_t* out = static_cast<uint8_t*>(a_.allocate(total ? total : 1, 64));
    size_t at = 0;
    for (Bytes c : fixed) {
      std::memcpy(out + at, c.data, c.size);
      at += c.size;
    }
    t->data = Bytes{out, total};
    return;
  }
  // Varint fields: each value holds one element (int32_data packs sub-byte types per byte).
  size_t bits = dtype_bits(t->data_type);
  size_t width = bits >= 8 ? bits / 8 : 1;
  if (field == pb::TensorProto::kInt32DataFieldNumber && bits == 64) width = 8;
  if (varints.size() * width != want && !(bits < 8 && varints.size() == want))
    invalid(where + ": typed data has " + std::to_string(varints.size()) + " values, its type and dims need " +
            std::to_string(bits < 8 ? want : want / width));
  uint8_t* out = static_cast<uint8_t*>(a_.allocate(want ? want : 1, 64));
  for (size_t i = 0; i < varints.size(); ++i) {
    uint64_t v = varints[i];
    // Little-endian truncation to the element width; elements wider than a varint (128-bit
    // types) get its 8 bytes and zeros.
    std::memcpy(out + i * width, &v, std::min<size_t>(width, 8));
    if (width > 8) std::memset(out + i * width + 8, 0, width - 8);
  }
  t->data = Bytes{out, want};
}

}  // namespace ofg::load
