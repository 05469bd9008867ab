// ImageDecoder (opset 20) is known but refused: decoding JPEG, PNG, WebP, TIFF, ... needs image
// codecs, large attack surfaces that an embedded inference library should not carry. Models
// that start with it are run on pixels decoded by the application. The kernel only names the
// op and the reason, with Status::kUnsupported; the rule still gives the output's type.
#include "exec/infer_rules.h"
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

void op_image_decoder(OpCtx& c) {
  fail(Status::kUnsupported, c.where() + ": not supported: decoding images needs image codecs, which this library "
                                         "does not carry; decode the image before the model");
}

// An (H, W, C) image of uint8 whose dims depend on the encoded bytes.
bool rule_image_decoder(InferCtx& c) {
  c.out[0] = rules::unknown_dims(kUint8, 3);
  return true;
}

}  // namespace

void register_image_ops(Registry& r) { r.add("ImageDecoder", op_image_decoder, 20).infer(rule_image_decoder); }

}  // namespace ofg::exec
