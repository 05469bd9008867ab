// TfIdfVectorizer (opset 9) over integer token ids: counts, per input row, the n-grams of a pool
// fixed in the attributes, optionally with skips between the tokens of an n-gram, and weights the
// counts (TF, IDF, TFIDF). String pools need string tensors, which the interpreter does not have.
#include <map>

#include "exec/infer_rules.h"
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

// The attributes, checked once per run.
struct NgramPool {
  int64_t min_n = 0, max_n = 0, max_skip = 0, out_size = 0;
  int mode = 0;  // 0 TF, 1 IDF, 2 TFIDF
  std::vector<int64_t> indexes;
  std::vector<float> weights;
  // n-gram tokens -> its position in the pool (the entry of `indexes` it counts for).
  std::map<std::vector<int64_t>, size_t> grams;
};

NgramPool read_pool(const OpCtx& c) {
  NgramPool p;
  std::vector<int64_t> pool = c.attr_ints("pool_int64s");
  if (pool.empty() && c.has_attr("pool_strings"))
    fail(Status::kUnsupported, c.where() + ": pool_strings needs string tensors, which are not supported");
  p.min_n = c.attr_i("min_gram_length", 0);
  p.max_n = c.attr_i("max_gram_length", 0);
  p.max_skip = c.attr_i("max_skip_count", -1);
  c.require(p.min_n >= 1 && p.min_n <= p.max_n, "gram lengths must satisfy 1 <= min_gram_length <= max_gram_length, got " +
                                                    std::to_string(p.min_n) + " and " + std::to_string(p.max_n));
  c.require(p.max_skip >= 0, "max_skip_count must be >= 0, got " + std::to_string(p.max_skip));
  std::string mode = c.attr_s("mode", "");
  c.require(mode == "TF" || mode == "IDF" || mode == "TFIDF", "mode must be TF, IDF or TFIDF, got '" + mode + "'");
  p.mode = mode == "TF" ? 0 : mode == "IDF" ? 1 : 2;
  p.indexes = c.attr_ints("ngram_indexes");
  c.require(!p.indexes.empty(), "ngram_indexes is required");
  for (int64_t i : p.indexes) {
    c.require(i >= 0 && i < (int64_t{1} << 31), "ngram index " + std::to_string(i) + " is out of range [0, 2^31)");
    p.out_size = std::max(p.out_size, i + 1);
  }
  p.weights = c.attr_floats("weights");
  if (p.mode != 0 && !p.weights.empty())
    c.require(static_cast<int64_t>(p.weights.size()) >= p.out_size,
              "weights has " + std::to_string(p.weights.size()) + " values for " + std::to_string(p.out_size) + " outputs");

  // ngram_counts[i] is where the (i+1)-grams start in the pool; they run to the next start.
  std::vector<int64_t> starts = c.attr_ints("ngram_counts");
  int64_t total = static_cast<int64_t>(pool.size());
  size_t gram_id = 0;
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t n = static_cast<int64_t>(i) + 1;
    int64_t begin = starts[i], end = i + 1 < starts.size() ? starts[i + 1] : total;
    c.require(begin >= 0 && begin <= end && end <= total,
              "ngram_counts must be nondecreasing offsets into the pool of " + std::to_string(total) + " values");
    int64_t count = (end - begin) / n;
    for (int64_t g = 0; g < count; ++g, ++gram_id) {
      c.require(gram_id < p.indexes.size(), "ngram_indexes has fewer entries than the pool has n-grams");
      if (n < p.min_n || n > p.max_n) continue;
      auto first = pool.begin() + begin + g * n;
      p.grams[std::vector<int64_t>(first, first + n)] = gram_id;
    }
  }
  return p;
}

void op_tfidf(OpCtx& c) {
  NgramPool p = read_pool(c);
  const RTensor& x = c.t_rank(0, 0, 2);
  c.require(x.dtype == kInt32 || x.dtype == kInt64, std::string("X must be int32 or int64, got ") + dtype_name(x.dtype));
  int64_t rows = x.rank() == 2 ? x.shape[0] : 1;
  int64_t cols = x.rank() == 0 ? 1 : x.shape.back();
  Shape out_shape = x.rank() == 2 ? Shape{rows, p.out_size} : Shape{p.out_size};
  std::vector<int64_t> tokens = to_i64_vec(x);
  std::vector<double> count(scratch_elems(shape_numel(out_shape)), 0.0);
  std::vector<int64_t> key;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t* row = tokens.data() + r * cols;
    double* out = count.data() + r * p.out_size;
    for (int64_t n = p.min_n; n <= p.max_n && n <= cols; ++n) {
      // A 1-gram has no gaps: skips would count it again. Gaps as long as the row fit nothing.
      int64_t skips = n == 1 ? 0 : std::min(p.max_skip, cols);
      for (int64_t s = 0; s <= skips; ++s) {
        int64_t step = s + 1;
        // the last token of an n-gram starting at i is at i + (n-1)*step < cols
        for (int64_t i = 0; (n - 1) * step < cols - i; ++i) {
          key.clear();
          for (int64_t j = 0; j < n; ++j) key.push_back(row[i + j * step]);
          auto it = p.grams.find(key);
          if (it != p.grams.end()) out[p.indexes[it->second]] += 1;
        }
      }
    }
  }
  RTensor y = RTensor::alloc(kFloat, out_shape);
  float* yp = y.data<float>();
  for (size_t i = 0; i < count.size(); ++i) {
    double f = count[i];
    size_t o = i % static_cast<size_t>(p.out_size);
    bool w = !p.weights.empty();
    if (p.mode == 0) yp[i] = static_cast<float>(f);
    else if (p.mode == 1) yp[i] = f > 0 ? (w ? p.weights[o] : 1.f) : 0.f;
    else yp[i] = static_cast<float>(w ? p.weights[o] * f : f);
  }
  c.set(0, std::move(y));
}

bool rule_tfidf(InferCtx& c) {
  std::vector<int64_t> idx;
  IDim width;
  if (c.attr_ints("ngram_indexes", idx) && !idx.empty()) {
    int64_t mx = *std::max_element(idx.begin(), idx.end());
    if (mx >= 0 && mx < (int64_t{1} << 31)) width = rules::st(mx + 1);
  }
  const IType* x = c.t(0);
  if (x && x->ranked && x->dims.size() == 2) c.out[0] = rules::ranked(kFloat, {x->dims[0], width});
  else if (x && x->ranked) c.out[0] = rules::ranked(kFloat, {width});
  else c.out[0] = IType{kFloat, false, {}};
  return true;
}

}  // namespace

void register_text_ops(Registry& r) {
  r.add("TfIdfVectorizer", op_tfidf, 9, 1 << 30, false).infer(rule_tfidf).traits(kMayGrow);
}

}  // namespace ofg::exec
