/*
 * onnxforge — load, simplify, verify and save ONNX models.
 *
 * This header is the whole public interface and its contract.
 *
 * A SHORT GUIDE
 *
 *   A program loads a model (ofg_load, ofg_load_from_memory, ofg_model_create_demo), may copy it
 *   (ofg_model_clone), optimizes it (ofg_optimize, ofg_run_pass), checks the result against the
 *   original by running both (ofg_verify), runs it (ofg_run, ofg_run_values) and saves it
 *   (ofg_save, ofg_save_to_memory):
 *
 *       ofg_model *m = NULL, *orig = NULL;
 *       ofg_report *r = NULL;
 *       int32_t ok = 0;
 *       if (ofg_load("model.onnx", NULL, &m) != OFG_OK) { puts(ofg_last_error()); return 1; }
 *       ofg_model_clone(m, &orig);
 *       ofg_optimize(m, NULL, NULL);
 *       if (ofg_verify(orig, m, NULL, &r) == OFG_OK) ofg_report_passed(r, &ok);
 *       if (ok) ofg_save(m, "model.opt.onnx", NULL);
 *       ofg_report_free(r); ofg_model_free(orig); ofg_model_free(m);
 *
 *   Ownership. Every object the caller receives through an out-parameter (ofg_model, ofg_options,
 *   ofg_pass_report, ofg_report, ofg_tensor, ofg_value, buffers) belongs to the caller and is
 *   released by its ofg_*_free function, never by free(); every ofg_*_free accepts NULL. A
 *   `const char*` or borrowed handle the library returns belongs to the object it came from; its
 *   lifetime is written next to the function. A model loaded from a file views the memory-mapped
 *   file; a model loaded from memory views the caller's buffer unless "load.copy_buffer" is "1"
 *   (bindings for garbage-collected languages should always set it).
 *
 *   Threads. Calls that run ops (ofg_run, ofg_run_values, ofg_verify, ofg_optimize, ofg_run_pass)
 *   split the work of large ops between "run.threads" threads (default: the machine's cores), the
 *   calling thread among them; the helpers are a process-wide pool started on first need and kept,
 *   idle, for later calls (with run.threads "1" none is ever started). Results are bit for bit the
 *   same on any number of threads. No other thread outlives a call. A model is not thread-safe, not
 *   even for the calls that take it const (running it fills caches): use one model from one
 *   thread at a time, or one ofg_model_clone per thread. Distinct models, tensors and values may be
 *   used from different threads at once; tensors and values are immutable and may be read from
 *   several threads. Version, status and last-error calls are always safe.
 *
 *   Errors. Every fallible call returns an ofg_status; OFG_OK is 0. On failure the out-parameters
 *   are left untouched, and ofg_last_error() describes what went wrong (file, node, op, expected
 *   vs got); the last error is per thread. Status codes are only ever appended, never
 *   renumbered. Pointers documented as required may not be NULL: passing NULL returns
 *   OFG_ERR_INVALID_ARGUMENT naming the parameter; it never crashes.
 *
 *   Options. Settings are strings in an ofg_options bag (ofg_options_set), checked when set:
 *   unknown keys and malformed values (a count that is not a positive integer, a flag other than
 *   "0"/"1") are refused there. Every function taking options accepts NULL for defaults and
 *   copies what it needs.
 *
 *   Callbacks. An ofg_options may carry a progress callback (ofg_options_set_progress; returning
 *   non-zero cancels the call with OFG_ERR_CANCELLED) and a log callback (ofg_options_set_log).
 *   They are called on the calling thread, only during a call given those options, and must not
 *   call back into the library with the same model.
 *
 *   Strings are UTF-8 and NUL-terminated. Structs the caller passes to be filled (ofg_value_desc,
 *   ofg_pass_entry, ofg_diff, ofg_input_info) start with struct_size; fields are only appended.
 */
#ifndef ONNXFORGE_H
#define ONNXFORGE_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#  if defined(OFG_BUILDING_LIBRARY)
#    define OFG_API __declspec(dllexport)
#  else
#    define OFG_API __declspec(dllimport)
#  endif
#else
#  define OFG_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ versions */
/* The one place the version is kept: the build (CMake project, pkg-config, CMake package), the
 * command's --version and the Python package's metadata all read these three lines. */
#define OFG_VERSION_MAJOR 0
#define OFG_VERSION_MINOR 2
#define OFG_VERSION_PATCH 0
#define OFG_VERSION_NUMBER (OFG_VERSION_MAJOR * 10000 + OFG_VERSION_MINOR * 100 + OFG_VERSION_PATCH)

/* The version of the library actually loaded (compare with OFG_VERSION_NUMBER). Always safe. */
OFG_API uint32_t ofg_version_number(void);
/* "MAJOR.MINOR.PATCH", static storage. Always safe. */
OFG_API const char* ofg_version_string(void);

/* ------------------------------------------------------------------ status */
typedef enum ofg_status {
  OFG_OK = 0,
  OFG_ERR_INVALID_ARGUMENT = 1, /* a NULL or out-of-range argument, an unknown option or name */
  OFG_ERR_IO = 2,               /* a file could not be opened, read, written or renamed */
  OFG_ERR_PARSE = 3,            /* the bytes are not a well-formed ONNX protobuf */
  OFG_ERR_INVALID_MODEL = 4,    /* well-formed, but not a valid model (undefined value, cycle...) */
  OFG_ERR_UNSUPPORTED = 5,      /* valid, but uses something this library does not implement */
  OFG_ERR_NO_MEMORY = 6,
  OFG_ERR_LIMIT = 7,            /* a size or nesting limit of the library was exceeded */
  OFG_ERR_VERIFY_FAILED = 8,    /* verification found outputs that differ beyond tolerance */
  OFG_ERR_CANCELLED = 9,        /* a progress callback asked to stop */
  OFG_ERR_INTERNAL = 10,        /* a bug in the library: please report it with the message */
  OFG_ERR_NO_VALID_INPUTS = 11  /* verification could not build inputs that the reference model
                                   accepts: give input shapes, dims or test data */
} ofg_status;

/* Static text for a status code ("unknown status" for other numbers). Always safe. */
OFG_API const char* ofg_status_string(ofg_status status);
/* The message of the last failed ofg_* call on this thread ("" when none). Valid until the next
 * ofg_* call on this thread. */
OFG_API const char* ofg_last_error(void);

/* ------------------------------------------------------------------ options */
/* Options are a bag of typed settings; functions copy what they need, so an options object may
 * be freed as soon as the call that used it returns. Every function taking options accepts NULL
 * for defaults. Unknown keys are an error (OFG_ERR_INVALID_ARGUMENT), never ignored. */
typedef struct ofg_options ofg_options;

