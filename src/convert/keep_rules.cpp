#include "convert/keep_rules.h"

#include <cstring>

#include "exec/interp.h"
#include "ops/registry.h"

namespace ofg::convert {

namespace {

// Ops registered without promote_half whose kernels move or make float16/bfloat16 data as they
// are (data movement, casts, constants): the interpreter runs them on half tensors as they are.
// Every other op without promote_half (quantization, sequences, control flow, ...) computes only
// in the types its kernel knows, so its node stays float32.
bool native_half(std::string_view op) {
  static const char* const kOps[] = {"Cast", "CastLike", "Constant", "ConstantOfShape", "EyeLike", "Gather",
                                     "GatherElements", "GatherND", "Trilu", "Dropout", "Identity", "Concat",
                                     "Slice", "Split", "Expand", "Tile", "Transpose", "DepthToSpace",
                                     "SpaceToDepth", "Shape", "Size"};
  for (const char* o : kOps)
    if (op == o) return true;
  return false;
}

// Default-domain ops whose type constraints admit bfloat16, with the first opset that does (ONNX
// added bfloat16 op by op, most at opset 13, convolutions and normalizations only at 22). The op
// registry records kernels, not the spec's type lists, hence this table. An op not listed keeps
// float32 under a bfloat16 conversion.
struct Since {
  const char* op;
  int64_t opset;
};
const Since kBfloat16Since[] = {
    {"Abs", 13}, {"Add", 13}, {"ArgMax", 13}, {"ArgMin", 13}, {"AveragePool", 22}, {"BatchNormalization", 15},
    {"Cast", 13}, {"CastLike", 15}, {"Ceil", 13}, {"Clip", 13}, {"Concat", 13}, {"Constant", 13},
    {"ConstantOfShape", 20}, {"Conv", 22}, {"ConvTranspose", 22}, {"Cos", 22}, {"CumSum", 14}, {"Div", 13},
    {"Dropout", 13}, {"Einsum", 12}, {"Elu", 22}, {"Equal", 13}, {"Erf", 13}, {"Exp", 13}, {"Expand", 13},
    {"Flatten", 13}, {"Floor", 13}, {"Gather", 13}, {"GatherElements", 13}, {"GatherND", 13}, {"Gelu", 20},
    {"Gemm", 13}, {"GlobalAveragePool", 22}, {"GlobalMaxPool", 22}, {"Greater", 13}, {"GreaterOrEqual", 16},
    {"HardSigmoid", 22}, {"HardSwish", 22}, {"Identity", 13}, {"InstanceNormalization", 22},
    {"LayerNormalization", 17}, {"LeakyRelu", 16}, {"Less", 13}, {"LessOrEqual", 16}, {"Log", 13},
    {"LogSoftmax", 13}, {"MatMul", 13}, {"Max", 13}, {"MaxPool", 22}, {"Mean", 13}, {"Min", 13}, {"Mish", 22},
    {"Mul", 13}, {"Neg", 13}, {"Pad", 13}, {"Pow", 15} /* its exponent (T1): 15 */, {"PRelu", 16}, {"Range", 1 << 30}, {"Reciprocal", 13},
    {"ReduceL2", 13}, {"ReduceMax", 13}, {"ReduceMean", 13}, {"ReduceMin", 13}, {"ReduceProd", 13},
    {"ReduceSum", 13}, {"ReduceSumSquare", 13}, {"Relu", 14}, {"Reshape", 13}, {"Resize", 19}, {"Round", 22},
    {"Shape", 13}, {"Sigmoid", 13}, {"Sign", 13}, {"Sin", 22}, {"Size", 13}, {"Slice", 13}, {"Softmax", 13},
    {"Softplus", 22}, {"Split", 13}, {"Sqrt", 13}, {"Squeeze", 13}, {"Sub", 13}, {"Sum", 13}, {"Tanh", 13},
    {"Tile", 13}, {"TopK", 24}, {"Transpose", 13}, {"Unsqueeze", 13}, {"Where", 16},
};

}  // namespace

std::string keep_reason(const Model& m, const Node& n, int32_t target) {
  for (const Attribute& a : n.attributes)
    if (a.g || a.graphs.size) return "interpreter: holds subgraphs, which are not converted";
  std::string_view domain = m.str(n.domain);
  std::string_view op = m.str(n.op_type);
  const int64_t opset = m.opset_version(domain);
  const ops::OpEntry* e = ops::Registry::instance().find(domain, op, opset);
  if (!e) return "interpreter: no kernel for " + std::string(op) + " at opset " + std::to_string(opset);
  if (!e->promote_half && !native_half(op)) return "interpreter: " + std::string(op) + " does not run in half precision";
  if (op == "Range") return "spec: Range's output length is computed from its values (half rounding could change it)";
  if (target == kBfloat16 && is_default_domain(m, n.domain)) {
    for (const Since& s : kBfloat16Since)
      if (op == s.op) {
        if (opset >= s.opset) return "";
        return "spec: " + std::string(op) + " admits bfloat16 only from opset " + std::to_string(s.opset) +
               " (model: " + std::to_string(opset) + ")";
      }
    return "spec: " + std::string(op) + " is not known to admit bfloat16";
  }
  return "";
}

bool float32_only_input(const Model& m, const Node& n, uint32_t index) {
  if (!is_default_domain(m, n.domain)) return false;
  std::string_view op = m.str(n.op_type);
  if (op == "Resize") return index == 2;  // scales: tensor(float)
  if (op == "Upsample") return index == 1;
  return false;
}

}  // namespace ofg::convert
