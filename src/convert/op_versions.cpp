// Introduction opsets from the ONNX operator changelog (ops of the default domain new after
// opset 7), and the two ops replaced by others.
#include "convert/op_versions.h"

#include <cstdint>
#include <string_view>

namespace ofg::convert {
namespace {

struct Row {
  std::string_view op;
  int64_t since, until;
};
constexpr int64_t kNow = INT64_MAX;

constexpr Row kRows[] = {
    {"Expand", 8, kNow}, {"Max", 1, kNow}, {"Scan", 8, kNow},
    {"Shrink", 9, kNow}, {"NonZero", 9, kNow}, {"Where", 9, kNow}, {"Erf", 9, kNow}, {"OneHot", 9, kNow},
    {"EyeLike", 9, kNow}, {"MaxUnpool", 9, kNow}, {"IsNaN", 9, kNow}, {"Sign", 9, kNow}, {"Sinh", 9, kNow},
    {"Cosh", 9, kNow}, {"Asinh", 9, kNow}, {"Acosh", 9, kNow}, {"Atanh", 9, kNow}, {"Compress", 9, kNow},
    {"ConstantOfShape", 9, kNow}, {"MeanVarianceNormalization", 9, kNow}, {"TfIdfVectorizer", 9, kNow},
    {"Scatter", 9, 10},
    {"Upsample", 7, 9},
    {"StringNormalizer", 10, kNow}, {"IsInf", 10, kNow}, {"Mod", 10, kNow}, {"ThresholdedRelu", 10, kNow},
    {"QuantizeLinear", 10, kNow}, {"DequantizeLinear", 10, kNow}, {"QLinearConv", 10, kNow},
    {"QLinearMatMul", 10, kNow}, {"ConvInteger", 10, kNow}, {"MatMulInteger", 10, kNow},
    {"NonMaxSuppression", 10, kNow}, {"ReverseSequence", 10, kNow}, {"RoiAlign", 10, kNow}, {"Resize", 10, kNow},
    {"Range", 11, kNow}, {"Round", 11, kNow}, {"CumSum", 11, kNow}, {"Det", 11, kNow},
    {"DynamicQuantizeLinear", 11, kNow}, {"GatherElements", 11, kNow}, {"GatherND", 11, kNow},
    {"ScatterElements", 11, kNow}, {"ScatterND", 11, kNow}, {"SequenceAt", 11, kNow},
    {"SequenceConstruct", 11, kNow}, {"SequenceEmpty", 11, kNow}, {"SequenceErase", 11, kNow},
    {"SequenceInsert", 11, kNow}, {"SequenceLength", 11, kNow}, {"SplitToSequence", 11, kNow},
    {"ConcatFromSequence", 11, kNow}, {"Unique", 11, kNow}, {"BitShift", 11, kNow},
    {"Celu", 12, kNow}, {"Einsum", 12, kNow}, {"GreaterOrEqual", 12, kNow}, {"LessOrEqual", 12, kNow},
    {"NegativeLogLikelihoodLoss", 12, kNow}, {"SoftmaxCrossEntropyLoss", 12, kNow},
    {"HardSwish", 14, kNow}, {"Trilu", 14, kNow},
    {"Bernoulli", 15, kNow}, {"CastLike", 15, kNow}, {"Optional", 15, kNow}, {"OptionalHasElement", 15, kNow},
    {"OptionalGetElement", 15, kNow},
    {"GridSample", 16, kNow},
    {"LayerNormalization", 17, kNow}, {"BlackmanWindow", 17, kNow}, {"HannWindow", 17, kNow},
    {"HammingWindow", 17, kNow}, {"DFT", 17, kNow}, {"MelWeightMatrix", 17, kNow}, {"STFT", 17, kNow},
    {"SequenceMap", 17, kNow},
    {"BitwiseAnd", 18, kNow}, {"BitwiseOr", 18, kNow}, {"BitwiseXor", 18, kNow}, {"BitwiseNot", 18, kNow},
    {"CenterCropPad", 18, kNow}, {"Col2Im", 18, kNow}, {"GroupNormalization", 18, kNow}, {"Mish", 18, kNow},
    {"DeformConv", 19, kNow},
    {"AffineGrid", 20, kNow}, {"Gelu", 20, kNow}, {"ImageDecoder", 20, kNow}, {"RegexFullMatch", 20, kNow},
    {"StringConcat", 20, kNow}, {"StringSplit", 20, kNow},
    {"Attention", 23, kNow}, {"RotaryEmbedding", 23, kNow}, {"RMSNormalization", 23, kNow},
    {"TensorScatter", 24, kNow}, {"Swish", 24, kNow},
    {"CausalConvWithState", 27, kNow}, {"LinearAttention", 27, kNow},
    {"SwiGLU", 28, kNow},
};

}  // namespace

OpRange op_range(std::string_view op) {
  for (const Row& r : kRows)
    if (r.op == op) return {r.since, r.until};
  return {1, kNow};
}

}  // namespace ofg::convert