OFG_API ofg_status ofg_options_create(ofg_options** out);
OFG_API void ofg_options_free(ofg_options* options);
/* Sets `key` to `value` (both required). Keys known so far:
 *   "load.copy_buffer"        "0"|"1": ofg_load_from_memory copies the buffer once (default 0:
 *                             the caller's buffer must outlive the model).
 *   "load.external_data_dir"  folder that external-data locations are relative to (default: the
 *                             model file's folder; memory loads refuse external data without it).
 *   "save.external_data"      "0"|"1": "1": tensors of at least save.external_threshold bytes
 *                             go to one data file beside the model; "0": everything inline, and
 *                             a model over 2 GiB - 1 bytes is refused. Unset (the default): as
 *                             the model was loaded (external data when any weight came from
 *                             external data, else inline), and external data whenever the model
 *                             would be over 2 GiB - 1 bytes inline. See ofg_save.
 *   "save.external_threshold" bytes, decimal (default 1024).
 *   "save.external_file"      file name of the data file (default: model file name + ".data").
 *   "save.durable"            "0"|"1": fsync the written files before the rename, so the new
 *                             model also survives a power loss (default 0: the rename alone
 *                             already makes readers see either the old or the complete new file).
 *   "optimize.*"              see ofg_optimize.
 *   "convert.*"               see ofg_convert_float (precision conversion).
 *   "run.max_tensor_bytes"    bytes, decimal: the largest tensor an op may create while a call
 *                             runs ops (ofg_run, ofg_run_values, ofg_verify, ofg_optimize,
 *                             ofg_run_pass); a larger one (a size computed from data: Range,
 *                             ConstantOfShape, Tile, Expand, Resize, Pad, ...) fails the call with
 *                             OFG_ERR_LIMIT (default: 4 GiB, or half the physical memory if less).
 *   "run.threads"             threads for the ops of those calls, decimal 0..1024 (default 0: the
 *                             machine's cores; 1: the calling thread only). Large GEMMs,
 *                             convolutions, pooling, elementwise ops and row normalisations are
 *                             split by output, so every result is identical on any count;
 *                             ofg_verify with 2 or more runs the two models at once, each on half.
 */
OFG_API ofg_status ofg_options_set(ofg_options* options, const char* key, const char* value);
/* Values are checked when set (OFG_ERR_INVALID_ARGUMENT, the options unchanged): flags are "0" or
 * "1"; counts (optimize.max_iterations, verify.samples, verify.max_tries, verify.int_high) are
 * positive decimal integers; save.external_threshold, verify.seed and verify.dim.NAME are
 * non-negative decimal integers; verify.atol and verify.rtol finite numbers >= 0; input shapes
 * "NAME=d1,d2;..." with non-negative dims; pass lists name known passes. */

/* Progress: `fn` (NULL removes it) is called by ofg_optimize after each pass (done = passes run,
 * total = passes of the rounds begun so far; the fixed-point loop may begin another round, so
 * total can grow) and by ofg_verify after each sample compared (done = samples compared, total =
 * samples) and after each candidate input set the reference rejected (done unchanged). A non-zero
 * return cancels the call with OFG_ERR_CANCELLED: an optimized model then keeps the passes that
 * completed (it is valid, only less optimized); verification gives no report. */
OFG_API ofg_status ofg_options_set_progress(ofg_options* options,
                                           int32_t (*fn)(void* user, uint32_t done, uint32_t total), void* user);

/* Levels of log messages. */
enum { OFG_LOG_INFO = 1, OFG_LOG_WARNING = 2 };
/* Log: `fn` (NULL removes it) receives notable events as one line of text, valid during the
 * call: a pass rolled back by optimize.verify_each_pass (OFG_LOG_WARNING), a verification input
 * set the reference rejected and the inputs finally chosen (OFG_LOG_INFO), the external data file
 * ofg_save wrote and why (OFG_LOG_INFO). */
OFG_API ofg_status ofg_options_set_log(ofg_options* options,
                                      void (*fn)(void* user, int32_t level, const char* message), void* user);

/* ------------------------------------------------------------------ models */
typedef struct ofg_model ofg_model;

/* Loads a model file. The file is memory-mapped; weights are views into the mapping, never
 * copied. External data is read only from inside the model's folder (absolute locations, '..'
 * and links that lead outside are refused). On success *out receives a model to be released
 * with ofg_model_free. */
OFG_API ofg_status ofg_load(const char* utf8_path, const ofg_options* options, ofg_model** out);
/* Loads a model from `size` bytes at `data`. Unless the option "load.copy_buffer" is "1", the
 * buffer is viewed, not copied, and must stay unchanged and alive until ofg_model_free. */
OFG_API ofg_status ofg_load_from_memory(const void* data, size_t size, const ofg_options* options,
                                        ofg_model** out);
OFG_API void ofg_model_free(ofg_model* model);
/* A new, independent model equal to `model` (same graph, weights and metadata; saving either
 * gives the same bytes), to be released with ofg_model_free. Either may be changed, used on
 * another thread or freed without affecting the other. The structure is copied; weights still in
 * the loaded file (or buffer) are shared, not copied: both models keep that mapping alive (for a
 * model that views the caller's buffer, load.copy_buffer 0, the buffer must then outlive both);
 * weights the original holds in its own memory are copied, and weights derived by passes are
 * computed into the copy. No save/parse round trip. */
OFG_API ofg_status ofg_model_clone(const ofg_model* model, ofg_model** out);
/* A small built-in model (a CNN + MLP with the typical leftovers of an export: unfused
 * BatchNormalization, Identity, Dropout, a cancelling Transpose pair, MatMul+Add), for demos and
 * tests that need no file. Released with ofg_model_free. */
OFG_API ofg_status ofg_model_create_demo(ofg_model** out);

/* Saves atomically: the bytes go to a temporary file in the same folder that replaces `utf8_path`
 * only when complete, so a failure leaves no partial file and the previous file intact (also when
 * `utf8_path` is the file the model was loaded from). Same model, same bytes. Weights still in the
 * loaded file are copied file to file by the kernel (copy_file_range) where the system allows;
 * weights that passes derive from others (a fused or transposed weight) are computed piece by
 * piece into the output, on a second thread when there are several MB of them.
 *
 * Size and layout. Protobuf cannot parse a message of 2 GiB or more, so a model is never written
 * inline above 2 GiB - 1 bytes. Unless "save.external_data" is set, the input's layout is kept: a
 * model that loaded any weight from external data is saved with external data, and any model
 * whose protobuf would pass 2 GiB - 1 bytes inline is too. With "save.external_data" "0" such a
 * model is refused with OFG_ERR_LIMIT before anything is written. The data file is
 * save.external_file (default: the file name of `utf8_path` + ".data") in the folder of
 * `utf8_path`; when one is written, the log callback (ofg_options_set_log) receives an
 * OFG_LOG_INFO line "weights written to PATH: N tensors, B bytes (...) (why)". A save that would
 * replace a file the model still reads its weights from (its data file, under another model's
 * name) is refused with OFG_ERR_INVALID_ARGUMENT, unless it replaces the model's own file too (an
 * in-place save: the old files stay readable through the model's mappings).
 *
 * Files. The file replaced keeps its mode (and its owner and group when the process may set
 * them, e.g. as root); a new file gets 0666 less the umask. A symbolic link is followed: the file
 * it points to is replaced and the link stays (for the data file too). On Linux the temporary
 * file has no name until it is complete (O_TMPFILE), so an interrupted process leaves nothing;
 * elsewhere it is named PATH.tmp-XXXXXX and ofg_remove_temporary_files removes it from a signal
 * handler. With external data the data file is put in place first, then the model; should the
 * model's rename fail, the previous data file is put back (where the system can exchange two
 * names: Linux >= 3.15 on most local file systems). Only a crash between the two renames can
 * leave the new data file beside the old model. */
