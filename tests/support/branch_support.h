// If nodes with one-node branches, for the tests of how conversion and fusion treat values that
// subgraphs read from the outer graph.
#pragma once
#include "ir/builder.h"

namespace ofg::test {

// If(cond) { then_op(x) } else { else_op(x) }: each branch one node reading x from the outer
// graph, its output undeclared (no type), as exports' nested Ifs write them.
inline Node* unary_if(GraphBuilder& b, Value* cond, Value* x, const char* then_op, const char* else_op) {
  Graph* then_g = b.subgraph("then");
  GraphBuilder tb(b.model(), then_g);
  tb.output(tb.op(then_op, {x}));
  Graph* else_g = b.subgraph("else");
  GraphBuilder eb(b.model(), else_g);
  eb.output(eb.op(else_op, {x}));
  return b.node("If", {cond}, 1, {b.g("then_branch", then_g), b.g("else_branch", else_g)});
}

}  // namespace ofg::test
