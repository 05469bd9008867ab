# onnxforge target profile (format: docs/targets.md). One directive per line, '#' starts a comment.
#   target NAME | title TEXT | source TEXT | url URL | version TEXT | note TEXT (repeatable; not compiled in)
#   opset LO HI          default-domain opset range the target accepts (HI '*' = no upper limit)
#   typeset NAME=T,..    a named set of element types, usable in types= lists below
#   op [DOMAIN:]NAME RULE...   an op the target accepts (ops not listed are not supported); rules:
#     since=N until=N    opset range of this op        types=T,..  types@I=T,..  element types of input 0 / input I
#     rank=LO-HI         rank of input 0               const=I,..  inputs that must be constant (initializer or Constant)
#     zero=I             input I, when given, must be a constant of zeros (zero-point rules)
#     attr:NAME=V,..     allowed values of an attribute (checked when the node sets it)
target qnn
title Qualcomm QNN through ONNX Runtime's QNN execution provider
source onnxruntime-qnn docs/execution_providers/QNN-ExecutionProvider.md, "Supported ONNX operators"
url https://github.com/onnxruntime/onnxruntime-qnn/blob/main/docs/execution_providers/QNN-ExecutionProvider.md
version onnxruntime-qnn commit 0131740 (QNN EP 2.x documentation)
note Qualcomm's own table (QAIRT "Supported ONNX Ops", docs.qualcomm.com 80-63442-10) could only be
note read in part here: its per-op opset lists and notes are transcribed for the rows reached
note (ArgMax/ArgMin select_last_index 0, BatchNormalization training_mode 0 with static inputs
note after the first); the op list is the execution provider's. Neither states an overall opset
note range, so none is checked. Constant is accepted: ONNX Runtime turns Constant nodes into
note initializers before any execution provider sees the graph (our reading, not the document's).
note The document also says models need static shapes; that is not checked here.
op Abs
op Add
op And
op ArgMax attr:select_last_index=0
op ArgMin attr:select_last_index=0
op Asin
op Atan
op AveragePool
op BatchNormalization attr:training_mode=0 const=1,2,3,4
op Cast
op Ceil
op Clip
op Concat
op Constant
op Conv
op ConvInteger
op ConvTranspose
op Cos
op CumSum
op DepthToSpace
op DequantizeLinear
op DynamicQuantizeLinear
op Div
op Einsum
op Elu
op Equal
op Exp
op Expand
op Flatten
op Floor
op Gather
op GatherElements
op GatherND
op Gelu
op Gemm
op GlobalAveragePool
op GlobalMaxPool
op Greater
op GreaterOrEqual
op GridSample
op GroupNormalization
op HardSigmoid
op HardSwish
op Identity
op InstanceNormalization
op Inverse
op IsNaN
op LRN
op LSTM
op LayerNormalization
op LeakyRelu
op Less
op LessOrEqual
op Log
op LogSoftmax
op LpNormalization attr:p=2
op MatMul
op MatMulInteger
op Max
op MaxPool
op Mean
op Min
op Mod
op Mul
op Neg
op NonZero
op Not
op Or
op PRelu
op Pad
op Pow
op QuantizeLinear
op RandomNormalLike
op RandomUniformLike
op Reciprocal
op ReduceL2
op ReduceMax
op ReduceMean
op ReduceMin
op ReduceProd
op ReduceSum
op Relu
op RMSNormalization
op Reshape
op Resize
op RoiAlign
op Round
op RotaryEmbedding
op STFT
op ScatterElements
op ScatterND
op Sigmoid
op Sign
op Sin
op Slice
op Softmax
op Softplus
op SpaceToDepth
op Split
op Sqrt
op Squeeze
op Sub
op Sum
op Tan
op Tanh
op ThresholdedRelu
op Tile
op TopK
op Transpose
op Unsqueeze
op Upsample
op Where
op com.microsoft:DequantizeLinear
op com.microsoft:FusedMatMul
op com.microsoft:Gelu
op com.microsoft:MatMulNBits
op com.microsoft:QuantizeLinear
op com.microsoft:QuickGelu
op com.microsoft:RotaryEmbedding
op com.microsoft:SimplifiedLayerNormalization