OFG_API ofg_status ofg_save(const ofg_model* model, const char* utf8_path, const ofg_options* options);
/* Serializes into a new buffer (*data, *size), released with ofg_buffer_free. A model over 2 GiB
 * - 1 bytes is refused with OFG_ERR_LIMIT (no protobuf reader could parse it): use ofg_save. */
OFG_API ofg_status ofg_save_to_memory(const ofg_model* model, const ofg_options* options, void** data,
                                      size_t* size);
OFG_API void ofg_buffer_free(void* data);
/* Removes the temporary files of the saves in progress in this process that have a name (see
 * ofg_save: only where O_TMPFILE is not available, and for an instant before each rename).
 * Async-signal-safe: meant for a program's SIGINT/SIGTERM/SIGHUP handler, which then ends the
 * process (e.g. restores the default action and raises the signal again). The library installs
 * no signal handler itself. A save still running afterwards fails. */
OFG_API void ofg_remove_temporary_files(void);

/* ------------------------------------------------------------------ model queries */
/* Strings returned by these calls are valid until the model is changed or freed. */
OFG_API ofg_status ofg_model_ir_version(const ofg_model* model, int64_t* out);
/* Producer name and version ("" when absent); either out pointer may be NULL. */
OFG_API ofg_status ofg_model_producer(const ofg_model* model, const char** name, const char** version);
OFG_API ofg_status ofg_model_opset_count(const ofg_model* model, size_t* out);
/* Domain ("" for the default ONNX domain) and version of opset import `index`. */
OFG_API ofg_status ofg_model_opset(const ofg_model* model, size_t index, const char** domain, int64_t* version);

/* Which list of the main graph: graph inputs or graph outputs. Passed as int32_t so that any
 * number a binding sends is well-defined (other values give OFG_ERR_INVALID_ARGUMENT). */
enum { OFG_INPUT = 0, OFG_OUTPUT = 1 };

/* Element types use the ONNX TensorProto.DataType numbers (1 float32, 7 int64, ...). */
OFG_API const char* ofg_elem_type_name(int32_t elem_type);

/* Kinds of value a graph input or output can be (ONNX TypeProto tensor_type, sequence_type,
 * optional_type). Sequences hold tensors; an optional holds a tensor or a sequence, or nothing.
 * See ofg_value below. */
enum { OFG_VALUE_TENSOR = 1, OFG_VALUE_SEQUENCE = 2, OFG_VALUE_OPTIONAL = 3 };

/* Description of a graph input or output. The caller sets struct_size = sizeof(ofg_value_desc);
 * fields added in later versions are appended and filled only when struct_size covers them. */
typedef struct ofg_value_desc {
  uint32_t struct_size;
  const char* name;
  int32_t elem_type; /* 0 when not a tensor or not declared */
  int32_t rank;      /* -1 when the shape is unknown */
  /* Appended in 0.1: the declared kind, OFG_VALUE_TENSOR / _SEQUENCE / _OPTIONAL; 0 when the type
   * is not declared or is another kind (map, sparse tensor). */
  int32_t kind;
} ofg_value_desc;

/* Graph inputs that have an initializer (default values of IR < 4 models) are counted too. */
OFG_API ofg_status ofg_model_io_count(const ofg_model* model, int32_t kind, size_t* out);
OFG_API ofg_status ofg_model_io(const ofg_model* model, int32_t kind, size_t index, ofg_value_desc* out);
/* Dimension `dim` of an input/output: *value is its size, or -1 when it is not a fixed number;
 * *symbol is its symbolic name, or NULL. Either out pointer may be NULL. */
OFG_API ofg_status ofg_model_io_dim(const ofg_model* model, int32_t kind, size_t index, size_t dim,
                                    int64_t* value, const char** symbol);

/* Nodes of the main graph; with include_subgraphs != 0, also the nodes of every subgraph. */
OFG_API ofg_status ofg_model_node_count(const ofg_model* model, int32_t include_subgraphs, size_t* out);
/* Op-type histogram of the main graph, most frequent first (ties by domain, then name).
 * ofg_model_op_histogram_count computes it; entries stay valid until the model changes. */
OFG_API ofg_status ofg_model_op_histogram_count(const ofg_model* model, size_t* out);
OFG_API ofg_status ofg_model_op_histogram_entry(const ofg_model* model, size_t index, const char** domain,
                                                const char** op_type, size_t* count);
/* Initializers of the main graph and the bytes of their data. */
OFG_API ofg_status ofg_model_initializer_stats(const ofg_model* model, size_t* count, uint64_t* bytes);


/* ------------------------------------------------------------------ passes and optimization */
/* Passes are named by strings, listed by the calls below, so a new pass needs no ABI change.
 * Accuracy classes: 0 exact (the outputs are bit-identical), 1 bounded float rounding (Conv+BN
 * folding, MatMul+Add -> Gemm), 2 pattern rewrites to be verified on real models.
 * The strings returned by ofg_pass_name/ofg_pass_description are static. Always safe. */
OFG_API size_t ofg_pass_count(void);
/* NULL when i >= ofg_pass_count(). */
OFG_API const char* ofg_pass_name(size_t i);
OFG_API const char* ofg_pass_description(size_t i);
/* The accuracy class (0, 1, 2), or -1 when i >= ofg_pass_count(). */
OFG_API int32_t ofg_pass_class(size_t i);
/* Non-zero when pass i runs in ofg_optimize's default pipeline (0 for opt-in passes). */
OFG_API int32_t ofg_pass_in_default_pipeline(size_t i);

/* What one or several passes did. Released with ofg_pass_report_free. Strings it returns stay
 * valid until the report is freed. A report is not thread-safe. */
typedef struct ofg_pass_report ofg_pass_report;
OFG_API void ofg_pass_report_free(ofg_pass_report* report);

/* One run of one pass. The caller sets struct_size = sizeof(ofg_pass_entry); fields added later
 * are appended and filled only when struct_size covers them. */
