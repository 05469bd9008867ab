// Graph diff of two models (onnxforge diff A B): which nodes of B are A's nodes unchanged, changed,
// fused from several, split into several, added or removed; and the graph's inputs, outputs,
// initializers, opsets and op counts. Only the main graph's nodes are matched (a node holding a
// subgraph compares it by its op sequence, as one attribute).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "diff/provenance.h"

namespace ofg {
class Model;
}

namespace ofg::diff {

struct NodeRef {
  std::string name;  // "" when the node has none
  std::string op;    // "Conv", or "com.microsoft:FusedConv"
  size_t index = 0;  // position in its graph's node order
};

// A node of A matched one-to-one with a node of B that differs (op, attributes, inputs, output
// names).
struct NodePair {
  NodeRef a, b;
  std::string how;                   // "provenance", "output_name" or "structure"
  std::vector<std::string> changes;  // "op Relu -> Clip", "attribute alpha: 0.1 -> 0.2", "input 1: w -> w2"
};

// fused: one B node (`one`) from several A nodes (`many`); split: one A node (`one`) that several
// B nodes (`many`) name as their only origin (a decomposition).
struct NodeGroup {
  NodeRef one;
  std::vector<NodeRef> many;
  std::string how;  // "provenance", or "inferred" (fused: unmatched A producers only it read)
};

// A graph input, output or initializer present in both under one name with another type, or in
// one only. `a`/`b` describe it ("float32[1,3,N,224]", "" where absent); `changes` says what
// differs for initializers ("dtype", "shape", "bytes").
struct ValueDiff {
  std::string name, a, b, changes;
};

struct Rename {
  std::string a, b;
};

struct Section {
  std::vector<ValueDiff> added, removed, changed;
  std::vector<Rename> renamed;  // outputs: the same value under another name; initializers: same bytes
  bool empty() const { return added.empty() && removed.empty() && changed.empty() && renamed.empty(); }
};

struct OpCount {
  std::string op;
  size_t a = 0, b = 0;
};

struct OpsetDiff {
  std::string domain;  // "" = the default domain
  int64_t a = 0, b = 0;  // 0 = not imported
};

struct Result {
  bool with_provenance = false;
  size_t a_nodes = 0, b_nodes = 0;
  size_t same = 0;  // one-to-one pairs that do not differ
  size_t by_provenance = 0, by_output_name = 0, by_structure = 0;  // how B nodes were matched
  std::vector<NodePair> changed;
  std::vector<NodeGroup> fused, split;
  std::vector<NodeRef> added, removed;
  // A nodes no B node came from that constant folding turned into an initializer of B (the
  // report's "folded"): `one` is that initializer (name only), `many` the A nodes.
  std::vector<NodeGroup> folded;
  // Names the provenance gives that the models do not have: B nodes (keys), A nodes (origins).
  std::vector<std::string> unknown_b, unknown_a;
  Section inputs, outputs, initializers;
  std::vector<OpsetDiff> opsets;
  std::vector<OpCount> op_counts;  // ops whose count differs, by name

  // B nodes matched to A nodes (pairs, fused and split members): every B node but the added ones.
  size_t b_matched() const { return b_nodes - added.size(); }
  bool identical() const;
};

// Matches B's nodes to A's. With `provenance` (B node name -> A node names, from optimize's report)
// each B node listed there is matched to its origins; B nodes it does not list, and every node
// without it, are matched by output value names, then by structure (same op, inputs that are
// matched values, in graph order). A B node matched so whose A partner read values of A nodes
// left unmatched, and nothing else read (Conv before a folded BatchNormalization, a shape chain
// folded into a constant), is reported fused from them ("inferred"). What is left is added or
// removed. The models are only read.
// `folded` (may be null): the report's initializer -> folded A nodes; those A nodes are "folded",
// not removed. A node name "#k" that no node has names the k-th node of A's main graph when that
// node has no name (how the report names unnamed originals).
Result diff_models(const Model& a, const Model& b, const Provenance* provenance, const Provenance* folded = nullptr);

// The result as JSON, every list complete (docs/diff.md describes the keys).
std::string diff_json(const Result& r);

}  // namespace ofg::diff
