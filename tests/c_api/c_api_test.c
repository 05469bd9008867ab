/* Calls every exported function from C: the happy path on the built-in demo model, and NULL or
 * out-of-range arguments everywhere (each must return a status and a message, never crash, and
 * leave out-parameters untouched). Argument: a folder where files may be written. */
#include <onnxforge.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
static int checks = 0;

#define CHECK(cond)                                                   \
  do {                                                                \
    ++checks;                                                         \
    if (!(cond)) {                                                    \
      ++failures;                                                     \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                 \
  } while (0)

/* A NULL argument gives OFG_ERR_INVALID_ARGUMENT and a message that names the parameter. */
#define CHECK_NULL_ARG(call, param)                                   \
  do {                                                                \
    ofg_status s_ = (call);                                           \
    CHECK(s_ == OFG_ERR_INVALID_ARGUMENT);                            \
    CHECK(strstr(ofg_last_error(), param) != NULL);                   \
  } while (0)

/* A tiny protobuf writer, enough to build a model with sequence and optional inputs and the
 * SequenceProto / OptionalProto files of such a model without any generated code. */
typedef struct pbuf {
  unsigned char d[1024];
  size_t n;
} pbuf;

static void pb_varint(pbuf* b, uint64_t v) {
  while (v >= 0x80) {
    b->d[b->n++] = (unsigned char)((v & 0x7F) | 0x80);
    v >>= 7;
  }
  b->d[b->n++] = (unsigned char)v;
}
static void pb_int(pbuf* b, unsigned field, uint64_t v) {
  pb_varint(b, (uint64_t)field << 3);
  pb_varint(b, v);
}
static void pb_bytes(pbuf* b, unsigned field, const void* data, size_t size) {
  pb_varint(b, ((uint64_t)field << 3) | 2);
  pb_varint(b, size);
  memcpy(b->d + b->n, data, size);
  b->n += size;
}
static void pb_str(pbuf* b, unsigned field, const char* s) { pb_bytes(b, field, s, strlen(s)); }
static void pb_msg(pbuf* b, unsigned field, const pbuf* m) { pb_bytes(b, field, m->d, m->n); }

/* TypeProto of a float tensor wrapped in sequence_type (field 4) or optional_type (field 9). */
static void wrapped_float_type(pbuf* out, unsigned wrapper_field) {
  pbuf tensor = {{0}, 0}, tensor_type = {{0}, 0}, wrapper = {{0}, 0};
  pb_int(&tensor, 1, 1);                /* TypeProto.Tensor.elem_type = FLOAT */
  pb_msg(&tensor_type, 1, &tensor);     /* TypeProto.tensor_type */
  pb_msg(&wrapper, 1, &tensor_type);    /* Sequence / Optional .elem_type */
  out->n = 0;
  pb_msg(out, wrapper_field, &wrapper);
}

/* Model: s_out = Identity(s) on a sequence of float tensors, o_out = Identity(o) on an optional
 * float tensor (opset 18). */
static void seq_opt_model(pbuf* model) {
  pbuf seq_t, opt_t, graph = {{0}, 0}, part, info, opset = {{0}, 0};
  const char* io[4][2] = {{"s", "s_out"}, {"o", "o_out"}};
  wrapped_float_type(&seq_t, 4);
  wrapped_float_type(&opt_t, 9);
  for (int i = 0; i < 2; ++i) {
    part.n = 0;
    pb_str(&part, 1, io[i][0]); /* NodeProto.input */
    pb_str(&part, 2, io[i][1]); /* NodeProto.output */
    pb_str(&part, 4, "Identity");
    pb_msg(&graph, 1, &part);   /* GraphProto.node */
  }
  pb_str(&graph, 2, "g");
  for (int field = 11; field <= 12; ++field) /* GraphProto.input, then .output */
    for (int i = 0; i < 2; ++i) {
      info.n = 0;
      pb_str(&info, 1, io[i][field - 11]);
      pb_msg(&info, 2, i == 0 ? &seq_t : &opt_t);
      pb_msg(&graph, (unsigned)field, &info);
    }
  model->n = 0;
  pb_int(model, 1, 8);          /* ir_version */
  pb_int(&opset, 2, 18);        /* OperatorSetIdProto.version */
  pb_msg(model, 8, &opset);     /* opset_import */
  pb_msg(model, 7, &graph);     /* graph */
}

static int32_t count_progress(void* user, uint32_t done, uint32_t total) {
  int* c = (int*)user;
  c[0] += 1;
  c[1] = (int)done;
  c[2] = (int)total;
  return 0;
}

static int32_t stop_progress(void* user, uint32_t done, uint32_t total) {
  int* left = (int*)user;
  (void)done;
  (void)total;
  return --*left <= 0 ? 1 : 0;
}

static void count_log(void* user, int32_t level, const char* message) {
  if (message && message[0] && (level == OFG_LOG_INFO || level == OFG_LOG_WARNING)) *(int*)user += 1;
}

int main(int argc, char** argv) {
  const char* dir = argc > 1 ? argv[1] : ".";
  char path[4096];
  snprintf(path, sizeof path, "%s/c_api_test_demo.onnx", dir);

  /* versions and status */
  CHECK(ofg_version_number() == OFG_VERSION_NUMBER);
  {  /* the string spells the header's numbers */
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", OFG_VERSION_MAJOR, OFG_VERSION_MINOR, OFG_VERSION_PATCH);
    CHECK(strcmp(ofg_version_string(), want) == 0);
  }
  CHECK(strcmp(ofg_status_string(OFG_OK), "ok") == 0);
  CHECK(strcmp(ofg_status_string((ofg_status)999), "unknown status") == 0);
  CHECK(strcmp(ofg_elem_type_name(1), "float32") == 0);
  CHECK(strcmp(ofg_elem_type_name(-5), "unknown") == 0);

  /* options */
  ofg_options* opts = NULL;
  CHECK_NULL_ARG(ofg_options_create(NULL), "out");
  CHECK(ofg_options_create(&opts) == OFG_OK && opts != NULL);
  CHECK_NULL_ARG(ofg_options_set(NULL, "save.external_data", "1"), "options");
  CHECK_NULL_ARG(ofg_options_set(opts, NULL, "1"), "key");
  CHECK_NULL_ARG(ofg_options_set(opts, "save.external_data", NULL), "value");
  CHECK(ofg_options_set(opts, "no.such.key", "1") == OFG_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ofg_last_error(), "no.such.key") != NULL);
  CHECK(ofg_options_set(opts, "save.external_data", "yes") == OFG_ERR_INVALID_ARGUMENT);
  CHECK(ofg_options_set(opts, "save.external_threshold", "-3") == OFG_ERR_INVALID_ARGUMENT);
  CHECK(ofg_options_set(opts, "save.external_threshold", "64") == OFG_OK);
  CHECK(strcmp(ofg_last_error(), "") == 0);
  ofg_options_free(NULL);

  /* models */
  ofg_model* model = NULL;
  ofg_model* untouched = (ofg_model*)0x1;
  CHECK_NULL_ARG(ofg_model_create_demo(NULL), "out");
  CHECK(ofg_model_create_demo(&model) == OFG_OK && model != NULL);
  CHECK_NULL_ARG(ofg_load(NULL, NULL, &untouched), "utf8_path");
  CHECK_NULL_ARG(ofg_load(path, NULL, NULL), "out");
  CHECK(ofg_load("/nonexistent/x.onnx", NULL, &untouched) == OFG_ERR_IO);
  CHECK(untouched == (ofg_model*)0x1);
  CHECK_NULL_ARG(ofg_load_from_memory(NULL, 10, NULL, &untouched), "data");
  CHECK_NULL_ARG(ofg_load_from_memory("x", 1, NULL, NULL), "out");
  CHECK(untouched == (ofg_model*)0x1);
  ofg_model_free(NULL);

  CHECK_NULL_ARG(ofg_save(NULL, path, NULL), "model");
  CHECK_NULL_ARG(ofg_save(model, NULL, NULL), "utf8_path");
  CHECK(ofg_save(model, path, NULL) == OFG_OK);

  void* bytes = (void*)0x1;
  size_t size = 7;
  CHECK_NULL_ARG(ofg_save_to_memory(NULL, NULL, &bytes, &size), "model");
  CHECK_NULL_ARG(ofg_save_to_memory(model, NULL, NULL, &size), "data");
  CHECK_NULL_ARG(ofg_save_to_memory(model, NULL, &bytes, NULL), "size");
  CHECK(bytes == (void*)0x1 && size == 7);
  CHECK(ofg_save_to_memory(model, NULL, &bytes, &size) == OFG_OK && size > 100);
  ofg_model* again = NULL;
  CHECK(ofg_load_from_memory(bytes, size, NULL, &again) == OFG_OK);
  ofg_model* from_file = NULL;
  CHECK(ofg_load(path, NULL, &from_file) == OFG_OK);
  ofg_buffer_free(NULL);
  ofg_remove_temporary_files(); /* no save in progress: nothing to do, and the saved file stays */
  {
    FILE* still = fopen(path, "rb");
    CHECK(still != NULL);
    if (still) fclose(still);
  }

  /* queries */
  int64_t ir = 0;
  CHECK_NULL_ARG(ofg_model_ir_version(NULL, &ir), "model");
  CHECK_NULL_ARG(ofg_model_ir_version(model, NULL), "out");
  CHECK(ofg_model_ir_version(again, &ir) == OFG_OK && ir == 7);
  const char *name = NULL, *version = NULL;
  CHECK_NULL_ARG(ofg_model_producer(NULL, &name, &version), "model");
  CHECK(ofg_model_producer(from_file, &name, &version) == OFG_OK && strcmp(name, "onnxforge-demo") == 0);
  size_t n = 0;
  CHECK_NULL_ARG(ofg_model_opset_count(NULL, &n), "model");
  CHECK_NULL_ARG(ofg_model_opset_count(model, NULL), "out");
  CHECK(ofg_model_opset_count(model, &n) == OFG_OK && n == 1);
  const char* domain = NULL;
  int64_t opset = 0;
  CHECK_NULL_ARG(ofg_model_opset(NULL, 0, &domain, &opset), "model");
  CHECK(ofg_model_opset(model, 5, &domain, &opset) == OFG_ERR_INVALID_ARGUMENT);
  CHECK(ofg_model_opset(model, 0, &domain, &opset) == OFG_OK && opset == 13 && strcmp(domain, "") == 0);

  CHECK_NULL_ARG(ofg_model_io_count(NULL, OFG_INPUT, &n), "model");
  CHECK_NULL_ARG(ofg_model_io_count(model, OFG_INPUT, NULL), "out");
  CHECK(ofg_model_io_count(model, 7, &n) == OFG_ERR_INVALID_ARGUMENT);
  CHECK(ofg_model_io_count(model, OFG_INPUT, &n) == OFG_OK && n == 1);
  ofg_value_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.struct_size = sizeof desc;
  CHECK_NULL_ARG(ofg_model_io(NULL, OFG_INPUT, 0, &desc), "model");
  CHECK_NULL_ARG(ofg_model_io(model, OFG_INPUT, 0, NULL), "out");
  CHECK(ofg_model_io(model, OFG_INPUT, 3, &desc) == OFG_ERR_INVALID_ARGUMENT);
  desc.struct_size = 2;
  CHECK(ofg_model_io(model, OFG_INPUT, 0, &desc) == OFG_ERR_INVALID_ARGUMENT);
  desc.struct_size = sizeof desc;
  CHECK(ofg_model_io(again, OFG_INPUT, 0, &desc) == OFG_OK);
  CHECK(strcmp(desc.name, "image") == 0 && desc.elem_type == 1 && desc.rank == 4);
  int64_t dim = 0;
  const char* symbol = NULL;
  CHECK_NULL_ARG(ofg_model_io_dim(NULL, OFG_INPUT, 0, 0, &dim, &symbol), "model");
  CHECK(ofg_model_io_dim(again, OFG_INPUT, 0, 9, &dim, &symbol) == OFG_ERR_INVALID_ARGUMENT);
  CHECK(ofg_model_io_dim(again, OFG_INPUT, 0, 0, &dim, &symbol) == OFG_OK && dim == -1 && strcmp(symbol, "batch") == 0);
  CHECK(ofg_model_io_dim(again, OFG_INPUT, 0, 1, &dim, &symbol) == OFG_OK && dim == 3 && symbol == NULL);
  CHECK(ofg_model_io_dim(again, OFG_OUTPUT, 0, 1, &dim, NULL) == OFG_OK && dim == 10);

  CHECK_NULL_ARG(ofg_model_node_count(NULL, 0, &n), "model");
  CHECK_NULL_ARG(ofg_model_node_count(model, 0, NULL), "out");
  size_t nodes = 0, nodes_again = 0;
  CHECK(ofg_model_node_count(model, 1, &nodes) == OFG_OK && nodes > 10);
  CHECK(ofg_model_node_count(again, 0, &nodes_again) == OFG_OK && nodes_again == nodes);

  size_t entries = 0, total = 0, count = 0;
  const char* op = NULL;
  CHECK_NULL_ARG(ofg_model_op_histogram_count(NULL, &entries), "model");
  CHECK_NULL_ARG(ofg_model_op_histogram_count(model, NULL), "out");
  CHECK(ofg_model_op_histogram_entry(model, 0, &domain, &op, &count) == OFG_ERR_INVALID_ARGUMENT);
  CHECK(ofg_model_op_histogram_count(model, &entries) == OFG_OK && entries > 5);
  CHECK_NULL_ARG(ofg_model_op_histogram_entry(NULL, 0, &domain, &op, &count), "model");
  for (size_t i = 0; i < entries; ++i) {
    CHECK(ofg_model_op_histogram_entry(model, i, &domain, &op, &count) == OFG_OK);
    total += count;
  }
  CHECK(total == nodes);
  CHECK(ofg_model_op_histogram_entry(model, entries, &domain, &op, &count) == OFG_ERR_INVALID_ARGUMENT);

  size_t inits = 0;
  uint64_t init_bytes = 0;
  CHECK_NULL_ARG(ofg_model_initializer_stats(NULL, &inits, &init_bytes), "model");
  CHECK(ofg_model_initializer_stats(model, &inits, &init_bytes) == OFG_OK && inits == 15 && init_bytes > 1000);

  /* external data save through options, then load of the result */
  char ext_path[4096];
  snprintf(ext_path, sizeof ext_path, "%s/c_api_test_ext.onnx", dir);
  CHECK(ofg_options_set(opts, "save.external_data", "1") == OFG_OK);
  CHECK(ofg_save(model, ext_path, opts) == OFG_OK);
  CHECK(ofg_save_to_memory(model, opts, &bytes, &size) == OFG_ERR_INVALID_ARGUMENT);
  ofg_model* ext = NULL;
  CHECK(ofg_load(ext_path, NULL, &ext) == OFG_OK);
  size_t ext_inits = 0;
  uint64_t ext_bytes = 0;
  CHECK(ofg_model_initializer_stats(ext, &ext_inits, &ext_bytes) == OFG_OK && ext_bytes == init_bytes);

  /* tensors */
  {
    float values[6] = {1, 2, 3, 4, 5, 6};
    int64_t dims2[2] = {2, 3};
    ofg_tensor* t = NULL;
    ofg_tensor* untouched_t = (ofg_tensor*)0x1;
    CHECK_NULL_ARG(ofg_tensor_create(1, dims2, 2, values, sizeof values, NULL), "out");
    CHECK(ofg_tensor_create(1, dims2, 2, values, 7, &untouched_t) == OFG_ERR_INVALID_ARGUMENT);
    CHECK(untouched_t == (ofg_tensor*)0x1);
    CHECK(ofg_tensor_create(1, dims2, 2, values, sizeof values, &t) == OFG_OK);
    CHECK(ofg_tensor_elem_type(t) == 1 && ofg_tensor_rank(t) == 2 && ofg_tensor_dims(t)[1] == 3);
    CHECK(ofg_tensor_nbytes(t) == sizeof values && ((const float*)ofg_tensor_data(t))[5] == 6.0f);
    CHECK(ofg_tensor_elem_type(NULL) == 0 && ofg_tensor_rank(NULL) == 0);
    CHECK(ofg_tensor_dims(NULL) == NULL && ofg_tensor_data(NULL) == NULL && ofg_tensor_nbytes(NULL) == 0);
    CHECK(ofg_tensor_name(t) != NULL);
    void* pb = NULL;
    size_t pb_size = 0;
    CHECK_NULL_ARG(ofg_tensor_save_pb(NULL, "x", &pb, &pb_size), "tensor");
    CHECK(ofg_tensor_save_pb(t, "x", &pb, &pb_size) == OFG_OK && pb_size > 24);
    ofg_tensor* back = NULL;
    CHECK_NULL_ARG(ofg_tensor_load_pb(NULL, pb_size, &back), "data");
    CHECK(ofg_tensor_load_pb(pb, pb_size, &back) == OFG_OK && strcmp(ofg_tensor_name(back), "x") == 0);
    CHECK(ofg_tensor_load_pb(pb, 3, &untouched_t) != OFG_OK && untouched_t == (ofg_tensor*)0x1);
    ofg_diff diff;
    memset(&diff, 0, sizeof diff);
    diff.struct_size = sizeof diff;
    CHECK_NULL_ARG(ofg_tensor_compare(NULL, t, 1e-5, 1e-3, &diff), "actual");
    CHECK(ofg_tensor_compare(back, t, 1e-5, 1e-3, &diff) == OFG_OK && diff.passed && diff.max_abs == 0.0);
    ofg_buffer_free(pb);
    ofg_tensor_free(back);
    ofg_tensor_free(NULL);
    ofg_tensors_free(NULL, 0);

    /* run the demo model on a [1,3,16,16] input */
    float image[3 * 16 * 16];
    for (int i = 0; i < 3 * 16 * 16; ++i) image[i] = (float)(i % 17) / 17.0f;
    int64_t idims[4] = {1, 3, 16, 16};
    ofg_tensor* in = NULL;
    CHECK(ofg_tensor_create(1, idims, 4, image, sizeof image, &in) == OFG_OK);
    const char* names[1] = {"image"};
    const ofg_tensor* inputs[1] = {in};
    size_t n_out = 0;
    ofg_tensor** outs = NULL;
    CHECK_NULL_ARG(ofg_run(NULL, NULL, 1, names, inputs, &n_out, &outs), "model");
    CHECK_NULL_ARG(ofg_run(model, NULL, 1, names, inputs, NULL, &outs), "n_outputs");
    const char* bad_names[1] = {"nope"};
    CHECK(ofg_run(model, NULL, 1, bad_names, inputs, &n_out, &outs) == OFG_ERR_INVALID_ARGUMENT && outs == NULL);
    CHECK(ofg_run(model, NULL, 1, names, inputs, &n_out, &outs) == OFG_OK && n_out == 1);
    CHECK(outs != NULL && ofg_tensor_rank(outs[0]) == 2 && ofg_tensor_dims(outs[0])[1] == 10);
    ofg_tensors_free(outs, n_out);
    ofg_tensor_free(in);
    ofg_tensor_free(t);
  }

  /* values: sequences and optionals */
  {
    pbuf mbytes;
    seq_opt_model(&mbytes);
    ofg_model* sm = NULL;
    CHECK(ofg_load_from_memory(mbytes.d, mbytes.n, NULL, &sm) == OFG_OK);
    ofg_value_desc vd;
    memset(&vd, 0, sizeof vd);
    vd.struct_size = sizeof vd;
    CHECK(ofg_model_io(sm, OFG_INPUT, 0, &vd) == OFG_OK && vd.kind == OFG_VALUE_SEQUENCE && vd.elem_type == 0);
    CHECK(ofg_model_io(sm, OFG_OUTPUT, 1, &vd) == OFG_OK && vd.kind == OFG_VALUE_OPTIONAL);
    CHECK(ofg_model_io(model, OFG_INPUT, 0, &vd) == OFG_OK && vd.kind == OFG_VALUE_TENSOR);

    float a[3] = {1, 2, 3}, b[2] = {4, 5};
    int64_t da = 3, db = 2;
    ofg_tensor *ta = NULL, *tb = NULL;
    CHECK(ofg_tensor_create(1, &da, 1, a, sizeof a, &ta) == OFG_OK);
    CHECK(ofg_tensor_create(1, &db, 1, b, sizeof b, &tb) == OFG_OK);

    /* construction and accessors */
    ofg_value* untouched_v = (ofg_value*)0x1;
    ofg_value *tv = NULL, *sv = NULL, *ov = NULL, *empty = NULL;
    CHECK_NULL_ARG(ofg_value_from_tensor(NULL, &tv), "tensor");
    CHECK_NULL_ARG(ofg_value_from_tensor(ta, NULL), "out");
    CHECK(ofg_value_from_tensor(ta, &tv) == OFG_OK && ofg_value_kind(tv) == OFG_VALUE_TENSOR);
    const ofg_tensor* part_t = NULL;
    CHECK_NULL_ARG(ofg_value_tensor(NULL, &part_t), "value");
    CHECK_NULL_ARG(ofg_value_tensor(tv, NULL), "out");
    CHECK(ofg_value_tensor(tv, &part_t) == OFG_OK && part_t != ta && ofg_tensor_nbytes(part_t) == sizeof a);
    const ofg_tensor* elems[2] = {ta, tb};
    CHECK_NULL_ARG(ofg_value_create_sequence(1, NULL, 2, &sv), "elements");
    CHECK_NULL_ARG(ofg_value_create_sequence(1, elems, 2, NULL), "out");
    CHECK(ofg_value_create_sequence(7, elems, 2, &untouched_v) == OFG_ERR_INVALID_ARGUMENT);
    CHECK(untouched_v == (ofg_value*)0x1);
    CHECK(ofg_value_create_sequence(1, elems, 2, &sv) == OFG_OK && ofg_value_kind(sv) == OFG_VALUE_SEQUENCE);
    size_t len = 0;
    int32_t et = 0, has = -1;
    CHECK_NULL_ARG(ofg_value_sequence_length(NULL, &len), "value");
    CHECK_NULL_ARG(ofg_value_sequence_length(sv, NULL), "out");
    CHECK(ofg_value_sequence_length(tv, &len) == OFG_ERR_INVALID_ARGUMENT);
    CHECK(ofg_value_sequence_length(sv, &len) == OFG_OK && len == 2);
    CHECK_NULL_ARG(ofg_value_sequence_elem_type(NULL, &et), "value");
    CHECK_NULL_ARG(ofg_value_sequence_elem_type(sv, NULL), "out");
    CHECK(ofg_value_sequence_elem_type(sv, &et) == OFG_OK && et == 1);
    CHECK_NULL_ARG(ofg_value_sequence_at(NULL, 0, &part_t), "value");
    CHECK_NULL_ARG(ofg_value_sequence_at(sv, 0, NULL), "out");
    part_t = NULL;
    CHECK(ofg_value_sequence_at(sv, 2, &part_t) == OFG_ERR_INVALID_ARGUMENT && part_t == NULL);
    CHECK(ofg_value_sequence_at(sv, 1, &part_t) == OFG_OK && ((const float*)ofg_tensor_data(part_t))[1] == 5.0f);
    CHECK_NULL_ARG(ofg_value_create_optional(sv, NULL), "out");
    CHECK(ofg_value_create_optional(tv, &ov) == OFG_OK && ofg_value_kind(ov) == OFG_VALUE_OPTIONAL);
    CHECK(ofg_value_create_optional(ov, &untouched_v) == OFG_ERR_UNSUPPORTED && untouched_v == (ofg_value*)0x1);
    CHECK(ofg_value_create_optional(NULL, &empty) == OFG_OK);
    CHECK_NULL_ARG(ofg_value_optional_has_value(NULL, &has), "value");
    CHECK_NULL_ARG(ofg_value_optional_has_value(ov, NULL), "out");
    CHECK(ofg_value_optional_has_value(ov, &has) == OFG_OK && has == 1);
    CHECK(ofg_value_optional_has_value(empty, &has) == OFG_OK && has == 0);
    const ofg_value* inner = NULL;
    CHECK_NULL_ARG(ofg_value_optional_element(NULL, &inner), "value");
    CHECK_NULL_ARG(ofg_value_optional_element(ov, NULL), "out");
    CHECK(ofg_value_optional_element(empty, &inner) == OFG_ERR_INVALID_ARGUMENT && inner == NULL);
    CHECK(ofg_value_optional_element(ov, &inner) == OFG_OK && ofg_value_kind(inner) == OFG_VALUE_TENSOR);
    CHECK(ofg_value_kind(NULL) == 0 && strcmp(ofg_value_name(NULL), "") == 0 && ofg_value_name(sv) != NULL);

    /* .pb files: a SequenceProto of both tensors and an OptionalProto of the first */
    void *pa = NULL, *pbb = NULL;
    size_t na = 0, nb = 0;
    CHECK(ofg_tensor_save_pb(ta, NULL, &pa, &na) == OFG_OK && ofg_tensor_save_pb(tb, NULL, &pbb, &nb) == OFG_OK);
    pbuf seq_pb = {{0}, 0}, opt_pb = {{0}, 0};
    pb_str(&seq_pb, 1, "s");           /* SequenceProto.name */
    pb_int(&seq_pb, 2, 1);             /* elem_type = TENSOR */
    pb_bytes(&seq_pb, 3, pa, na);      /* tensor_values */
    pb_bytes(&seq_pb, 3, pbb, nb);
    pb_int(&opt_pb, 2, 1);             /* OptionalProto.elem_type = TENSOR */
    pb_bytes(&opt_pb, 3, pa, na);      /* tensor_value */
    ofg_buffer_free(pa);
    ofg_buffer_free(pbb);
    ofg_value *ls = NULL, *lo = NULL, *le = NULL;
    CHECK_NULL_ARG(ofg_value_load_pb(NULL, OFG_INPUT, 0, seq_pb.d, seq_pb.n, &ls), "model");
    CHECK_NULL_ARG(ofg_value_load_pb(sm, OFG_INPUT, 0, NULL, seq_pb.n, &ls), "data");
    CHECK_NULL_ARG(ofg_value_load_pb(sm, OFG_INPUT, 0, seq_pb.d, seq_pb.n, NULL), "out");
    CHECK(ofg_value_load_pb(sm, 5, 0, seq_pb.d, seq_pb.n, &untouched_v) == OFG_ERR_INVALID_ARGUMENT);
    CHECK(ofg_value_load_pb(sm, OFG_INPUT, 9, seq_pb.d, seq_pb.n, &untouched_v) == OFG_ERR_INVALID_ARGUMENT);
    CHECK(ofg_value_load_pb(sm, OFG_INPUT, 0, seq_pb.d, seq_pb.n - 1, &untouched_v) == OFG_ERR_PARSE);
    CHECK(untouched_v == (ofg_value*)0x1);
    CHECK(ofg_value_load_pb(sm, OFG_INPUT, 0, seq_pb.d, seq_pb.n, &ls) == OFG_OK);
    CHECK(ofg_value_kind(ls) == OFG_VALUE_SEQUENCE && strcmp(ofg_value_name(ls), "s") == 0);
    CHECK(ofg_value_sequence_length(ls, &len) == OFG_OK && len == 2);
    CHECK(ofg_value_load_pb(sm, OFG_INPUT, 1, opt_pb.d, opt_pb.n, &lo) == OFG_OK);
    CHECK(ofg_value_optional_has_value(lo, &has) == OFG_OK && has == 1);
    CHECK(ofg_value_load_pb(sm, OFG_OUTPUT, 1, NULL, 0, &le) == OFG_OK); /* no field: empty optional */
    CHECK(ofg_value_optional_has_value(le, &has) == OFG_OK && has == 0);

    /* save and load back: the same sequence, the same optional */
    void* saved = (void*)0x1;
    size_t saved_n = 7;
    CHECK_NULL_ARG(ofg_value_save_pb(NULL, "x", &saved, &saved_n), "value");
    CHECK_NULL_ARG(ofg_value_save_pb(ls, "x", NULL, &saved_n), "data");
    CHECK_NULL_ARG(ofg_value_save_pb(ls, "x", &saved, NULL), "size");
    CHECK(saved == (void*)0x1 && saved_n == 7);
    CHECK(ofg_value_save_pb(ls, "s", &saved, &saved_n) == OFG_OK);
    CHECK(saved_n == seq_pb.n && memcmp(saved, seq_pb.d, saved_n) == 0);
    ofg_buffer_free(saved);
    CHECK(ofg_value_save_pb(lo, NULL, &saved, &saved_n) == OFG_OK);
    CHECK(saved_n == opt_pb.n && memcmp(saved, opt_pb.d, saved_n) == 0);
    ofg_buffer_free(saved);

    /* run and compare */
    const char* vnames[2] = {"s", "o"};
    const ofg_value* vin[2] = {ls, lo};
    size_t vn = 0;
    ofg_value** vout = NULL;
    CHECK_NULL_ARG(ofg_run_values(NULL, NULL, 2, vnames, vin, &vn, &vout), "model");
    CHECK_NULL_ARG(ofg_run_values(sm, NULL, 2, NULL, vin, &vn, &vout), "names");
    CHECK_NULL_ARG(ofg_run_values(sm, NULL, 2, vnames, NULL, &vn, &vout), "inputs");
    CHECK_NULL_ARG(ofg_run_values(sm, NULL, 2, vnames, vin, NULL, &vout), "n_outputs");
    CHECK_NULL_ARG(ofg_run_values(sm, NULL, 2, vnames, vin, &vn, NULL), "outputs");
    CHECK(vout == NULL);
    CHECK(ofg_run_values(sm, NULL, 2, vnames, vin, &vn, &vout) == OFG_OK && vn == 2);
    CHECK(strcmp(ofg_value_name(vout[0]), "s_out") == 0 && ofg_value_kind(vout[1]) == OFG_VALUE_OPTIONAL);
    ofg_report* cr = NULL;
    int32_t passed = 0;
    size_t entries_n = 0;
    ofg_diff d;
    memset(&d, 0, sizeof d);
    d.struct_size = sizeof d;
    CHECK_NULL_ARG(ofg_value_compare(NULL, ls, 1e-5, 1e-3, &cr), "actual");
    CHECK_NULL_ARG(ofg_value_compare(vout[0], NULL, 1e-5, 1e-3, &cr), "expected");
    CHECK_NULL_ARG(ofg_value_compare(vout[0], ls, 1e-5, 1e-3, NULL), "out");
    CHECK(ofg_value_compare(vout[0], ls, 1e-5, 1e-3, &cr) == OFG_OK);
    CHECK(ofg_report_passed(cr, &passed) == OFG_OK && passed == 1);
    CHECK(ofg_report_output_count(cr, &entries_n) == OFG_OK && entries_n == 2);
    CHECK(ofg_report_output(cr, 1, &d) == OFG_OK && strcmp(d.name, "s_out[1]") == 0 && d.elements == 2);
    ofg_report_free(cr);
    cr = NULL;
    CHECK(ofg_value_compare(vout[1], le, 1e-5, 1e-3, &cr) == OFG_OK);
    CHECK(ofg_report_passed(cr, &passed) == OFG_OK && passed == 0);
    CHECK(ofg_report_output(cr, 0, &d) == OFG_OK && d.problem != NULL && !d.passed);
    ofg_report_free(cr);
    cr = NULL;
    /* the empty optional given explicitly comes back empty */
    vin[1] = le;
    ofg_values_free(vout, vn);
    vout = NULL;
    CHECK(ofg_run_values(sm, NULL, 2, vnames, vin, &vn, &vout) == OFG_OK);
    CHECK(ofg_value_optional_has_value(vout[1], &has) == OFG_OK && has == 0);
    CHECK(ofg_value_compare(vout[1], le, 1e-5, 1e-3, &cr) == OFG_OK);
    CHECK(ofg_report_passed(cr, &passed) == OFG_OK && passed == 1);
    ofg_report_free(cr);
    /* a tensor-only model runs through values too */
    float image[3 * 16 * 16];
    int64_t idims[4] = {1, 3, 16, 16};
    memset(image, 0, sizeof image);
    ofg_tensor* img = NULL;
    ofg_value* img_v = NULL;
    CHECK(ofg_tensor_create(1, idims, 4, image, sizeof image, &img) == OFG_OK && ofg_value_from_tensor(img, &img_v) == OFG_OK);
    const char* iname[1] = {"image"};
    const ofg_value* iv[1] = {img_v};
    ofg_value** dout = NULL;
    size_t dn = 0;
    CHECK(ofg_run_values(model, NULL, 1, iname, iv, &dn, &dout) == OFG_OK && dn == 1);
    CHECK(ofg_value_kind(dout[0]) == OFG_VALUE_TENSOR && strcmp(ofg_value_name(dout[0]), "logits") == 0);
    ofg_values_free(dout, dn);
    ofg_value_free(img_v);
    ofg_tensor_free(img);

    ofg_values_free(vout, vn);
    ofg_values_free(NULL, 3);
    ofg_value_free(NULL);
    ofg_value_free(ls);
    ofg_value_free(lo);
    ofg_value_free(le);
    ofg_value_free(tv);
    ofg_value_free(sv);
    ofg_value_free(ov);
    ofg_value_free(empty);
    ofg_tensor_free(ta);
    ofg_tensor_free(tb);
    ofg_model_free(sm);
  }

  /* passes, optimization and verification */
  {
    size_t passes = ofg_pass_count();
    CHECK(passes > 5);
    CHECK(ofg_pass_name(passes) == NULL && ofg_pass_class(passes) == -1);
    CHECK(ofg_pass_description(0) != NULL && ofg_pass_in_default_pipeline(0) >= 0);
    ofg_model* optimized = NULL;
    CHECK(ofg_model_create_demo(&optimized) == OFG_OK);
    ofg_pass_report* pr = NULL;
    CHECK_NULL_ARG(ofg_run_pass(NULL, ofg_pass_name(0), NULL, &pr), "model");
    CHECK(ofg_run_pass(optimized, "no_such_pass", NULL, &pr) == OFG_ERR_INVALID_ARGUMENT && pr == NULL);
    CHECK(ofg_run_pass(optimized, ofg_pass_name(0), NULL, &pr) == OFG_OK);
    size_t entries_n = 0;
    CHECK(ofg_pass_report_count(pr, &entries_n) == OFG_OK && entries_n == 1);
    ofg_pass_report_free(pr);
    pr = NULL;
    CHECK_NULL_ARG(ofg_optimize(NULL, NULL, &pr), "model");
    CHECK(ofg_optimize(optimized, NULL, &pr) == OFG_OK && pr != NULL);
    ofg_pass_entry entry;
    memset(&entry, 0, sizeof entry);
    entry.struct_size = sizeof entry;
    CHECK(ofg_pass_report_entry(pr, 0, &entry) == OFG_OK && entry.name != NULL);
    int64_t before = 0, after = 0;
    CHECK(ofg_pass_report_totals(pr, &before, &after, NULL, NULL, NULL, NULL) == OFG_OK && after < before);
    CHECK(ofg_pass_report_json(pr) != NULL && ofg_pass_report_json(NULL) == NULL);
    ofg_pass_report_free(pr);
    ofg_pass_report_free(NULL);

    /* --- precision conversion: a copy of the optimized model to float16, verified */
    {
      ofg_model* half = NULL;
      ofg_pass_report* cr = NULL;
      CHECK(ofg_model_clone(optimized, &half) == OFG_OK);
      CHECK_NULL_ARG(ofg_convert_float(NULL, NULL, &cr), "model");
      CHECK(ofg_convert_float(half, NULL, &cr) == OFG_OK && cr != NULL);
      CHECK(strstr(ofg_pass_report_json(cr), "\"verified\":true") != NULL);
      ofg_pass_report_free(cr);
      ofg_model_free(half);
    }
    /* --- end precision conversion */

    ofg_report* vr = NULL;
    CHECK_NULL_ARG(ofg_verify(NULL, optimized, NULL, &vr), "reference");
    CHECK(ofg_verify(model, optimized, NULL, &vr) == OFG_OK);
    int32_t passed = 0;
    size_t outputs_n = 0;
    CHECK(ofg_report_passed(vr, &passed) == OFG_OK && passed == 1);
    CHECK(ofg_report_output_count(vr, &outputs_n) == OFG_OK && outputs_n == 1);
    ofg_diff d;
    memset(&d, 0, sizeof d);
    d.struct_size = sizeof d;
    CHECK(ofg_report_output(vr, 0, &d) == OFG_OK && strcmp(d.name, "logits") == 0 && d.passed);
    CHECK(ofg_report_output(vr, 5, &d) == OFG_ERR_INVALID_ARGUMENT);
    /* The report names the inputs it used and how they were chosen. */
    size_t inputs_n = 0;
    CHECK(ofg_report_input_count(vr, &inputs_n) == OFG_OK && inputs_n >= 1);
    CHECK_NULL_ARG(ofg_report_input_count(NULL, &inputs_n), "report");
    ofg_input_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    CHECK(ofg_report_input(vr, 0, &info) == OFG_OK && info.name != NULL && info.elem_type == 1 && info.rank >= 1 &&
          info.dims != NULL && strcmp(info.source, "seed 0") == 0);
    CHECK(ofg_report_input(vr, inputs_n, &info) == OFG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(ofg_report_note(vr), "seeded random inputs") != NULL && strcmp(ofg_report_note(NULL), "") == 0);
    CHECK(ofg_report_json(vr) != NULL && strstr(ofg_report_json(vr), "\"passed\":true") != NULL &&
          ofg_report_json(NULL) == NULL);
    ofg_report_free(vr);
    ofg_report_free(NULL);
    /* No input set a model accepts: its own status, distinct from an invalid model. */
    CHECK(strcmp(ofg_status_string(OFG_ERR_NO_VALID_INPUTS), "cannot build inputs that the model accepts") == 0);
    ofg_model_free(optimized);
  }

  /* clone, option values checked when set, progress (with cancel) and log callbacks */
  {
    ofg_model* copy = NULL;
    ofg_model* untouched_m = (ofg_model*)0x1;
    CHECK_NULL_ARG(ofg_model_clone(NULL, &copy), "model");
    CHECK_NULL_ARG(ofg_model_clone(model, NULL), "out");
    CHECK(ofg_model_clone(model, &copy) == OFG_OK && copy != NULL && copy != model);
    size_t copy_nodes = 0, model_nodes = 0;
    CHECK(ofg_model_node_count(copy, 1, &copy_nodes) == OFG_OK && ofg_model_node_count(model, 1, &model_nodes) == OFG_OK &&
          copy_nodes == model_nodes);
    void *b1 = NULL, *b2 = NULL;
    size_t s1 = 0, s2 = 0;
    CHECK(ofg_save_to_memory(model, NULL, &b1, &s1) == OFG_OK && ofg_save_to_memory(copy, NULL, &b2, &s2) == OFG_OK);
    CHECK(s1 == s2 && memcmp(b1, b2, s1) == 0);
    ofg_buffer_free(b1);
    ofg_buffer_free(b2);
    (void)untouched_m;

    ofg_options* o = NULL;
    CHECK(ofg_options_create(&o) == OFG_OK);
    CHECK(ofg_options_set(o, "verify.samples", "two") == OFG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(ofg_last_error(), "verify.samples") != NULL);
    /* Values each option refuses: not a number, out of its range, an unknown pass or shape. */
    static const char* const refused[][2] = {
        {"verify.samples", "0"},          {"verify.samples", "2.5"},
        {"verify.atol", "abc"},           {"verify.rtol", "-1"},
        {"verify.dim.batch", "-2"},       {"optimize.verify_each_pass", "yes"},
        {"optimize.max_iterations", "0"}, {"optimize.passes", "no_such_pass"},
        {"optimize.input_shapes", "image=1,x"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; ++i)
      CHECK(ofg_options_set(o, refused[i][0], refused[i][1]) == OFG_ERR_INVALID_ARGUMENT);
    CHECK(ofg_options_set(o, "verify.samples", "2") == OFG_OK);
    CHECK(ofg_options_set(o, "verify.atol", "1e-4") == OFG_OK);
    CHECK(ofg_options_set(o, "verify.dim.batch", "1") == OFG_OK);

    int progress_calls[3] = {0, 0, 0}; /* calls, last done, last total */
    int log_calls = 0;
    CHECK_NULL_ARG(ofg_options_set_progress(NULL, NULL, NULL), "options");
    CHECK_NULL_ARG(ofg_options_set_log(NULL, NULL, NULL), "options");
    CHECK(ofg_options_set_progress(o, count_progress, progress_calls) == OFG_OK);
    CHECK(ofg_options_set_log(o, count_log, &log_calls) == OFG_OK);
    ofg_pass_report* pr = NULL;
    CHECK(ofg_optimize(copy, o, &pr) == OFG_OK);
    size_t records = 0;
    CHECK(ofg_pass_report_count(pr, &records) == OFG_OK && records > 0);
    CHECK(progress_calls[0] == (int)records && progress_calls[1] == (int)records && progress_calls[2] >= progress_calls[1]);
    ofg_pass_report_free(pr);
    pr = NULL;
    ofg_report* vr = NULL;
    progress_calls[0] = 0;
    CHECK(ofg_verify(model, copy, o, &vr) == OFG_OK && vr != NULL);
    CHECK(progress_calls[0] == 2 && progress_calls[1] == 2 && progress_calls[2] == 2);
    CHECK(log_calls >= 1);
    ofg_report_free(vr);
    vr = NULL;

    /* a progress callback that returns non-zero cancels */
    int stop_after = 1;
    CHECK(ofg_options_set_progress(o, stop_progress, &stop_after) == OFG_OK);
    CHECK(ofg_verify(model, copy, o, &vr) == OFG_ERR_CANCELLED && vr == NULL);
    CHECK(strstr(ofg_last_error(), "cancelled") != NULL);
    ofg_model* fresh = NULL;
    CHECK(ofg_model_create_demo(&fresh) == OFG_OK);
    stop_after = 2;
    CHECK(ofg_optimize(fresh, o, &pr) == OFG_ERR_CANCELLED && pr == NULL);
    /* the model keeps the passes that completed and is still valid */
    CHECK(ofg_options_set_progress(o, NULL, NULL) == OFG_OK);
    CHECK(ofg_options_set_log(o, NULL, NULL) == OFG_OK);
    CHECK(ofg_verify(model, fresh, o, &vr) == OFG_OK);
    int32_t ok = 0;
    CHECK(ofg_report_passed(vr, &ok) == OFG_OK && ok == 1);
    ofg_report_free(vr);
    ofg_model_free(fresh);
    ofg_options_free(o);
    ofg_model_free(copy);
  }

  /* ---- opset conversion (issue 22, part 2): down and up, verified; a bad target leaves the model as it was */
  {
    ofg_model* conv = NULL;
    ofg_pass_report* cr = NULL;
    const char* dom = NULL;
    int64_t ver = 0;
    CHECK(ofg_model_create_demo(&conv) == OFG_OK);
    CHECK_NULL_ARG(ofg_convert_opset(NULL, 11, NULL, &cr), "model");
    CHECK(ofg_convert_opset(conv, 3, NULL, &cr) == OFG_ERR_INVALID_ARGUMENT && cr == NULL);
    CHECK(ofg_model_opset(conv, 0, &dom, &ver) == OFG_OK && ver == 13);
    CHECK(ofg_convert_opset(conv, 11, NULL, &cr) == OFG_OK && cr != NULL);
    CHECK(ofg_model_opset(conv, 0, &dom, &ver) == OFG_OK && ver == 11);
    ofg_pass_entry ce;
    memset(&ce, 0, sizeof ce);
    ce.struct_size = sizeof ce;
    CHECK(ofg_pass_report_entry(cr, 0, &ce) == OFG_OK && strstr(ce.note, "verified by execution") != NULL);
    ofg_pass_report_free(cr);
    ofg_options* co = NULL;
    CHECK(ofg_options_create(&co) == OFG_OK);
    CHECK(ofg_options_set(co, "convert.verify", "2") == OFG_ERR_INVALID_ARGUMENT);
    CHECK(ofg_options_set(co, "convert.verify", "0") == OFG_OK);
    CHECK(ofg_convert_opset(conv, 17, co, NULL) == OFG_OK);
    CHECK(ofg_model_opset(conv, 0, &dom, &ver) == OFG_OK && ver == 17);
    ofg_options_free(co);
    ofg_model_free(conv);
  }

  /* ---- target profiles (issue 24, part 1): the list, a check of the demo model, a bad name */
  {
    ofg_model* tm = NULL;
    char* tj = NULL;
    CHECK(ofg_model_create_demo(&tm) == OFG_OK);
    CHECK_NULL_ARG(ofg_targets_json(NULL), "out");
    CHECK(ofg_targets_json(&tj) == OFG_OK && tj != NULL && strstr(tj, "\"name\":\"tensorrt\"") != NULL);
    ofg_buffer_free(tj);
    tj = NULL;
    CHECK_NULL_ARG(ofg_check_target(NULL, "tensorrt", &tj), "model");
    CHECK_NULL_ARG(ofg_check_target(tm, NULL, &tj), "target");
    CHECK_NULL_ARG(ofg_check_target(tm, "tensorrt", NULL), "out_json");
    CHECK(ofg_check_target(tm, "no-such-target", &tj) == OFG_ERR_INVALID_ARGUMENT && tj == NULL);
    CHECK(strstr(ofg_last_error(), "known targets: ") != NULL);
    CHECK(ofg_check_target(tm, "opset:13", &tj) == OFG_OK && tj != NULL && strstr(tj, "\"legal\":true") != NULL);
    ofg_buffer_free(tj);
    tj = NULL;
    /* Graph diff (issue 24, part 4): a model against itself is identical; provenance must be a report. */
    CHECK_NULL_ARG(ofg_diff_json(NULL, tm, NULL, &tj), ": a is NULL");
    CHECK_NULL_ARG(ofg_diff_json(tm, NULL, NULL, &tj), ": b is NULL");
    CHECK_NULL_ARG(ofg_diff_json(tm, tm, NULL, NULL), "out_json");
    CHECK(ofg_diff_json(tm, tm, "{\"passes\": []}", &tj) == OFG_ERR_INVALID_ARGUMENT && tj == NULL);
    CHECK(strstr(ofg_last_error(), "provenance") != NULL);
    CHECK(ofg_diff_json(tm, tm, NULL, &tj) == OFG_OK && tj != NULL && strstr(tj, "{\"identical\":true,") == tj);
    ofg_buffer_free(tj);
    ofg_model_free(tm);
  }

  ofg_model_free(ext);
  ofg_model_free(from_file);
  ofg_model_free(again);
  ofg_buffer_free(bytes);
  ofg_model_free(model);
  ofg_options_free(opts);
  printf("%d passed, %d failed\n", checks - failures, failures);
  return failures == 0 ? 0 : 1;
}