typedef struct ofg_pass_entry {
  uint32_t struct_size;
  const char* name;
  int32_t accuracy_class;
  int32_t iteration;       /* 0-based round of the fixed-point loop */
  double milliseconds;
  int64_t changes;         /* rewrites made; 0 when the pass found nothing */
  int64_t nodes_removed, nodes_added;
  int64_t nodes_before, nodes_after;   /* all graphs, subgraphs included */
  uint64_t bytes_before, bytes_after;  /* initializer bytes, all graphs */
  int32_t rolled_back;     /* non-zero when verification failed and the pass was undone */
  const char* note;        /* why it was rolled back ("" otherwise) */
} ofg_pass_entry;

OFG_API ofg_status ofg_pass_report_count(const ofg_pass_report* report, size_t* out);
OFG_API ofg_status ofg_pass_report_entry(const ofg_pass_report* report, size_t index, ofg_pass_entry* out);
/* Totals over the whole run; every out pointer may be NULL. */
OFG_API ofg_status ofg_pass_report_totals(const ofg_pass_report* report, int64_t* nodes_before, int64_t* nodes_after,
                                          uint64_t* bytes_before, uint64_t* bytes_after, double* milliseconds,
                                          int32_t* iterations);
/* The whole report as one JSON object (totals and a "passes" array with the fields above).
 * Valid until the report is freed; NULL when report is NULL. */
OFG_API const char* ofg_pass_report_json(const ofg_pass_report* report);

/* Runs one pass by name (an unknown name is OFG_ERR_INVALID_ARGUMENT) on the whole model,
 * subgraphs included. `report` may be NULL; otherwise it receives a report with one entry.
 * Options used: "optimize.check_each_pass". */
OFG_API ofg_status ofg_run_pass(ofg_model* model, const char* pass, const ofg_options* options,
                                ofg_pass_report** report);
/* Runs the default pipeline to a fixed point (at most "optimize.max_iterations" rounds).
 * `report` may be NULL. On failure the model may be partly optimized but is always valid.
 * Options used:
 *   "optimize.passes"          comma-separated pass names to run instead of the default list
 *   "optimize.skip"            comma-separated pass names not to run (unknown names are an error)
 *   "optimize.input_shapes"    "NAME=1,3,224,224;NAME2=..." fixes graph input shapes first
 *   "optimize.max_iterations"  rounds of the fixed-point loop (default 8)
 *   "optimize.max_rewrites"    stop after this many rewrites in total (default: no limit; "0":
 *                              none), to bisect a wrong result to one rewrite. A rule's rewrite
 *                              of one node counts one; a whole-graph pass (folding, CSE, dead
 *                              nodes, ...) runs only while some budget is left and counts one when
 *                              it changes anything; a rolled-back pass gives its rewrites back.
 *                              The report's JSON then lists every rewrite made, in order
 *                              ("rewrites": index, pass, rule, node, op, what); it always has
 *                              "rewrites_made".
 *   "optimize.list_rewrites"   "0"|"1": list the rewrites in the report without a budget
 *   "optimize.provenance"      "0"|"1": the report's JSON gets "provenance": {output node name:
 *                              [names of the original nodes it came from]} for every node of
 *                              every graph (a fusion lists every node it replaced) and "folded":
 *                              {initializer name: [original nodes constant folding turned into
 *                              it]}. An original node without a name is "#k", k its index in walk
 *                              order (the main graph's nodes, then each subgraph's, parents first,
 *                              subgraphs in the order of their owning nodes); an output node
 *                              without a name is given one, `<op>_ofg<k>` (the only change this
 *                              option makes to the model). Nodes sharing a name share an entry.
 *   "optimize.keep_names"      "0"|"1": every value that stays in the model keeps its name (no
 *                              Identity is removed by renaming its input to a graph output's name;
 *                              no If is inlined whose branch values would need new names), for
 *                              tools keyed by tensor names (quantization encodings)
 *   "optimize.fold_budget"     bytes one constant fold may add to the model, net (default 4096):
 *                              a fold whose inputs stay because other nodes read them (a tied
 *                              embedding read by Gather and, transposed, by the output MatMul)
 *                              adds its whole result; a larger budget trades size for nodes
 *   "optimize.check_each_pass" "0"|"1": check IR consistency after every pass (default 0)
 *   "optimize.explain"         "0"|"1" (default 1): the report's JSON lists why rules left nodes
 *                              alone, "not_applied": [{"pass", "rule", "node", "op", "reason"}],
 *                              each once over all rounds, without the nodes a rule rewrote
 *                              later ("in_output": false marks a node a later pass removed);
 *                              "node" is "" when the whole pass declined (e.g. "opset 13
 *                              has no LayerNormalization: use --target-opset 17"), then "op" is
 *                              the op the rule starts from. "0" skips collecting them.
 *   "optimize.verify_each_pass" "0"|"1": verify each class 1/2 pass by execution against the
 *                              model before it and roll it back when the outputs drift
 *                              (the "verify.*" options of ofg_verify apply; a model with an op the
 *                              interpreter lacks fails with OFG_ERR_UNSUPPORTED). */
OFG_API ofg_status ofg_optimize(ofg_model* model, const ofg_options* options, ofg_pass_report** report);

/* ---- precision conversion (ofg_convert_float) ----
 * Converts the model's float32 computation to float16 or bfloat16 in place: float32 initializers
 * read by converted nodes, Constant values, Cast(to=float) and dtype attributes (a Cast to float32
 * inside the converted part now casts to the target; one whose input already has that type is
 * removed) and the declared types of the values computed in the target type. Values beyond the
 * target's finite range are clamped to it; the log callback (level 2) and the report name them.
 * A Cast is inserted wherever a value meets a consumer of the other precision: at most one per
 * value and precision, never a Cast of a Cast's output. Nodes stay float32 when the caller blocks
 * them, when they hold subgraphs (not converted), when the interpreter cannot run them in half
 * precision, or when the spec's type constraints do not admit the target at the model's opset
 * (bfloat16 came to most ops at opset 13, to convolutions and pooling at 22); inputs the spec
 * types float32 only (Resize/Upsample scales) keep float32 values; Range and float arithmetic on
 * values cast from integers (shape arithmetic) stay float32.
 * With "convert.verify" (default 1) the result is checked against the float32 original by
 * execution (inputs as for ofg_verify: "verify.test_data", "verify.input.NAME", else drawn).
 * When outputs differ, the error is attributed to nodes (both models run with every converted
 * value compared with the float32 value it replaces; the nodes whose output first goes beyond
 * tolerance or overflows, else those with the largest error growth, stay float32) and the
 * conversion is redone, at most 10 rounds; then OFG_ERR_VERIFY_FAILED and the model unchanged.
 * Default tolerance (atol and rtol alike, on the float32 outputs): float16 1e-2, bfloat16 1.5e-1;
 * "verify.atol"/"verify.rtol" replace them. The float64 referee is not used.
 * `report` (may be NULL) has one entry "convert_float"; its JSON (ofg_pass_report_json) is the
 * conversion's: "kept_float32" (index, node, op, reason: "blocked by user ...", "spec: ...",
 * "interpreter: ...", "error attribution: ..." with the measured error), "clamped", "rounds",
 * "casts_added", "verified", "atol", "rtol", "verify" (the final ofg_verify JSON report).
 * Options:
 *   "convert.float"          "float16" (default) | "bfloat16"
 *   "convert.keep_io_types"  "0"|"1" (default 1): graph inputs and outputs stay float32, with one
 *                            Cast at each boundary; "0": they take the target type too
 *   "convert.block_ops"      comma-separated op types kept float32
 *   "convert.block_nodes"    comma-separated node names kept float32
 *   "convert.verify"         "0"|"1" (default 1): the verification and attribution above */
