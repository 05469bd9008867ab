// Provenance: which nodes of the original model each node of the edited model came from.
//
// Every node carries `origins` (Node::origins), the ids of original nodes. seed_provenance gives
// each node of the model as it is then (the model as loaded, for the passes and conversions that
// call it first) one id of its own: its index in walk order, i.e. the main graph's nodes in
// order, then each subgraph's nodes as for_each_graph visits the graphs (parents first,
// subgraphs in the order of the nodes owning them). Model::origin_names maps an id back to the
// original node's name; an unnamed original is called "#id".
//
// Passes need no code of their own for it: the editing operations carry origins along.
//  - replace_all_uses(from, to): the producer of `from` (a node going away, or merged) hands its
//    origins to the producer of `to`; when `to` is an initializer they are recorded as folded
//    into it.
//  - take_output(p, i, out): `p` takes the origins of the node that wrote `out` before.
//  - insert_op: the new node gets the origins of the node it is put before.
//  - a ProvenanceScope (the rule driver opens one around each rule's edit, the opset conversion
//    around each adapter): nodes created inside it get the origins of the scope's anchor (the
//    matched node) and of every node removed inside it; a surviving anchor gets the removed
//    nodes' origins too, and so do the nodes that took over readers of removed ones (when an
//    inverse Transpose pair goes, the node before it stands for both). Nodes the edit left dead (for eliminate_dead_nodes to remove: their
//    outputs lost their last reader inside the scope, or feed only such nodes) count as removed.
//  - record_folded: a pass that turns a node's output into an initializer (constant folding)
//    records the node's origins against the initializer's name.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace ofg {

// Gives every node of m its own origin (once per model; later calls do nothing).
void seed_provenance(Model& m);
// The reported name of origin `id`: the original node's name, or "#id" when it had none.
std::string origin_name(const Model& m, uint32_t id);
// dst's origins become the union of its own and `ids` (kept ascending, no repeats).
void add_origins(Model& m, Node* dst, const uint32_t* ids, size_t count);
inline void add_origins(Model& m, Node* dst, const Node* src) {
  if (src && dst && src != dst) add_origins(m, dst, src->origins.data, src->origins.size);
}
// Records that `from` (and whatever was folded into its constant inputs) became the initializer v.
void record_folded(Model& m, const Value* v, const Node* from);
// When `from` stops being read in favour of `to`: from's producer's origins (or the origins
// folded into `from`) go to to's producer, or are recorded as folded into `to`.
void hand_over_origins(Model& m, const Value* from, const Value* to);

// While alive, nodes made by new_node are noted and the origins of nodes remove_node unlinks are
// collected; on destruction they are handed out as described above. Scopes nest.
struct ProvenanceScope {
  ProvenanceScope(Model& m, Node* anchor);
  ~ProvenanceScope();
  ProvenanceScope(const ProvenanceScope&) = delete;
  ProvenanceScope& operator=(const ProvenanceScope&) = delete;

  Model& m;
  Node* anchor;
  ProvenanceScope* outer;
  std::vector<Node*> created;
  std::vector<uint32_t> removed;  // origins of the nodes removed inside the scope
  std::vector<Node*> orphaned;     // producers of values that lost their last reader
  std::vector<Node*> receivers;    // nodes that took over a removed node's readers (hand_over_origins)
};

// Called by graph_ops.
void note_created(Model& m, Node* n);
void note_removed(Model& m, const Node* n);
// v lost its last reader: its producer may be left dead by the rewrite.
void note_unused(Model& m, const Value* v);

}  // namespace ofg
