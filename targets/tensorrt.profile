# onnxforge target profile (format: docs/targets.md). One directive per line, '#' starts a comment.
#   target NAME | title TEXT | source TEXT | url URL | version TEXT | note TEXT (repeatable; not compiled in)
#   opset LO HI          default-domain opset range the target accepts (HI '*' = no upper limit)
#   typeset NAME=T,..    a named set of element types, usable in types= lists below
#   op [DOMAIN:]NAME RULE...   an op the target accepts (ops not listed are not supported); rules:
#     since=N until=N    opset range of this op        types=T,..  types@I=T,..  element types of input 0 / input I
#     rank=LO-HI         rank of input 0               const=I,..  inputs that must be constant (initializer or Constant)
#     zero=I             input I, when given, must be a constant of zeros (zero-point rules)
#     attr:NAME=V,..     allowed values of an attribute (checked when the node sets it)
target tensorrt
title NVIDIA TensorRT ONNX parser (onnx-tensorrt)
source onnx-tensorrt docs/operators.md, "Supported ONNX Operators"
url https://github.com/onnx/onnx-tensorrt/blob/10.1-GA/docs/operators.md
version TensorRT 10.0/10.1 (branch 10.1-GA, commit 96e7811, 2024-06-17)
note The newest copy reachable here is the 10.1-GA branch, which states opsets 9 to 20; later
note TensorRT releases document opsets up to 24, but that version of the file could not be reached.
note Ops the document marks unsupported (N) are left out; "types" transcribe its Supported Types
note column (checked on input 0, input 1 for Where); restrictions the checker cannot test
note (static shapes, pads symmetry, dilations, activation pairs) are not transcribed.
typeset fp=float32,float16,bfloat16
typeset int=int32,int64
opset 9 20
op Abs types=fp,int
op Acos types=fp
op Acosh types=fp
op Add types=fp,int
op And types=bool
op ArgMax types=fp,int
op ArgMin types=fp,int
op Asin types=fp
op Asinh types=fp
op Atan types=fp
op Atanh types=fp
op AveragePool types=fp rank=4-5
op BatchNormalization types=fp
op Cast types=fp,int,uint8,bool
op CastLike types=fp,int,uint8,bool
op Ceil types=fp
op Celu types=fp
op Clip types=fp
op Concat types=fp,int,bool
op Constant types=fp,int,bool
op ConstantOfShape types=fp,int,bool
op Conv types=fp
op ConvTranspose types=fp
op Cos types=fp
op Cosh types=fp
op CumSum types=fp const=1
op DeformConv types=float32,float16
op DepthToSpace types=fp,int
op DequantizeLinear types=int8,float8e4m3fn,int4 zero=2
op Div types=fp,int
op Dropout types=fp const=2
op Einsum types=fp
op Elu types=fp
op Equal types=fp,int
op Erf types=fp
op Exp types=fp
op Expand types=fp,int,bool
op EyeLike types=fp,int,bool
op Flatten types=fp,int,bool
op Floor types=fp
op Gather types=fp,int,bool
op GatherElements types=fp,int,bool
op GatherND types=fp,int,bool
op Gelu types=fp,int8,int
op Gemm types=fp
op GlobalAveragePool types=fp
op GlobalLpPool types=fp
op GlobalMaxPool types=fp
op Greater types=fp,int
op GreaterOrEqual types=fp,int
op GridSample types=float32,float16 rank=4
op GroupNormalization types=fp
op GRU types=fp
op HardSigmoid types=fp
op HardSwish types=fp
op Hardmax types=fp
op Identity types=fp,int,bool
op If types=fp,int,bool
op ImageScaler types=fp
op InstanceNormalization types=fp
op IsInf types=fp
op IsNaN types=fp,int
op LayerNormalization types=fp
op LeakyRelu types=fp
op Less types=fp,int
op LessOrEqual types=fp,int
op Log types=fp
op LogSoftmax types=fp
op Loop types=fp,int,bool
op LRN types=fp
op LSTM types=fp attr:input_forget=0 attr:layout=0
op LpNormalization types=fp
op LpPool types=fp
op MatMul types=fp
op Max types=fp,int
op MaxPool types=fp rank=4-5
op Mean types=fp,float8e4m3fn,int
op MeanVarianceNormalization types=fp
op Min types=fp,int
op Mish types=float32,float16
op Mod types=fp,int
op Mul types=fp,int
op Neg types=fp,int
op NonMaxSuppression types=float32,float16
op NonZero types=float32,float16
op Not types=bool
op OneHot types=fp,int,bool const=1
op Or types=bool
op Pad types=fp,int const=3
op ParametricSoftplus types=fp
op Pow types=fp
op PRelu types=fp
op QuantizeLinear types=fp zero=2
op RandomNormal types=fp
op RandomNormalLike types=fp
op RandomUniform types=fp
op RandomUniformLike types=fp
op Range types=fp,int
op Reciprocal types=fp
op ReduceL1 types=fp,int const=1
op ReduceL2 types=fp,int const=1
op ReduceLogSum types=fp,int const=1
op ReduceLogSumExp types=fp,int const=1
op ReduceMax types=fp,int const=1
op ReduceMean types=fp,int const=1
op ReduceMin types=fp,int const=1
op ReduceProd types=fp,int const=1
op ReduceSum types=fp,int const=1
op ReduceSumSquare types=fp,int const=1
op Relu types=fp,int
op Reshape types=fp,int,bool
op Resize types=fp attr:mode=nearest,linear attr:coordinate_transformation_mode=half_pixel,pytorch_half_pixel,tf_half_pixel_for_nn,asymmetric,align_corners attr:nearest_mode=floor,ceil,round_prefer_floor,round_prefer_ceil attr:keep_aspect_ratio_policy=stretch attr:antialias=0
op ReverseSequence types=fp,int,bool
op RNN types=fp
op RoiAlign types=float32,float16
op Round types=fp
op ScaledTanh types=fp
op Scan types=fp
op Scatter types=fp,int
op ScatterElements types=fp,int
op ScatterND types=fp,int attr:reduction=none
op Selu types=fp
op Shape types=fp,int,bool
op Shrink types=fp,int
op Sigmoid types=fp
op Sign types=fp,int
op Sin types=fp
op Sinh types=fp
op Size types=fp,int,bool
op Slice types=fp,int,bool const=3
op Softmax types=fp
op Softplus types=fp
op Softsign types=fp
op SpaceToDepth types=fp,int
op Split types=fp,int,bool
op Sqrt types=fp
op Squeeze types=fp,int,bool const=1
op Sub types=fp,int
op Sum types=fp,int
op Tan types=fp
op Tanh types=fp
op ThresholdedRelu types=fp
op Tile types=fp,int,bool
op TopK types=fp,int attr:sorted=1
op Transpose types=fp,int,bool
op Trilu types=fp,int,bool
op Unsqueeze types=fp,int,bool const=1
op Upsample types=fp
op Where types@1=fp,int,bool
op Xor types=bool