OFG_API ofg_status ofg_convert_float(ofg_model* model, const ofg_options* options, ofg_pass_report** report);
/* ---- end precision conversion ---- */
/* ---- opset conversion (issue 22, part 2) */
/* Converts the model's default ONNX domain to opset `target_opset` (7 .. the newest the library
 * knows), up or down, through a table of adapters: attributes that became inputs and back
 * (Squeeze/Unsqueeze/Reduce* axes, Split, Pad, Clip, Slice, TopK, Dropout), Upsample <-> Resize,
 * Softmax's axis meaning, removed or added attributes, and new ops lowered to their
 * decompositions when going below their opset (LayerNormalization, Gelu, Mish, HardSwish, Swish).
 * Going up, nothing is fused: ofg_optimize afterwards applies the fusions the new opset allows.
 * Subgraphs (If/Loop/Scan bodies) are converted; other domains are left alone and named in the
 * report. The conversion works on a copy: when any node cannot be expressed at the target, the
 * call fails with OFG_ERR_UNSUPPORTED naming each node, its op and the versions involved, and
 * `model` is unchanged. The converted copy is then verified against the original by executing
 * both ("verify.*" options of ofg_verify apply); outputs beyond tolerance fail the call with
 * OFG_ERR_VERIFY_FAILED, the model unchanged.
 * Options:
 *   "convert.verify"  "0"|"1": verify the converted model by execution (default 1).
 * The report (may be NULL) has one entry "convert_opset" whose note sums up the conversion
 * (adapted nodes, adapter rows, verification, other domains); its JSON lists each adapted node
 * under "rewrites" (node, op, "opset A -> B", what was done). */
OFG_API ofg_status ofg_convert_opset(ofg_model* model, int64_t target_opset, const ofg_options* options,
                                     ofg_pass_report** report);
/* ---- end opset conversion */
/* ---- target profiles (issue 24, part 1) */
/* What a converter or runtime accepts, as data: one profile per target, compiled into the library
 * from the repository's targets/NAME.profile files (format and sources: docs/targets.md). Built in:
 * "tensorrt", "openvino", "rknn", "qnn", "coreml-ort", and the generic "opset:N" (N from 7 to 28:
 * every default-domain op that exists at opset N, from the library's op-version table). Each
 * profile lists the ops it accepts (ops not listed are not supported), an opset range, and per-op
 * rules: opset range of the op, element types of an input, rank of input 0, inputs that must be
 * constant, zero-point inputs that must be constant zeros, allowed attribute values.
 * Both functions hand out a NUL-terminated JSON string in *out, released with ofg_buffer_free;
 * on failure *out is untouched. Always safe to call from any thread (the model is only read). */

/* Every target: {"targets": [{"name", "title", "source", "url", "version", "opset_min",
 * "opset_max" (0: no bound), "ops" (how many)}], "generic": "opset:N", "generic_min",
 * "generic_max"}. What could not be confirmed from each document is in its file's notes. */
OFG_API ofg_status ofg_targets_json(char** out);
/* Checks every node of `model` (subgraphs included) against the profile `target`. The JSON:
 * {"target", "model_opset", "nodes", "illegal_nodes", "legal" (true when nothing was found),
 * "findings": [{"node", "op" ("Conv", or "domain:Op"), "graph" ("" = main graph, else the owner
 * path "If_3/then_branch"), "rule", "message"}]}. Rules: "model_opset" (once, node ""): the
 * model's default-domain opset is outside the profile's range; "op": not supported; "opset": the
 * op is not accepted at the model's opset; "attribute": a value not allowed; "constant": an input
 * that must be constant is not; "zero_point": an input that must be constant zeros is not; "rank",
 * "dtype": input rank or element type not accepted (checked where type inference knows them).
 * The model is not changed. An unknown target is OFG_ERR_INVALID_ARGUMENT, its message listing
 * the known names. */
OFG_API ofg_status ofg_check_target(const ofg_model* model, const char* target, char** out_json);
/* Legalises `model` for the profile `target` (the step after ofg_optimize that
 * `onnxforge optimize --target NAME` runs): (1) the default-domain opset is moved into the
 * profile's range when it is outside (the highest allowed at or below the model's, else the lowest
 * above; "opset:N" means exactly N), by the conversion of ofg_convert_opset; (2) nodes of ops the
 * profile does not accept are rewritten where an exact rewrite exists: LayerNormalization, Gelu,
 * RMSNormalization, Attention, RotaryEmbedding, GroupNormalization, Mish, HardSwish, Swish
 * decomposed (also at opsets that have them), Gemm -> MatMul/Add when the target lacks Gemm, 2-D
 * MatMul -> Gemm when it lacks MatMul, Flatten (axis 0/1) -> Reshape, float Neg -> Mul by -1,
 * Not -> Equal(x, false);
 * each op's rewrites are kept only when they lower the number
 * of illegal nodes. (3) The result is verified against the model as given by executing both
 * (the verify.* options choose the inputs; "convert.verify" 0 skips it); on OFG_ERR_VERIFY_FAILED,
 * OFG_ERR_UNSUPPORTED (cannot be verified) or any other failure the model is unchanged.
 * Nodes still illegal are not an error: *out_json (NUL-terminated, released with
 * ofg_buffer_free) is {"target", "opset_before", "opset_after", "illegal_before",
 * "illegal_after" (nodes with a finding, as ofg_check_target counts them), "legal", "verified"
 * (text), "rewrites": [{"node", "op", "what"}], "notes": [rewrites declined or undone, an opset
 * conversion that was not possible], "findings": [as ofg_check_target's, after legalisation]}.
 * An unknown target is OFG_ERR_INVALID_ARGUMENT, its message listing the known names. */
OFG_API ofg_status ofg_legalize_for_target(ofg_model* model, const char* target, const ofg_options* options,
                                           char** out_json);
