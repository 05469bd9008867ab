# onnxforge target profile (format: docs/targets.md). One directive per line, '#' starts a comment.
#   target NAME | title TEXT | source TEXT | url URL | version TEXT | note TEXT (repeatable)
#   opset LO HI          default-domain opset range the target accepts (HI '*' = no upper limit)
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
opset 9 20
op Abs types=float32,float16,bfloat16,int32,int64
op Acos types=float32,float16,bfloat16
op Acosh types=float32,float16,bfloat16
op Add types=float32,float16,bfloat16,int32,int64
op And types=bool
op ArgMax types=float32,float16,bfloat16,int32,int64
op ArgMin types=float32,float16,bfloat16,int32,int64
op Asin types=float32,float16,bfloat16
op Asinh types=float32,float16,bfloat16
op Atan types=float32,float16,bfloat16
op Atanh types=float32,float16,bfloat16
op AveragePool types=float32,float16,bfloat16 rank=4-5
op BatchNormalization types=float32,float16,bfloat16
op Cast types=float32,float16,bfloat16,int32,int64,uint8,bool
op CastLike types=float32,float16,bfloat16,int32,int64,uint8,bool
op Ceil types=float32,float16,bfloat16
op Celu types=float32,float16,bfloat16
op Clip types=float32,float16,bfloat16
op Concat types=float32,float16,bfloat16,int32,int64,bool
op Constant types=float32,float16,bfloat16,int32,int64,bool
op ConstantOfShape types=float32,float16,bfloat16,int32,int64,bool
op Conv types=float32,float16,bfloat16
op ConvTranspose types=float32,float16,bfloat16
op Cos types=float32,float16,bfloat16
op Cosh types=float32,float16,bfloat16
op CumSum types=float32,float16,bfloat16 const=1
op DeformConv types=float32,float16
op DepthToSpace types=float32,float16,bfloat16,int32,int64
op DequantizeLinear types=int8,float8e4m3fn,int4 zero=2
op Div types=float32,float16,bfloat16,int32,int64
op Dropout types=float32,float16,bfloat16 const=2
op Einsum types=float32,float16,bfloat16
op Elu types=float32,float16,bfloat16
op Equal types=float32,float16,bfloat16,int32,int64
op Erf types=float32,float16,bfloat16
op Exp types=float32,float16,bfloat16
op Expand types=float32,float16,bfloat16,int32,int64,bool
op EyeLike types=float32,float16,bfloat16,int32,int64,bool
op Flatten types=float32,float16,bfloat16,int32,int64,bool
op Floor types=float32,float16,bfloat16
op Gather types=float32,float16,bfloat16,int32,int64,bool
op GatherElements types=float32,float16,bfloat16,int32,int64,bool
op GatherND types=float32,float16,bfloat16,int32,int64,bool
op Gelu types=float32,float16,bfloat16,int8,int32,int64
op Gemm types=float32,float16,bfloat16
op GlobalAveragePool types=float32,float16,bfloat16
op GlobalLpPool types=float32,float16,bfloat16
op GlobalMaxPool types=float32,float16,bfloat16
op Greater types=float32,float16,bfloat16,int32,int64
op GreaterOrEqual types=float32,float16,bfloat16,int32,int64
op GridSample types=float32,float16 rank=4
op GroupNormalization types=float32,float16,bfloat16
op GRU types=float32,float16,bfloat16
op HardSigmoid types=float32,float16,bfloat16
op HardSwish types=float32,float16,bfloat16
op Hardmax types=float32,float16,bfloat16
op Identity types=float32,float16,bfloat16,int32,int64,bool
op If types=float32,float16,bfloat16,int32,int64,bool
op ImageScaler types=float32,float16,bfloat16
op InstanceNormalization types=float32,float16,bfloat16
op IsInf types=float32,float16,bfloat16
op IsNaN types=float32,float16,bfloat16,int32,int64
op LayerNormalization types=float32,float16,bfloat16
op LeakyRelu types=float32,float16,bfloat16
op Less types=float32,float16,bfloat16,int32,int64
op LessOrEqual types=float32,float16,bfloat16,int32,int64
op Log types=float32,float16,bfloat16
op LogSoftmax types=float32,float16,bfloat16
op Loop types=float32,float16,bfloat16,int32,int64,bool
op LRN types=float32,float16,bfloat16
op LSTM types=float32,float16,bfloat16 attr:input_forget=0 attr:layout=0
op LpNormalization types=float32,float16,bfloat16
op LpPool types=float32,float16,bfloat16
op MatMul types=float32,float16,bfloat16
op Max types=float32,float16,bfloat16,int32,int64
op MaxPool types=float32,float16,bfloat16 rank=4-5
op Mean types=float32,float16,bfloat16,float8e4m3fn,int32,int64
op MeanVarianceNormalization types=float32,float16,bfloat16
op Min types=float32,float16,bfloat16,int32,int64
op Mish types=float32,float16
op Mod types=float32,float16,bfloat16,int32,int64
op Mul types=float32,float16,bfloat16,int32,int64
op Neg types=float32,float16,bfloat16,int32,int64
op NonMaxSuppression types=float32,float16
op NonZero types=float32,float16
op Not types=bool
op OneHot types=float32,float16,bfloat16,int32,int64,bool const=1
op Or types=bool
op Pad types=float32,float16,bfloat16,int32,int64 const=3
op ParametricSoftplus types=float32,float16,bfloat16
op Pow types=float32,float16,bfloat16
op PRelu types=float32,float16,bfloat16
op QuantizeLinear types=float32,float16,bfloat16 zero=2
op RandomNormal types=float32,float16,bfloat16
op RandomNormalLike types=float32,float16,bfloat16
op RandomUniform types=float32,float16,bfloat16
op RandomUniformLike types=float32,float16,bfloat16
op Range types=float32,float16,bfloat16,int32,int64
op Reciprocal types=float32,float16,bfloat16
op ReduceL1 types=float32,float16,bfloat16,int32,int64 const=1
op ReduceL2 types=float32,float16,bfloat16,int32,int64 const=1
op ReduceLogSum types=float32,float16,bfloat16,int32,int64 const=1
op ReduceLogSumExp types=float32,float16,bfloat16,int32,int64 const=1
op ReduceMax types=float32,float16,bfloat16,int32,int64 const=1
op ReduceMean types=float32,float16,bfloat16,int32,int64 const=1
op ReduceMin types=float32,float16,bfloat16,int32,int64 const=1
op ReduceProd types=float32,float16,bfloat16,int32,int64 const=1
op ReduceSum types=float32,float16,bfloat16,int32,int64 const=1
op ReduceSumSquare types=float32,float16,bfloat16,int32,int64 const=1
op Relu types=float32,float16,bfloat16,int32,int64
op Reshape types=float32,float16,bfloat16,int32,int64,bool
op Resize types=float32,float16,bfloat16 attr:mode=nearest,linear attr:coordinate_transformation_mode=half_pixel,pytorch_half_pixel,tf_half_pixel_for_nn,asymmetric,align_corners attr:nearest_mode=floor,ceil,round_prefer_floor,round_prefer_ceil attr:keep_aspect_ratio_policy=stretch attr:antialias=0
op ReverseSequence types=float32,float16,bfloat16,int32,int64,bool
op RNN types=float32,float16,bfloat16
op RoiAlign types=float32,float16
op Round types=float32,float16,bfloat16
op ScaledTanh types=float32,float16,bfloat16
op Scan types=float32,float16,bfloat16
op Scatter types=float32,float16,bfloat16,int32,int64
op ScatterElements types=float32,float16,bfloat16,int32,int64
op ScatterND types=float32,float16,bfloat16,int32,int64 attr:reduction=none
op Selu types=float32,float16,bfloat16
op Shape types=float32,float16,bfloat16,int32,int64,bool
op Shrink types=float32,float16,bfloat16,int32,int64
op Sigmoid types=float32,float16,bfloat16
op Sign types=float32,float16,bfloat16,int32,int64
op Sin types=float32,float16,bfloat16
op Sinh types=float32,float16,bfloat16
op Size types=float32,float16,bfloat16,int32,int64,bool
op Slice types=float32,float16,bfloat16,int32,int64,bool const=3
op Softmax types=float32,float16,bfloat16
op Softplus types=float32,float16,bfloat16
op Softsign types=float32,float16,bfloat16
op SpaceToDepth types=float32,float16,bfloat16,int32,int64
op Split types=float32,float16,bfloat16,int32,int64,bool
op Sqrt types=float32,float16,bfloat16
op Squeeze types=float32,float16,bfloat16,int32,int64,bool const=1
op Sub types=float32,float16,bfloat16,int32,int64
op Sum types=float32,float16,bfloat16,int32,int64
op Tan types=float32,float16,bfloat16
op Tanh types=float32,float16,bfloat16
op ThresholdedRelu types=float32,float16,bfloat16
op Tile types=float32,float16,bfloat16,int32,int64,bool
op TopK types=float32,float16,bfloat16,int32,int64 attr:sorted=1
op Transpose types=float32,float16,bfloat16,int32,int64,bool
op Trilu types=float32,float16,bfloat16,int32,int64,bool
op Unsqueeze types=float32,float16,bfloat16,int32,int64,bool const=1
op Upsample types=float32,float16,bfloat16
op Where types@1=float32,float16,bfloat16,int32,int64,bool
op Xor types=bool
