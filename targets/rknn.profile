# onnxforge target profile (format: docs/targets.md). One directive per line, '#' starts a comment.
#   target NAME | title TEXT | source TEXT | url URL | version TEXT | note TEXT (repeatable; not compiled in)
#   opset LO HI          default-domain opset range the target accepts (HI '*' = no upper limit)
#   typeset NAME=T,..    a named set of element types, usable in types= lists below
#   op [DOMAIN:]NAME RULE...   an op the target accepts (ops not listed are not supported); rules:
#     since=N until=N    opset range of this op        types=T,..  types@I=T,..  element types of input 0 / input I
#     rank=LO-HI         rank of input 0               const=I,..  inputs that must be constant (initializer or Constant)
#     zero=I             input I, when given, must be a constant of zeros (zero-point rules)
#     attr:NAME=V,..     allowed values of an attribute (checked when the node sets it)
target rknn
title Rockchip RKNN-Toolkit2 ONNX import
source rknn-toolkit2 doc/RKNNToolKit2_OP_Support-v2.1.0.md, "ONNX OPs supported by RKNN Toolkit2"
url https://github.com/airockchip/rknn-toolkit2/blob/master/doc/RKNNToolKit2_OP_Support-v2.1.0.md
version RKNN-Toolkit2 v2.1.0 (commit deaba85)
note The document names opset 19 as the corresponding opset; the lower bound 12 is from the RKNN
note SDK 1.6.0 release notes (opsets 12 to 19; read in a third-party mirror of the SDK). Ops marked Not Supported are
note left out. Remarks transcribed as rules: EyeLike and If take constant inputs only (const=0),
note Resize modes nearest2d/bilinear (mode nearest or linear), RoiAlign pool type average. Batch-size
note and broadcast remarks (GRU, LogSoftmax, Slice, Softmax, Tile) are shape limits not checked here;
note the per-chip limits live in RKNN_Compiler_Support_Operator_List (a PDF, not transcribed).
opset 12 19
op Add
op And
op ArgMax
op ArgMin
op AveragePool
op BatchNormalization
op Cast
op Clip
op Concat
op Constant
op ConstantOfShape
op Conv
op ConvTranspose
op Cos
op DepthToSpace
op DequantizeLinear
op Div
op Dropout
op Elu
op Equal
op Erf
op Exp
op Expand
op EyeLike const=0
op Flatten
op Floor
op Gather
op GatherElements
op Gemm
op GlobalAveragePool
op GlobalMaxPool
op Greater
op GreaterOrEqual
op GRU
op HardSigmoid
op HardSwish
op Identity
op If const=0
op InstanceNormalization
op LayerNormalization
op LeakyRelu
op Less
op LessOrEqual
op Log
op LogSoftmax
op LpNormalization
op LRN
op LSTM
op MatMul
op Max
op MaxPool
op MaxRoiPool
op MaxUnpool
op MeanVarianceNormalization
op Min
op Mish
op Mod
op Mul
op Pad
op Pow
op PRelu
op QuantizeLinear
op ReduceMax
op ReduceMean
op ReduceMin
op ReduceSum
op Relu
op Reshape
op Resize attr:mode=nearest,linear
op ReverseSequence
op RoiAlign attr:mode=avg
op ScatterND
op Shape
op Sigmoid
op Sin
op Size
op Slice
op Softmax
op Softplus
op SpaceToDepth
op Split
op Sqrt
op Squeeze
op Sub
op Tanh
op Tile
op Transpose
op Unsqueeze
op Where