/* ---- end target profiles ---- */
/* ---- graph diff (issue 24, part 4) */
/* Compares the main graphs of `a` and `b` (both only read) and hands out the difference as a
 * NUL-terminated JSON string in *out_json, released with ofg_buffer_free (on failure *out_json is
 * untouched). Nodes of B are matched to nodes of A:
 *   - with `provenance_json` (may be NULL): an optimize report (optimize --report, ofg_report_json)
 *     holding "provenance": {B node name: [A node names]} at its top level or one level down, or
 *     that object alone. Each B node it lists is matched to its origins: one origin that no other
 *     B node names = a pair; several origins = "fused"; one origin that several B nodes name =
 *     "split"; no origin = "added". An origin "#k" (the report's name for an unnamed original) is
 *     A's k-th main-graph node when that one has no name. A nodes in the report's "folded"
 *     ({B initializer: [A nodes]}) are "folded"; other A nodes no B node names are "removed"
 *     (unless matched below).
 *   - B nodes without provenance: by output value names first, then by structure (same op on
 *     inputs that are matched values, in graph order); unmatched A nodes only such a pair's A
 *     node read are "fused" into its B node (how "inferred"); the rest are "added"/"removed".
 * A pair is "changed" when op, attributes, inputs (as matched values) or output names differ.
 * Also compared: graph inputs and outputs (by name, element type and shape; an output under a new
 * name that is the same matched value is "renamed"), initializers (by name: element type, shape,
 * bytes; the same tensor under another name is "renamed"), opset imports and op counts.
 * The JSON (keys stable, docs/diff.md): {"identical", "provenance" (was one given), "summary":
 * {"a_nodes", "b_nodes", "b_matched", "same", "changed", "fused", "split", "folded", "added",
 * "removed", "matched_by": {"provenance", "output_name", "structure"}}, "nodes": {"changed": [{"a",
 * "b", "how", "changes": [text]}], "fused": [{"b", "a": [...], "how"}], "split": [{"a", "b": [...],
 * "how"}], "folded": [{"initializer", "a": [...]}], "added", "removed"} (a node is {"name", "op",
 * "index"}), "unknown_provenance": {"b", "a"} (names the provenance gives that the main graphs do
 * not have: subgraph nodes are not matched), "inputs"/"outputs"/"initializers": {"added",
 * "removed", "changed": [{"name", "a", "b"[, "changes"]}], "renamed": [{"a", "b"}]}, "opsets":
 * [{"domain", "a", "b"}], "op_counts": [{"op", "a", "b"}]} (only what differs).
 * Provenance that is not JSON or holds no such object is OFG_ERR_INVALID_ARGUMENT, with why.
 * Safe to call from any thread while nothing changes the two models. */
OFG_API ofg_status ofg_diff_json(const ofg_model* a, const ofg_model* b, const char* provenance_json, char** out_json);
/* ---- end graph diff ---- */


/* ------------------------------------------------------------------ tensors, execution, verification */
/* A dense tensor owned by the library: element type (ONNX DataType number; float32, float64,
 * float16, bfloat16, int8/16/32/64, uint8/16/32/64 and bool are supported), shape and data.
 * Tensors are immutable once made and may be shared between threads for reading. */
typedef struct ofg_tensor ofg_tensor;

/* Makes a tensor of `rank` dims (rank 0 = scalar; dims may be NULL when rank is 0), copying
 * `nbytes` bytes from `data`, which must be exactly numel * element size (little-endian, dense,
 * row-major; bool is one byte 0/1). `data` may be NULL only when numel is 0. */
OFG_API ofg_status ofg_tensor_create(int32_t elem_type, const int64_t* dims, size_t rank, const void* data,
                                     size_t nbytes, ofg_tensor** out);
OFG_API void ofg_tensor_free(ofg_tensor* tensor);
/* Frees `count` tensors and the array of an ofg_run result (either may be NULL). */
OFG_API void ofg_tensors_free(ofg_tensor** tensors, size_t count);
OFG_API int32_t ofg_tensor_elem_type(const ofg_tensor* tensor);  /* 0 for NULL */
OFG_API size_t ofg_tensor_rank(const ofg_tensor* tensor);        /* 0 for NULL */
/* The dims array (rank entries) and the data bytes; valid until the tensor is freed. */
OFG_API const int64_t* ofg_tensor_dims(const ofg_tensor* tensor);
OFG_API const void* ofg_tensor_data(const ofg_tensor* tensor);
OFG_API size_t ofg_tensor_nbytes(const ofg_tensor* tensor);
/* The tensor's name (from a .pb file, or the graph output it came from; "" when none); valid
 * until the tensor is freed. */
OFG_API const char* ofg_tensor_name(const ofg_tensor* tensor);

/* Parses a serialized ONNX TensorProto (a .pb file of the backend tests). The bytes are copied. */
OFG_API ofg_status ofg_tensor_load_pb(const void* data, size_t size, ofg_tensor** out);
/* Serializes a tensor as a TensorProto named `name` (may be NULL) into a new buffer released with
 * ofg_buffer_free. */
OFG_API ofg_status ofg_tensor_save_pb(const ofg_tensor* tensor, const char* name, void** data, size_t* size);

/* Runs the model's main graph. inputs[i] is bound to the graph input named names[i]; graph inputs
 * that have an initializer keep it as default when not given. On success *outputs is a new array
 * of *n_outputs tensors in graph-output order (each named after its output), released with
 * ofg_tensors_free(*outputs, *n_outputs). Unsupported ops fail with OFG_ERR_UNSUPPORTED naming op,
 * domain and opset; outputs that are sequences or optionals fail with OFG_ERR_UNSUPPORTED
 * (ofg_run_values returns them).
 * Given inputs are checked against the declared graph inputs before anything runs: another element
 * type or rank, another size where the declared dim is fixed (symbolic dims take any size, but one
 * size per name across the inputs), or a sequence for a tensor, is OFG_ERR_INVALID_ARGUMENT
 * "input 'x': given float32[1,3,5] but the model declares float32[1,3,224,224]"; an unknown name
 * is OFG_ERR_INVALID_ARGUMENT listing the model's inputs. The same check guards ofg_run_values and
 * the given inputs of ofg_verify (whose message also names the file).
 * Options: "run.max_tensor_bytes", "run.threads" (ofg_options_set). The model is not modified but
 * is not thread-safe. */
OFG_API ofg_status ofg_run(const ofg_model* model, const ofg_options* options, size_t n_inputs,
                           const char* const* names, const ofg_tensor* const* inputs, size_t* n_outputs,
                           ofg_tensor*** outputs);

