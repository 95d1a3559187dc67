#include "src/lazy/donation.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace seam::lazy {
namespace {

// PlanDonations' per-thread tables, emptied at every call, keep their capacity for the next
// barrier. Reached through a function that is never inlined, so that a call holds their
// address: in a shared library the compiler repeats __tls_get_addr for a thread_local after
// every call it makes.
struct DonationTables {
  absl::flat_hash_map<const DeviceValue*, size_t> parameter_of;
  std::vector<size_t> instruction_of_parameter;
  std::vector<int64_t> uses;
  std::vector<bool> output_taken, parameter_taken;
};
[[gnu::noinline]] DonationTables& ThisThreadDonationTables() {
  thread_local DonationTables tables;
  return tables;
}

}  // namespace

bool MayDonate(const std::shared_ptr<DeviceValue>& value, const NodePtr& leaf,
               int64_t leaf_owners_in_step) {
  if (value->donated) return false;
  // A host-only value gets a buffer of its own when the step sends it.
  if (value->device == nullptr ? !value->host.has_value() : value->device.use_count() != 1) {
    return false;
  }
  if (value->buffer_donor) return true;
  if (leaf == nullptr) return false;
  // The value's owners: the step's parameter list and the leaf. The leaf's: the caller's
  // reference and the step's owners alone.
  return value.use_count() == 2 && leaf.use_count() - 1 == leaf_owners_in_step;
}

std::vector<ir::Alias> PlanDonations(const GraphWalk& walk, const std::vector<NodePtr>& roots,
                                     const std::vector<std::shared_ptr<TensorImpl>>& pending,
                                     const std::vector<size_t>& result_of) {
  std::vector<ir::Alias> aliases;
  aliases.reserve(pending.size());
  // Built on the first candidate: parameter index of each leaf value, instruction of each
  // parameter, and operand references to each instruction (one pass, no hashing of nodes).
  auto& [parameter_of, instruction_of_parameter, uses, output_taken, parameter_taken] =
      ThisThreadDonationTables();
  parameter_of.clear();
  instruction_of_parameter.clear();
  uses.clear();
  output_taken.assign(roots.size(), false);
  parameter_taken.assign(walk.leaves.size(), false);
  for (size_t k = 0; k < pending.size(); ++k) {
    NodePtr leaf = pending[k]->replaced();  // one more owner of the leaf while held here
    if (leaf == nullptr || !leaf->is_leaf()) continue;
    const std::shared_ptr<DeviceValue>& value = leaf->value;
    if (parameter_of.empty()) {
      parameter_of.reserve(walk.leaves.size());
      for (size_t p = 0; p < walk.leaves.size(); ++p) parameter_of[walk.leaves[p].get()] = p;
      // Parameters are the walk's leaf nodes, in parameter order.
      instruction_of_parameter.reserve(walk.leaves.size());
      for (size_t i = 0; i < walk.nodes.size(); ++i) {
        if (walk.nodes[i]->is_leaf()) instruction_of_parameter.push_back(i);
      }
      uses.assign(walk.nodes.size(), 0);
      for (int operand : walk.operands) ++uses[static_cast<size_t>(operand)];
    }
    auto found = parameter_of.find(value.get());
    if (found == parameter_of.end()) continue;  // the new value does not read the old one
    const size_t parameter = found->second, output = result_of[k];
    if (!(roots[output]->shape == value->shape)) continue;
    if (output_taken[output] || parameter_taken[parameter]) continue;
    // The leaf's owners in the step: each node of the graph is one instruction, each of its
    // edges one operand.
    if (!MayDonate(value, leaf, uses[instruction_of_parameter[parameter]])) continue;
    output_taken[output] = true;
    parameter_taken[parameter] = true;
    aliases.push_back({static_cast<int64_t>(output), static_cast<int64_t>(parameter)});
  }
  return aliases;
}

absl::Status CheckNotDonated(const DeviceValue& value, std::string_view op) {
  if (!value.donated) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      std::string(op), ": the tensor ", value.shape.ToString(),
      " cannot be used: its device buffer was donated to a step that overwrote it in place "
      "(a stale handle kept past a sync; see seam::set_buffer_donor)"));
}

}  // namespace seam::lazy
