# onnxforge target profile (format: docs/targets.md). One directive per line, '#' starts a comment.
#   target NAME | title TEXT | source TEXT | url URL | version TEXT | note TEXT (repeatable; not compiled in)
#   opset LO HI          default-domain opset range the target accepts (HI '*' = no upper limit)
#   typeset NAME=T,..    a named set of element types, usable in types= lists below
#   op [DOMAIN:]NAME RULE...   an op the target accepts (ops not listed are not supported); rules:
#     since=N until=N    opset range of this op        types=T,..  types@I=T,..  element types of input 0 / input I
#     rank=LO-HI         rank of input 0               const=I,..  inputs that must be constant (initializer or Constant)
#     zero=I             input I, when given, must be a constant of zeros (zero-point rules)
#     attr:NAME=V,..     allowed values of an attribute (checked when the node sets it)
target openvino
title Intel OpenVINO ONNX frontend
source openvino src/frontends/onnx/docs/supported_ops.md, "ONNX Operations Supported by OpenVINO ONNX Frontend"
url https://github.com/openvinotoolkit/openvino/blob/master/src/frontends/onnx/docs/supported_ops.md
version master at commit 0ae60f0 (the copy in the search index; the file carries no date)
note Default-domain rows with a Supported Version are listed; since= is the lowest version the
note frontend implements. Rows with an empty Supported Version (Bernoulli, DeformConv, Det,
note ImageDecoder, LpPool, MaxUnpool, MelWeightMatrix, Optional*, RegexFullMatch, SequenceMap,
note StringConcat, StringNormalizer, StringSplit, TfIdfVectorizer) are not supported. The document
note states no overall opset range, so none is checked. Its com.microsoft rows are not transcribed:
note ops of other domains are reported as not supported. The Sequence* ops and ConcatFromSequence
note are supported in some patterns only there.
op ATen
op Abs
op Acos since=7
op Acosh since=9
op Add
op Affine
op AffineGrid since=20
op And
op ArgMax
op ArgMin
op Asin since=7
op Asinh since=9
op Atan since=7
op Atanh since=9
op Attention since=23
op AveragePool
op BatchNormalization
op BitShift since=11
op BitwiseAnd since=18
op BitwiseNot since=18
op BitwiseOr since=18
op BitwiseXor since=18
op BlackmanWindow since=17
op Cast
op CastLike since=15
op Ceil
op Celu since=12
op CenterCropPad since=18
op Clip
op Col2Im since=18
op Compress since=9
op Concat
op ConcatFromSequence since=11
op Constant
op ConstantFill
op ConstantOfShape since=9
op Conv
op ConvInteger since=10
op ConvTranspose
op Cos since=7
op Cosh since=9
op Crop
op CumSum since=11
op DFT since=17
op DepthToSpace
op DequantizeLinear since=10
op Div
op Dropout
op DynamicQuantizeLinear since=11
op Einsum since=12
op Elu
op Equal
op Erf since=9
op Exp
op Expand since=8
op EyeLike since=9
op Flatten
op Floor
op GRU
op Gather
op GatherElements since=11
op GatherND since=11
op Gelu since=20
op Gemm
op GlobalAveragePool
op GlobalLpPool
op GlobalMaxPool
op Greater
op GreaterOrEqual since=12
op GridSample since=16
op GroupNormalization since=18
op HammingWindow since=17
op HannWindow since=17
op HardSigmoid
op HardSwish since=14
op Hardmax
op Identity
op If
op ImageScaler
op InstanceNormalization
op IsFinite
op IsInf since=10
op IsNaN since=9
op LRN
op LSTM
op LayerNormalization since=17
op LeakyRelu
op Less
op LessOrEqual since=12
op Log
op LogSoftmax
op Loop
op LpNormalization
op MatMul
op MatMulInteger since=10
op Max
op MaxPool
op MaxRoiPool
op Mean
op MeanVarianceNormalization
op Min
op Mish since=18
op Mod since=10
op Mul
op Multinomial since=7
op Neg
op NegativeLogLikelihoodLoss since=12
op NonMaxSuppression since=10
op NonZero since=9
op Not
op OneHot since=9
op Or
op PRelu
op Pad
op Pow
op QLinearConv since=10
op QLinearMatMul since=10
op QuantizeLinear since=10
op RMSNormalization since=23
op RNN
op RandomNormal
op RandomNormalLike
op RandomUniform
op RandomUniformLike
op Range since=11
op Reciprocal
op ReduceL1
op ReduceL2
op ReduceLogSum
op ReduceLogSumExp
op ReduceMax
op ReduceMean
op ReduceMin
op ReduceProd
op ReduceSum
op ReduceSumSquare
op Relu
op Reshape
op Resize since=10
op ReverseSequence since=10
op RoiAlign since=10
op RotaryEmbedding since=23
op Round since=11
op STFT since=17
op Scan since=8
op Scatter since=9
op ScatterElements since=11
op ScatterND since=11
op Selu
op SequenceAt since=11
op SequenceConstruct since=11
op SequenceEmpty since=11
op SequenceErase since=11
op SequenceInsert since=11
op SequenceLength since=11
op Shape
op Shrink since=9
op Sigmoid
op Sign since=9
op SimplifiedLayerNormalization
op Sin since=7
op Sinh since=9
op Size
op Slice
op Softmax
op SoftmaxCrossEntropyLoss since=12
op Softplus
op Softsign
op SpaceToDepth
op Split
op SplitToSequence since=11
op Sqrt
op Squeeze
op Sub
op Sum
op Tan since=7
op Tanh
op ThresholdedRelu since=10
op Tile
op TopK
op Transpose
op Trilu since=14
op Unique since=11
op Unsqueeze
op Upsample
op Where since=9
op Xor