/* Differences of one output. The caller sets struct_size = sizeof(ofg_diff). */
typedef struct ofg_diff {
  uint32_t struct_size;
  const char* name;      /* output name ("" for ofg_tensor_compare) */
  double max_abs;        /* max |actual - expected| */
  double max_rel;        /* max |actual - expected| / |expected| (inf when expected is 0) */
  uint64_t mismatches;   /* elements with |a - e| > atol + rtol * |e| (integers: a != e) */
  uint64_t worst_index;  /* flat index of the first element with max_abs */
  uint64_t elements;
  const char* problem;   /* NULL when compared; else why not (missing output, type, shape) */
  int32_t passed;        /* problem == NULL && mismatches == 0 */
  /* Appended in 0.2: flat index of the first element outside tolerance (in the first sample
   * that had one); meaningful only when mismatches > 0. */
  uint64_t first_mismatch;
  /* Also appended in 0.2 (ofg_verify; ofg_tensor_compare fills atol/rtol with its arguments):
   * the tolerances applied to this output (see the tolerance rule at ofg_verify). */
  double atol;
  double rtol;
  /* NULL when the float64 referee was not consulted (no element outside tolerance, or not a
   * float32/float16/bfloat16 output); else "accepted" (it passed the output: `mismatches` is 0),
   * "rejected" (`mismatches` counts the elements it rejected) or "unavailable: WHY" (the model
   * could not be evaluated in float64; the plain rule stands). */
  const char* referee;
  uint64_t outside_tolerance;      /* elements outside tolerance before the referee judged */
  double referee_reference_error;  /* max |reference - float64 reference| (when judged) */
  double referee_candidate_error;  /* max |candidate - float64 reference| (when judged) */
} ofg_diff;

/* Compares `actual` with `expected` (types and shapes must agree, else `problem` says why).
 * Floats match when |a - e| <= atol + rtol * |e|; NaN matches NaN, +Inf matches +Inf and -Inf
 * matches -Inf, and nothing else matches a NaN or an infinity. Integers and bools must be equal. */
OFG_API ofg_status ofg_tensor_compare(const ofg_tensor* actual, const ofg_tensor* expected, double atol, double rtol,
                                      ofg_diff* out);

/* The result of ofg_verify (and of ofg_value_compare). Strings it returns are valid until
 * ofg_report_free. */
typedef struct ofg_report ofg_report;
/* Runs `reference` and `candidate` on the same inputs and compares every output of the reference
 * with the candidate's output of the same name (rule as ofg_tensor_compare). Returns OFG_OK
 * whenever both could be run; whether they match is in the report (ofg_report_passed).
 *
 * Tolerances follow each output's element type. "verify.atol"/"verify.rtol", when set, apply as
 * given to every output. When not set: float32, float64 and other outputs use atol 1e-4 and
 * rtol 1e-3; float16 outputs use 2^-9 (~1.95e-3) and bfloat16 outputs 2^-6 (~1.56e-2) for both,
 * i.e. two machine epsilons of their own type (float16 eps 2^-10, bfloat16 2^-7), since the
 * float32 defaults are below one rounding step of a half type. ofg_diff.atol/rtol and the JSON
 * report's per-output "atol"/"rtol" give what was applied.
 *
 * Float64 referee: when a float32/float16/bfloat16 output has elements outside tolerance, the
 * reference is evaluated again in float64 (its float tensors, casts and declared types turned to
 * double, float inputs cast to double) giving the exact answer X. An element outside tolerance
 * is then accepted when |candidate - X| <= |reference - X| + atol + rtol * |X|: the candidate is
 * no farther from the exact answer than the reference itself, plus the tolerance. The output
 * passes when every element is accepted; ofg_diff.referee says "accepted"/"rejected" with both
 * max errors vs X. When the float64 copy cannot run (an op without a double kernel) the referee
 * is "unavailable: WHY" and the plain rule decides. "verify.float64_referee" "0" turns it off.
 *
 * Inputs, in this order of preference:
 *  1. real data: "verify.test_data" names a test_data_set_N folder or a folder holding them
 *     (input_K.pb is graph input K; one sample per folder), "verify.input.NAME" a .pb file for
 *     input NAME (added to every set, or a set of its own). Inputs no file gives are drawn as below.
 *  2. seeded inputs the reference accepts: float inputs N(0,1), bools fair coin flips, integer
 *     inputs compared with constants in the graph take those constants, Gather indices stay
 *     inside their table, other integers are drawn from [0, verify.int_high). Dims fixed by
 *     "verify.dim.NAME", "verify.input_shapes" or "optimize.input_shapes" are used as given; each
 *     other symbolic name is one size shared by every input that uses it. Relations the graph
 *     fixes between symbolic names are followed first: a Concat along an axis makes the result's
 *     dim the sum of its inputs' (a KV cache: total = past + seq), broadcasting two dims that are
 *     not 1 and a MatMul's inner dims make them equal, a declared output shape agrees with what
 *     the graph computes; the names they leave free get distinct sizes above 1 (batch 2, others
 *     3, 4, ...) and the note says which relations were followed. Then candidate sizes are
 *     tried in order (verify.dim default 2, then sizes the graph's weights and constants
 *     suggest, then powers of two) until the reference runs without rejecting its inputs.
 *     When none is accepted the call fails with OFG_ERR_NO_VALID_INPUTS, naming the sizes tried
 *     and the errors; an error the inputs cannot cause (an unsupported op) is returned as it is.
 * ofg_report_note says which inputs were used; ofg_report_input lists them.
 * Options (ofg_options_set):
 *   "verify.samples"      number of seeded input sets (default 1; ignored with real data)
 *   "verify.seed"         seed of the first set (default 0); set k uses a seed derived from it
 *   "verify.atol"         absolute tolerance for every output (default: by element type, above)
 *   "verify.rtol"         relative tolerance for every output (default: by element type, above)
 *   "verify.float64_referee" "0"|"1" (default 1): the float64 referee above
 *   "verify.dim.NAME"     size of the symbolic dim NAME
 *   "verify.input_shapes" "NAME=1,3,224,224;NAME2=..." whole input shapes
 *   "verify.int_high"     bound of integer inputs nothing else bounds (default 4)
 *   "verify.max_tries"    input sets tried before OFG_ERR_NO_VALID_INPUTS (default 32)
 *   "verify.test_data", "verify.input.NAME"  real data, see above
 *   "run.threads"         with 2 or more, the reference and the candidate run at the same time on
 *                         two threads (the report is the same as with one) */
OFG_API ofg_status ofg_verify(const ofg_model* reference, const ofg_model* candidate, const ofg_options* options,
                              ofg_report** report);
OFG_API void ofg_report_free(ofg_report* report);
/* *passed = 1 when every output matched within tolerance, else 0. */
OFG_API ofg_status ofg_report_passed(const ofg_report* report, int32_t* passed);
OFG_API ofg_status ofg_report_output_count(const ofg_report* report, size_t* count);
OFG_API ofg_status ofg_report_output(const ofg_report* report, size_t index, ofg_diff* out);

/* One input of the first sample ofg_verify ran. The caller sets struct_size =
 * sizeof(ofg_input_info); strings and dims stay valid until ofg_report_free. */
typedef struct ofg_input_info {
  uint32_t struct_size;
  const char* name;
  int32_t elem_type;
  size_t rank;
  const int64_t* dims;
  const char* source; /* "seed N", or the file or test_data_set folder it was read from */
} ofg_input_info;
/* Inputs of ofg_verify's report (0 for reports of ofg_value_compare). */
OFG_API ofg_status ofg_report_input_count(const ofg_report* report, size_t* count);
OFG_API ofg_status ofg_report_input(const ofg_report* report, size_t index, ofg_input_info* out);
/* How ofg_verify chose its inputs ("" when not from ofg_verify), e.g. "seeded random inputs
 * (seed 0, 1 sample); chose batch=2, sequence=512 after the reference rejected 3 other input
 * sets". Valid until ofg_report_free; "" for NULL. */
