# onnxforge target profile (format: docs/targets.md). One directive per line, '#' starts a comment.
#   target NAME | title TEXT | source TEXT | url URL | version TEXT | note TEXT (repeatable; not compiled in)
#   opset LO HI          default-domain opset range the target accepts (HI '*' = no upper limit)
#   typeset NAME=T,..    a named set of element types, usable in types= lists below
#   op [DOMAIN:]NAME RULE...   an op the target accepts (ops not listed are not supported); rules:
#     since=N until=N    opset range of this op        types=T,..  types@I=T,..  element types of input 0 / input I
#     rank=LO-HI         rank of input 0               const=I,..  inputs that must be constant (initializer or Constant)
#     zero=I             input I, when given, must be a constant of zeros (zero-point rules)
#     attr:NAME=V,..     allowed values of an attribute (checked when the node sets it)
target coreml-ort
title Apple Core ML through ONNX Runtime's CoreML execution provider (ML Program format)
source onnxruntime tools/ci_build/github/apple/coreml_supported_mlprogram_ops.md
url https://github.com/microsoft/onnxruntime/blob/main/tools/ci_build/github/apple/coreml_supported_mlprogram_ops.md
version onnxruntime commit 04f568d (kept in sync with docs/execution-providers/CoreML-ExecutionProvider.md)
note The ML Program list is transcribed (the older NeuralNetwork format's list was not reachable
note here). Notes transcribed as rules: 2D pools (input rank 4), 1D/2D Conv (rank 3-4) with a constant
note bias, ConvTranspose with constant weight and bias and no SAME_* auto_pad, GatherND batch_dims 0,
note Gemm with a constant B, GridSample on 4D input, Pow on float32 inputs, Range on int32/float16/
note float32, Slice and Split with constant starts/ends/axes/steps and splits, Tile up to rank 5.
note Resize's valid combinations are only described by the EP's source, so Resize is unrestricted
note here. No opset range is stated. Constant is accepted: ONNX Runtime turns Constant nodes into
note initializers before any execution provider sees the graph (our reading, not the document's).
op Add
op ArgMax
op AveragePool rank=4
op Cast
op Clip
op Concat
op Constant
op Conv rank=3-4 const=2
op ConvTranspose const=1,2 attr:auto_pad=NOTSET,VALID
op Cos
op DepthToSpace
op Ceil
op Div
op Elu
op Erf
op Exp
op GatherND attr:batch_dims=0
op Gemm const=1
op Gelu
op GlobalAveragePool rank=4
op GlobalMaxPool rank=4
op GridSample rank=4
op GroupNormalization
op HardSigmoid
op Identity
op InstanceNormalization
op LayerNormalization
op LeakyRelu
op MatMul
op MaxPool rank=4
op Max
op Mul
op Pow types=float32 types@1=float32
op PRelu
op Range types=int32,float16,float32
op Reciprocal
op ReduceSum
op ReduceMean
op ReduceMax
op Relu
op Reshape
op Resize
op Round
op Shape
op Sin
op Slice const=1,2,3,4
op Softplus
op Split const=1
op Sub
op Sigmoid
op Softmax
op Sqrt
op Squeeze
op Tanh
op Tile rank=0-5
op Transpose
op Unsqueeze
op com.microsoft:QuickGelu
op com.microsoft:FusedConv
