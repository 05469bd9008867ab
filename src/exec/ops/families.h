// The op families, one per file in src/exec/ops/, in registration order: the one list that both
// declares each family's register_<name>_ops(Registry&) (exec/interp.h) and calls it
// (Registry::instance() in exec/interp.cpp). A family a build may leave out
// (CMake's OFG_OMIT_OP_FAMILIES) is guarded by its OFG_OMIT_OPS_* definition, which CMake sets
// on interp.cpp only: the declarations stay, the calls go.
// Include with OFG_OP_FAMILY(name) defined; no include guard, on purpose.
OFG_OP_FAMILY(elementwise)
OFG_OP_FAMILY(nn)
OFG_OP_FAMILY(shape)      // Reshape, Squeeze, Expand, Shape, ...
OFG_OP_FAMILY(slice)      // Concat, Split, Slice, Tile, Pad
OFG_OP_FAMILY(gather)     // Gather*, Scatter*, OneHot, NonZero
OFG_OP_FAMILY(transpose)  // Transpose, DepthToSpace, SpaceToDepth
OFG_OP_FAMILY(constant)   // Constant, ConstantOfShape, Range, EyeLike
OFG_OP_FAMILY(cast)       // Cast, CastLike
OFG_OP_FAMILY(reduce)
OFG_OP_FAMILY(control)
OFG_OP_FAMILY(fused)      // ai.onnxforge ops that opt-in passes emit (FusedConv)
OFG_OP_FAMILY(attention)
#ifndef OFG_OMIT_OPS_LOSS
OFG_OP_FAMILY(loss)
#endif
#ifndef OFG_OMIT_OPS_RESIZE
OFG_OP_FAMILY(resize)
#endif
OFG_OP_FAMILY(linalg)     // Einsum, Det, Trilu
OFG_OP_FAMILY(sampling)   // GridSample, AffineGrid
OFG_OP_FAMILY(pool)       // LpPool, MaxUnpool, Col2Im
OFG_OP_FAMILY(select)     // CenterCropPad, CumSum, CumProd, Unique, Compress, ReverseSequence
OFG_OP_FAMILY(detection)  // NonMaxSuppression, RoiAlign
OFG_OP_FAMILY(quantize)
#ifndef OFG_OMIT_OPS_RNN
OFG_OP_FAMILY(rnn)
#endif
#ifndef OFG_OMIT_OPS_SIGNAL
OFG_OP_FAMILY(signal)
OFG_OP_FAMILY(signal_mel)        // MelWeightMatrix
#endif
OFG_OP_FAMILY(swiglu)            // SwiGLU
OFG_OP_FAMILY(scatter_tensor)    // TensorScatter
OFG_OP_FAMILY(causal_conv)       // CausalConvWithState
OFG_OP_FAMILY(linear_attention)  // LinearAttention
OFG_OP_FAMILY(deform_conv)       // DeformConv
#ifndef OFG_OMIT_OPS_TEXT
OFG_OP_FAMILY(text)              // TfIdfVectorizer
#endif
OFG_OP_FAMILY(image)             // ImageDecoder (refused: no image codecs)
OFG_OP_FAMILY(flex_attention)    // ai.onnx.preview FlexAttention
#ifndef OFG_OMIT_OPS_ML
OFG_OP_FAMILY(ml)                // ai.onnx.ml Binarizer, ArrayFeatureExtractor, TreeEnsemble
#endif
OFG_OP_FAMILY(random)            // ops known by their traits only (random number generators, no kernel)