OFG_API const char* ofg_report_note(const ofg_report* report);
/* The whole report as one JSON object: passed, samples, atol, rtol (as set or the float32
 * defaults), the comparison rule, tolerance_rule, note, inputs (name, elem_type, shape, source)
 * and outputs (name, passed, max_abs, max_rel, mismatches, elements, worst_index,
 * first_mismatch, problem, atol, rtol as applied to that output, and referee: null or
 * {verdict: "accepted"|"rejected"|"unavailable", outside_tolerance, reference_max_abs_error,
 * candidate_max_abs_error} or {verdict: "unavailable", why}). Always valid JSON: a number that
 * is NaN or infinite is written as null with a sibling "<field>_nonfinite": "nan"|"inf"|"-inf".
 * Valid until ofg_report_free; NULL when report is NULL. */
OFG_API const char* ofg_report_json(const ofg_report* report);


/* ------------------------------------------------------------------ values: tensors, sequences, optionals */
/* A graph input or output that is a sequence or an optional cannot travel as an ofg_tensor; an
 * ofg_value carries any of the three kinds (OFG_VALUE_TENSOR, OFG_VALUE_SEQUENCE,
 * OFG_VALUE_OPTIONAL). A sequence holds tensors of one element type; an optional holds a tensor
 * value, a sequence value, or nothing. Values own copies of their tensors, are immutable once
 * made and may be shared between threads for reading. Handles an accessor returns are borrowed:
 * valid until the value they came from is freed, and never freed by the caller. */
typedef struct ofg_value ofg_value;

/* A tensor value holding a copy of `tensor` (its name is kept). */
OFG_API ofg_status ofg_value_from_tensor(const ofg_tensor* tensor, ofg_value** out);
/* A sequence of copies of `count` tensors, each of element type `elem_type`, which also types the
 * sequence when it is empty. `elements` may be NULL only when count is 0. */
OFG_API ofg_status ofg_value_create_sequence(int32_t elem_type, const ofg_tensor* const* elements, size_t count,
                                             ofg_value** out);
/* An optional holding a copy of `element` (a tensor or sequence value; an optional of an optional
 * is OFG_ERR_UNSUPPORTED), or an empty optional when `element` is NULL. */
OFG_API ofg_status ofg_value_create_optional(const ofg_value* element, ofg_value** out);
OFG_API void ofg_value_free(ofg_value* value);
/* Frees `count` values and the array of an ofg_run_values result (either may be NULL). */
OFG_API void ofg_values_free(ofg_value** values, size_t count);
/* OFG_VALUE_TENSOR / _SEQUENCE / _OPTIONAL; 0 for NULL. */
OFG_API int32_t ofg_value_kind(const ofg_value* value);
/* The value's name (from a .pb file, or the graph output it came from; "" when none or NULL);
 * valid until the value is freed. */
OFG_API const char* ofg_value_name(const ofg_value* value);

/* Accessors. Asking a value for a kind it is not gives OFG_ERR_INVALID_ARGUMENT. */
/* The tensor of a tensor value. */
OFG_API ofg_status ofg_value_tensor(const ofg_value* value, const ofg_tensor** out);
/* Number of tensors in a sequence. */
OFG_API ofg_status ofg_value_sequence_length(const ofg_value* value, size_t* out);
/* Element type of a sequence (known also when it is empty; 0 when nothing says). */
OFG_API ofg_status ofg_value_sequence_elem_type(const ofg_value* value, int32_t* out);
/* Tensor `index` of a sequence (an index >= the length is OFG_ERR_INVALID_ARGUMENT). */
OFG_API ofg_status ofg_value_sequence_at(const ofg_value* value, size_t index, const ofg_tensor** out);
/* *out = 1 when an optional holds a value, else 0. */
OFG_API ofg_status ofg_value_optional_has_value(const ofg_value* value, int32_t* out);
/* The value an optional holds (a tensor or sequence value); OFG_ERR_INVALID_ARGUMENT when empty. */
OFG_API ofg_status ofg_value_optional_element(const ofg_value* value, const ofg_value** out);

/* Parses a .pb file of the backend tests for graph input (io_kind OFG_INPUT) or output
 * (OFG_OUTPUT) `index` of `model`. The bytes carry no type tag: they are read as a TensorProto,
 * SequenceProto or OptionalProto according to that input's or output's declared type (a tensor
 * when the type is not declared). Sequences of sequences or maps, and maps, give
 * OFG_ERR_UNSUPPORTED. The bytes are copied; the model is only read. */
OFG_API ofg_status ofg_value_load_pb(const ofg_model* model, int32_t io_kind, size_t index, const void* data,
                                     size_t size, ofg_value** out);
/* Serializes a value into a new buffer released with ofg_buffer_free: a tensor as a TensorProto,
 * a sequence as a SequenceProto, an optional as an OptionalProto (the counterpart of
 * ofg_value_load_pb), named `name` (may be NULL for no name). */
OFG_API ofg_status ofg_value_save_pb(const ofg_value* value, const char* name, void** data, size_t* size);

/* ofg_run for values of every kind: inputs[i] is bound to the graph input named names[i] (graph
 * inputs with an initializer keep it as default when not given; optional inputs not given are
 * empty). On success *outputs is a new array of *n_outputs values in graph-output order, each
 * named after its output, released with ofg_values_free(*outputs, *n_outputs). An output declared
 * optional comes back as an optional value (empty or not); other outputs come back as what they
 * are. Options as for ofg_run. The model is not modified but is not thread-safe. */
OFG_API ofg_status ofg_run_values(const ofg_model* model, const ofg_options* options, size_t n_inputs,
                                  const char* const* names, const ofg_value* const* inputs, size_t* n_outputs,
                                  ofg_value*** outputs);

/* Compares `actual` with `expected` into a new report (released with ofg_report_free) with one
 * ofg_diff per tensor compared, as ofg_tensor_compare would: a tensor gives one entry; sequences of
 * equal length one per element, named "NAME[i]"; optionals are compared by presence, then by the
 * values they hold. A difference of kind, sequence length, presence or element type gives one
 * entry whose `problem` says so; two empty sequences or two empty optionals give one passing entry
 * with 0 elements. Entries are named after `actual` ("" when unnamed). ofg_report_passed tells
 * whether every entry passed. */
OFG_API ofg_status ofg_value_compare(const ofg_value* actual, const ofg_value* expected, double atol, double rtol,
                                     ofg_report** out);

#ifdef __cplusplus
}
#endif
#endif /* ONNXFORGE_H */
