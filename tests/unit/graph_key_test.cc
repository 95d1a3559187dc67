// The front end's cache key taken from the graph (src/lazy/graph_key.h) must agree with
// the program LowerGraph builds: same graph, a match; any difference LowerGraph would
// write into the program (op, operand order, shape, attribute, constant, shared leaf,
// aliases, replicas), no match, both for the check against the program's instructions
// and for the one against the signature of the walk it was compiled from. Nothing runs
// on a device here.
#include "src/lazy/graph_key.h"

#include <gtest/gtest.h>

#include "seam/nn.h"
#include "seam/tensor.h"
#include "src/lazy/lowering.h"
#include "src/lazy/tensor_internal.h"

namespace seam::lazy {
namespace {

std::vector<NodePtr> Roots(const std::vector<Tensor>& tensors) {
  std::vector<NodePtr> roots;
  for (const Tensor& t : tensors) roots.push_back(NodeOf(t, "test"));
  return roots;
}

void ExpectAgrees(const std::vector<NodePtr>& roots) {
  GraphWalk walk = WalkGraph(roots);
  LoweredGraph lowered = LowerGraph(roots);
  EXPECT_TRUE(WalkMatches(walk, lowered.program));
  EXPECT_TRUE(walk.exact);
  EXPECT_TRUE(SignatureMatches(walk, walk.signature, lowered.program));
  EXPECT_TRUE(SignatureMatches(WalkGraph(roots), walk.signature, lowered.program));
  EXPECT_EQ(walk.nodes.size(), lowered.program.instructions.size());
  EXPECT_EQ(walk.results, lowered.program.results);
  EXPECT_EQ(walk.leaves, lowered.leaves);
}

// The one difference between `a` and `b` must show in the walk's check both ways, and
// (for this hash, on these small graphs) in the key.
void ExpectDiffers(const Tensor& a, const Tensor& b) {
  std::vector<NodePtr> ra = Roots({a}), rb = Roots({b});
  GraphWalk wa = WalkGraph(ra), wb = WalkGraph(rb);
  EXPECT_FALSE(WalkMatches(wa, LowerGraph(rb).program));
  EXPECT_FALSE(WalkMatches(wb, LowerGraph(ra).program));
  EXPECT_FALSE(SignatureMatches(wa, wb.signature, LowerGraph(rb).program));
  EXPECT_FALSE(SignatureMatches(wb, wa.signature, LowerGraph(ra).program));
  EXPECT_NE(wa.hash, wb.hash);
}

TEST(GraphKeyTest, TrainingStepAgreesWithLowering) {
  nn::Mlp model({8, 6, 3}, 1);
  Tensor x = Tensor::randn({4, 8}, 2);
  Tensor y = Tensor::from_vector({0, 1, 2, 1}, {4});
  Tensor loss = nn::cross_entropy(model.forward(x), y);
  std::vector<Tensor> params;
  for (Tensor* p : model.parameters()) params.push_back(*p);
  std::vector<Tensor> grads = grad(loss, params);
  grads.push_back(loss);
  grads.push_back(loss);  // a repeated root
  ExpectAgrees(Roots(grads));
}

TEST(GraphKeyTest, SameStructureBuiltTwiceSharesTheKey) {
  auto build = [] {
    Tensor a = Tensor::from_vector({1.0f, 2.0f, 3.0f}, {3});
    return ((a * 2.0f).exp() + 1.0f).sum();
  };
  Tensor first = build(), second = build();
  GraphWalk w1 = WalkGraph(Roots({first})), w2 = WalkGraph(Roots({second}));
  EXPECT_EQ(w1.hash, w2.hash);
  EXPECT_TRUE(WalkMatches(w1, LowerGraph(Roots({second})).program));
  EXPECT_EQ(w1.signature, w2.signature);
}

TEST(GraphKeyTest, OneLeafValueUsedTwiceIsOneParameter) {
  Tensor a = Tensor::from_vector({1.0f, 2.0f}, {2});
  Tensor b = Tensor::from_vector({3.0f, 4.0f}, {2});
  Tensor shared = a * a;  // one leaf node, one value
  Tensor separate = a * b;
  std::vector<NodePtr> rs = Roots({shared});
  EXPECT_EQ(WalkGraph(rs).leaves.size(), 1u);
  ExpectAgrees(rs);
  ExpectDiffers(shared, separate);
}

TEST(GraphKeyTest, EveryKindOfDifferenceIsSeen) {
  Tensor a = Tensor::from_vector({1.0f, 2.0f, 3.0f, 4.0f}, {2, 2});
  Tensor b = Tensor::from_vector({5.0f, 6.0f, 7.0f, 8.0f}, {2, 2});
  Tensor c = Tensor::from_vector({1.0f, 2.0f, 3.0f}, {3});
  ExpectDiffers(a + b, a - b);                  // op
  ExpectDiffers(a - a * b, a * b - a);          // operand order
  ExpectDiffers((a + a).sum(), (c + c).sum());  // shape
  ExpectDiffers(a.sum({0}), a.sum({1}));        // attribute
  ExpectDiffers(a + 1.0f, a + -1.0f);           // constant value (0 and +-1 are constants)
  ExpectDiffers(a + 1.0f, a + 0.0f);
}

// Parameters are numbered in first-use order, so a - b and b - a are one program (the
// arguments come in the other order), and the cache rightly serves both with it.
TEST(GraphKeyTest, ParametersInFirstUseOrderShareAProgram) {
  Tensor a = Tensor::from_vector({1.0f, 2.0f}, {2});
  Tensor b = Tensor::from_vector({5.0f, 7.0f}, {2});
  std::vector<NodePtr> ab = Roots({a - b}), ba = Roots({b - a});
  GraphWalk wab = WalkGraph(ab), wba = WalkGraph(ba);
  EXPECT_EQ(wab.hash, wba.hash);
  EXPECT_TRUE(WalkMatches(wab, LowerGraph(ba).program));
  EXPECT_TRUE(SignatureMatches(wab, wba.signature, LowerGraph(ba).program));
  EXPECT_EQ(wab.leaves[0], wba.leaves[1]);
}

TEST(GraphKeyTest, AliasesAndReplicasAreNotTheLoweredProgram) {
  Tensor a = Tensor::from_vector({1.0f, 2.0f}, {2});
  std::vector<NodePtr> roots = Roots({a * 2.0f});
  GraphWalk walk = WalkGraph(roots);
  ir::Program aliased = LowerGraph(roots).program;
  aliased.aliases.push_back({0, 0});
  EXPECT_FALSE(WalkMatches(walk, aliased));
  // The same aliases on the walk: a match, under a key of its own.
  GraphWalk with_alias = walk;
  with_alias.aliases.push_back({0, 0});
  EXPECT_TRUE(WalkMatches(with_alias, aliased));
  EXPECT_FALSE(WalkMatches(with_alias, LowerGraph(roots).program));
  EXPECT_TRUE(SignatureMatches(with_alias, walk.signature, aliased));
  EXPECT_FALSE(SignatureMatches(with_alias, walk.signature, LowerGraph(roots).program));
  EXPECT_FALSE(SignatureMatches(walk, walk.signature, aliased));
  EXPECT_NE(WalkKey(with_alias), WalkKey(walk));
  EXPECT_EQ(WalkKey(walk), walk.hash);
  ir::Program replicated = LowerGraph(roots).program;
  replicated.replica_count = 2;
  EXPECT_FALSE(WalkMatches(walk, replicated));
  EXPECT_FALSE(SignatureMatches(walk, walk.signature, replicated));
}

}  // namespace
}  // namespace seam::lazy
