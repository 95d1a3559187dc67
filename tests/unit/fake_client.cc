#include "tests/unit/fake_client.h"

#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/ir/reference_evaluator.h"

namespace seam::fake {
namespace {

// A value held on the host: ready as soon as it exists.
class FakeData final : public runtime::ComputationClient::Data {
 public:
  FakeData(std::string device, ir::Literal literal)
      : Data(std::move(device), literal.shape), literal_(std::move(literal)) {}
  bool IsReady() const override { return true; }
  absl::Status AwaitReady() const override { return absl::OkStatus(); }
  const ir::Literal& literal() const { return literal_; }

 private:
  ir::Literal literal_;
};

absl::StatusOr<std::vector<ir::Literal>> Literals(
    const std::vector<runtime::ComputationClient::DataPtr>& handles) {
  std::vector<ir::Literal> literals;
  for (const auto& handle : handles) {
    const auto* data = dynamic_cast<const FakeData*>(handle.get());
    if (data == nullptr) return absl::InvalidArgumentError("not a FakeClient value");
    literals.push_back(data->literal());
  }
  return literals;
}

std::vector<runtime::ComputationClient::DataPtr> Wrap(const std::string& device,
                                                      std::vector<ir::Literal> literals) {
  std::vector<runtime::ComputationClient::DataPtr> handles;
  for (ir::Literal& literal : literals) {
    handles.push_back(std::make_shared<FakeData>(device, std::move(literal)));
  }
  return handles;
}

}  // namespace

FakeClient::FakeClient(int devices) : devices_(devices) {}

std::vector<ir::Program> FakeClient::compiled() const {
  std::lock_guard<std::mutex> lock(mu_);
  return compiled_;
}

absl::StatusOr<std::vector<FakeClient::DataPtr>> FakeClient::DoTransferToDevice(
    const std::vector<TensorSource>& tensors) {
  ++counts_.transfers_to;
  std::vector<DataPtr> handles;
  for (const TensorSource& source : tensors) {
    ir::Literal literal;
    literal.shape = source.shape;
    const auto* bytes = static_cast<const uint8_t*>(source.data);
    literal.bytes.assign(bytes, bytes + source.shape.byte_size());
    handles.push_back(std::make_shared<FakeData>(source.device, std::move(literal)));
  }
  return handles;
}

absl::StatusOr<std::vector<ir::Literal>> FakeClient::DoTransferFromDevice(
    const std::vector<DataPtr>& handles) {
  ++counts_.transfers_from;
  return Literals(handles);
}

absl::StatusOr<std::vector<FakeClient::ComputationPtr>> FakeClient::DoCompile(
    std::vector<CompileInstance> instances) {
  ++counts_.compiles;
  std::vector<ComputationPtr> computations;
  std::lock_guard<std::mutex> lock(mu_);
  for (CompileInstance& instance : instances) {
    compiled_.push_back(instance.program);
    computations.push_back(std::make_shared<Computation>(std::move(instance.program)));
  }
  return computations;
}

absl::StatusOr<std::vector<FakeClient::DataPtr>> FakeClient::DoExecuteComputation(
    const Computation& computation, const std::vector<DataPtr>& arguments,
    const std::string& device, const ExecuteComputationOptions&) {
  ++counts_.executes;
  absl::StatusOr<std::vector<ir::Literal>> inputs = Literals(arguments);
  if (!inputs.ok()) return inputs.status();
  absl::StatusOr<std::vector<ir::Literal>> results = ir::Evaluate(computation.program(), *inputs);
  if (!results.ok()) return results.status();
  return Wrap(device, *std::move(results));
}

absl::StatusOr<std::vector<std::vector<FakeClient::DataPtr>>> FakeClient::DoExecuteReplicated(
    const Computation& computation, const std::vector<std::vector<DataPtr>>& arguments,
    const std::vector<std::string>& devices) {
  ++counts_.executes_replicated;
  std::vector<std::vector<ir::Literal>> inputs;
  for (const auto& replica : arguments) {
    absl::StatusOr<std::vector<ir::Literal>> literals = Literals(replica);
    if (!literals.ok()) return literals.status();
    inputs.push_back(*std::move(literals));
  }
  absl::StatusOr<std::vector<std::vector<ir::Literal>>> results =
      ir::EvaluateReplicated(computation.program(), inputs);
  if (!results.ok()) return results.status();
  std::vector<std::vector<DataPtr>> outputs;
  for (size_t d = 0; d < results->size(); ++d) {
    outputs.push_back(Wrap(devices[d], std::move((*results)[d])));
  }
  return outputs;
}

std::vector<FakeClient::DeviceInfo> FakeClient::GetDeviceInfos() const {
  std::vector<DeviceInfo> infos;
  for (int d = 0; d < devices_; ++d) infos.push_back({absl::StrCat("FAKE:", d), d, "fake"});
  return infos;
}

std::vector<std::string> FakeClient::GetLocalDevices() const {
  std::vector<std::string> names;
  for (int d = 0; d < devices_; ++d) names.push_back(absl::StrCat("FAKE:", d));
  return names;
}

}  // namespace seam::fake
