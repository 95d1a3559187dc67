#include "src/lazy/donation.h"

#include <unordered_map>
#include <unordered_set>

#include "absl/strings/str_cat.h"

namespace seam::lazy {
namespace {

struct Candidate {
  std::shared_ptr<DeviceValue> value;
  int64_t parameter = -1;
  int64_t output = -1;
};

// Operand edges inside the program's graph that point at a leaf node holding one of the
// candidate values, per leaf node; and one owning pointer per such leaf (to read its use
// count without adding to it).
struct LeafEdges {
  std::unordered_map<const Node*, int64_t> edges;
  std::unordered_map<const Node*, const NodePtr*> handle;
};

LeafEdges CountLeafEdges(const std::vector<NodePtr>& roots,
                         const std::unordered_set<const DeviceValue*>& wanted) {
  LeafEdges out;
  std::unordered_set<const Node*> visited;
  std::vector<const Node*> stack;
  for (const NodePtr& root : roots) {
    if (visited.insert(root.get()).second) stack.push_back(root.get());
  }
  while (!stack.empty()) {
    const Node* node = stack.back();
    stack.pop_back();
    for (const NodePtr& operand : node->operands) {
      if (operand->is_leaf()) {
        if (wanted.count(operand->value.get())) {
          ++out.edges[operand.get()];
          out.handle.emplace(operand.get(), &operand);
        }
        continue;
      }
      if (visited.insert(operand.get()).second) stack.push_back(operand.get());
    }
  }
  return out;
}

// True when nothing but this sync holds `candidate.value`: `leaf_nodes` are the graph's
// leaf nodes holding it (each holds it once); the references are this function's
// `candidate`, the lowered graph's leaves and those nodes.
bool OnlyThisSyncHolds(const Candidate& candidate, const LeafEdges& counts) {
  int64_t nodes_in_graph = 0;
  for (const auto& [node, edges] : counts.edges) {
    if (node->value != candidate.value) continue;
    ++nodes_in_graph;
    // Every owner of the node must be an edge of this graph (not a tensor, not a graph
    // outside this sync).
    if (counts.handle.at(node)->use_count() != edges) return false;
  }
  return candidate.value.use_count() == 2 + nodes_in_graph;
}

}  // namespace

std::vector<ir::Alias> PlanDonations(const LoweredGraph& lowered, const std::vector<NodePtr>& roots,
                                     const std::vector<std::shared_ptr<TensorImpl>>& pending,
                                     const std::vector<size_t>& result_of) {
  std::vector<ir::Alias> aliases;
  std::unordered_map<const DeviceValue*, int64_t> parameter_of;
  std::vector<Candidate> candidates;
  std::unordered_set<int64_t> taken_outputs, taken_parameters;
  for (size_t k = 0; k < pending.size(); ++k) {
    std::shared_ptr<DeviceValue> value = pending[k]->replaced();
    if (value == nullptr || value->donated || value->device == nullptr) continue;
    if (parameter_of.empty()) {
      for (size_t p = 0; p < lowered.leaves.size(); ++p) {
        parameter_of.emplace(lowered.leaves[p].get(), static_cast<int64_t>(p));
      }
    }
    auto found = parameter_of.find(value.get());
    if (found == parameter_of.end()) continue;  // the new value does not read the old one
    auto output = static_cast<int64_t>(result_of[k]);
    if (!(roots[result_of[k]]->shape == value->shape)) continue;
    if (!taken_outputs.insert(output).second) continue;
    if (!taken_parameters.insert(found->second).second) {
      taken_outputs.erase(output);
      continue;
    }
    candidates.push_back({std::move(value), found->second, output});
  }
  if (candidates.empty()) return aliases;

  std::unordered_set<const DeviceValue*> wanted;
  for (const Candidate& c : candidates) wanted.insert(c.value.get());
  LeafEdges counts = CountLeafEdges(roots, wanted);
  for (const Candidate& c : candidates) {
    if (c.value->device.use_count() != 1) continue;  // another handle to the device data
    if (!c.value->buffer_donor && !OnlyThisSyncHolds(c, counts)) continue;
    aliases.push_back({c.output, c.parameter});
  }
  return aliases;
}

void MarkDonated(const LoweredGraph& lowered) {
  for (const ir::Alias& alias : lowered.program.aliases) {
    lowered.leaves[static_cast<size_t>(alias.parameter_index)]->donated = true;
  }
}

absl::Status CheckNotDonated(const DeviceValue& value, std::string_view op) {
  if (!value.donated) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      std::string(op), ": the tensor ", value.shape.ToString(),
      " cannot be used: its device buffer was donated to a step that overwrote it in place "
      "(a stale handle kept past a sync; see seam::set_buffer_donor)"));
}

}  // namespace seam::lazy
