#include "src/runtime/pjrt/pjrt_computation_client.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <typeinfo>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "proto/compile_options.pb.h"
#include "seam/c/pjrt_c_api.h"
#include "src/abi/buffer_type.h"
#include "src/base/logging.h"
#include "src/base/object_pool.h"
#include "src/base/status_macros.h"
#include "src/runtime/pjrt/pjrt_api.h"
#include "src/runtime/pjrt/pjrt_computation_client_kv.h"
#include "src/runtime/pjrt/pjrt_computation_client_transfers.h"
#include "src/runtime/trace.h"

namespace seam::runtime {
namespace {

void DestroyEvent(const PJRT_Api* api, PJRT_Event* event) {
  if (event == nullptr) return;
  auto args = SEAM_PJRT_ARGS(PJRT_Event_Destroy_Args);
  args.event = event;
  SEAM_PJRT_CALL(api, PJRT_Event_Destroy, &args).IgnoreError();
}

absl::Status AwaitAndDestroy(const PJRT_Api* api, PJRT_Event* event) {
  if (event == nullptr) return absl::OkStatus();  // nothing pending (a plugin returned none)
  auto args = SEAM_PJRT_ARGS(PJRT_Event_Await_Args);
  args.event = event;
  absl::Status status = SEAM_PJRT_CALL(api, PJRT_Event_Await, &args);
  DestroyEvent(api, event);
  return status;
}

// A buffer handle. It counts itself in its device's live-buffer gauges while it lives.
class PjrtData final : public ComputationClient::Data {
 public:
  PjrtData(std::string device, ir::Shape shape, const PJRT_Api* api, PJRT_Buffer* buffer,
           DeviceActivity* activity)
      : Data(std::move(device), std::move(shape)), api_(api), buffer_(buffer), activity_(activity) {
    activity_->BufferCreated(static_cast<int64_t>(this->shape().byte_size()));
  }
  PjrtData(std::string device, std::shared_ptr<const ir::Shape> shape, const PJRT_Api* api,
           PJRT_Buffer* buffer, DeviceActivity* activity)
      : Data(std::move(device), std::move(shape)), api_(api), buffer_(buffer), activity_(activity) {
    activity_->BufferCreated(static_cast<int64_t>(this->shape().byte_size()));
  }
  ~PjrtData() override {
    activity_->BufferReleased(static_cast<int64_t>(shape().byte_size()));
    auto args = SEAM_PJRT_ARGS(PJRT_Buffer_Destroy_Args);
    args.buffer = buffer_;
    SEAM_PJRT_CALL(api_, PJRT_Buffer_Destroy, &args).IgnoreError();
  }
  bool IsReady() const override {
    auto event_args = SEAM_PJRT_ARGS(PJRT_Buffer_ReadyEvent_Args);
    event_args.buffer = buffer_;
    if (!SEAM_PJRT_CALL(api_, PJRT_Buffer_ReadyEvent, &event_args).ok()) return false;
    auto ready_args = SEAM_PJRT_ARGS(PJRT_Event_IsReady_Args);
    ready_args.event = event_args.event;
    bool ready = SEAM_PJRT_CALL(api_, PJRT_Event_IsReady, &ready_args).ok() && ready_args.is_ready;
    DestroyEvent(api_, event_args.event);
    return ready;
  }
  absl::Status AwaitReady() const override {
    auto event_args = SEAM_PJRT_ARGS(PJRT_Buffer_ReadyEvent_Args);
    event_args.buffer = buffer_;
    absl::Status status = SEAM_PJRT_CALL(api_, PJRT_Buffer_ReadyEvent, &event_args);
    if (!status.ok()) return status;
    return AwaitAndDestroy(api_, event_args.event);
  }
  PJRT_Buffer* buffer() const { return buffer_; }
  const void* native_handle() const override { return buffer_; }

 private:
  const PJRT_Api* api_;
  PJRT_Buffer* buffer_;
  DeviceActivity* activity_;  // never freed (DeviceActivity::For)
};

class PjrtComputation final : public ComputationClient::Computation {
 public:
  PjrtComputation(ir::Program program, const PJRT_Api* api, PJRT_LoadedExecutable* executable)
      : Computation(std::move(program)), api_(api), executable_(executable) {
    for (const ir::Shape& shape : result_shapes()) {
      output_shapes_.push_back(std::make_shared<const ir::Shape>(shape));
    }
  }
  ~PjrtComputation() override {
    auto args = SEAM_PJRT_ARGS(PJRT_LoadedExecutable_Destroy_Args);
    args.executable = executable_;
    SEAM_PJRT_CALL(api_, PJRT_LoadedExecutable_Destroy, &args).IgnoreError();
  }
  PJRT_LoadedExecutable* executable() const { return executable_; }
  // result_shapes(), shared by the handles of every run's outputs.
  const std::vector<std::shared_ptr<const ir::Shape>>& output_shapes() const {
    return output_shapes_;
  }

 private:
  const PJRT_Api* api_;
  PJRT_LoadedExecutable* executable_;
  std::vector<std::shared_ptr<const ir::Shape>> output_shapes_;
};

// `object` as T when it is exactly a T (else null). T is final, so comparing the dynamic
// type is the same test as dynamic_cast at a fraction of its cost (it runs per argument
// of every execution).
template <typename T, typename Base>
const T* AsExactly(const Base* object) {
  if (object == nullptr || typeid(*object) != typeid(T)) return nullptr;
  return static_cast<const T*>(object);
}

// Carried through PJRT_Event_OnReady to stop a run's timer when the device finishes.
struct RunTimer {
  const PJRT_Api* api;
  metrics::Metric* metric;
  DeviceActivity* activity;
  int64_t launch_ns;
};

// One per run: from the thread-cached pool, not the heap.
RunTimer* NewRunTimer(const PJRT_Api* api, metrics::Metric* metric, DeviceActivity* activity,
                      int64_t launch_ns) {
  return new (base::PoolAllocate(sizeof(RunTimer))) RunTimer{api, metric, activity, launch_ns};
}

void FreeRunTimer(RunTimer* timer) { base::PoolFree(timer, sizeof(RunTimer)); }

// One sample: the run's own time (device_activity.h), stamped with its start.
void RecordRun(metrics::Metric* metric, DeviceActivity& activity, int64_t launch_ns,
               bool was_launched) {
  const int64_t done_ns = metrics::NowNs();
  const int64_t began_ns = activity.Ended(launch_ns, done_ns);
  metric->AddSample(began_ns, static_cast<double>(done_ns - began_ns));
  if (was_launched) activity.Retired();
}

void OnRunComplete(PJRT_Error* error, void* user_arg) {
  auto* timer = static_cast<RunTimer*>(user_arg);
  TakePjrtError(timer->api, error).IgnoreError();  // the outputs carry the error to readers
  SyncPluginCounters(timer->api);  // before the sample: a reader that saw it sees these
  RecordRun(timer->metric, *timer->activity, timer->launch_ns, /*was_launched=*/true);
  FreeRunTimer(timer);
}

// ExecuteReplicatedTime: one sample when the last device of a launch finishes, from the
// earliest moment a replica began (device_activity.h) to the last one's end.
struct ReplicatedTimer {
  struct Replica {
    ReplicatedTimer* timer;
    DeviceActivity* activity;
  };
  const PJRT_Api* api;
  int64_t launch_ns;
  std::atomic<int> remaining;
  std::atomic<int64_t> began_ns{INT64_MAX};
  std::vector<Replica> replicas;
};

void OnReplicaComplete(PJRT_Error* error, void* user_arg) {
  auto* replica = static_cast<ReplicatedTimer::Replica*>(user_arg);
  ReplicatedTimer* timer = replica->timer;
  TakePjrtError(timer->api, error).IgnoreError();  // the outputs carry the error to readers
  const int64_t done_ns = metrics::NowNs();
  DeviceActivity* activity = replica->activity;
  const int64_t began = activity->Ended(timer->launch_ns, done_ns);
  int64_t earliest = timer->began_ns.load();
  while (began < earliest && !timer->began_ns.compare_exchange_weak(earliest, began)) {
  }
  if (timer->remaining.fetch_sub(1) == 1) {
    SyncPluginCounters(timer->api);
    const int64_t start = timer->began_ns.load();
    ComputationClient::ExecuteReplicatedMetric()->AddSample(start,
                                                            static_cast<double>(done_ns - start));
    delete timer;
  }
  // After the sample: the last replica retires once the launch's metrics are recorded.
  activity->Retired();
}

std::vector<PJRT_NamedValue> ToNamedValues(const PluginOptions& options) {
  std::vector<PJRT_NamedValue> values;
  for (const auto& [name, value] : options) {
    PJRT_NamedValue v{};
    v.struct_size = PJRT_NamedValue_STRUCT_SIZE;
    v.name = name.data();
    v.name_size = name.size();
    v.value_size = 1;
    if (const auto* i = std::get_if<int64_t>(&value)) {
      v.type = PJRT_NamedValue_kInt64;
      v.int64_value = *i;
    } else if (const auto* s = std::get_if<std::string>(&value)) {
      v.type = PJRT_NamedValue_kString;
      v.string_value = s->data();
      v.value_size = s->size();
    } else if (const auto* b = std::get_if<bool>(&value)) {
      v.type = PJRT_NamedValue_kBool;
      v.bool_value = *b;
    } else if (const auto* f = std::get_if<float>(&value)) {
      v.type = PJRT_NamedValue_kFloat;
      v.float_value = *f;
    } else {
      const auto& list = std::get<std::vector<int64_t>>(value);
      v.type = PJRT_NamedValue_kInt64List;
      v.int64_array_value = list.data();
      v.value_size = list.size();
    }
    values.push_back(v);
  }
  return values;
}

// Output handles come from the object pool: a tiny step makes one per result.
std::shared_ptr<PjrtData> NewData(const std::string& device,
                                  const std::shared_ptr<const ir::Shape>& shape,
                                  const PJRT_Api* api, PJRT_Buffer* buffer,
                                  DeviceActivity* activity) {
  return std::allocate_shared<PjrtData>(base::PoolAllocator<PjrtData>(), device, shape, api, buffer,
                                        activity);
}

}  // namespace

absl::StatusOr<std::unique_ptr<PjrtComputationClient>> PjrtComputationClient::Create(
    const PJRT_Api* api, const PluginOptions& options, std::optional<JobKeyValueStore> store) {
  if (api == nullptr) return absl::InvalidArgumentError("plugin function table is null");
  // The plugin's attributes, recorded before its client exists: whether it reads seam's IR
  // (seam_ir_version) decides the program format Compile sends (program_format.h). A plugin
  // without the function (or that answers it UNIMPLEMENTED) has none.
  PluginOptions attributes;
  absl::StatusOr<PluginOptions> announced = GetPluginAttributes(api);
  if (announced.ok()) {
    attributes = *std::move(announced);
  } else if (!absl::IsUnimplemented(announced.status())) {
    return announced.status();
  }
  std::vector<PJRT_NamedValue> values = ToNamedValues(options);
  auto args = SEAM_PJRT_ARGS(PJRT_Client_Create_Args);
  args.create_options = values.empty() ? nullptr : values.data();
  args.num_options = values.size();
  std::unique_ptr<KvCallbackState> kv;
  if (store.has_value() && store->store != nullptr) {
    kv = std::make_unique<KvCallbackState>(
        KvCallbackState{std::move(store->store), std::move(store->key_prefix)});
    // All three: a plugin builds a store only when get, try-get and put are all set.
    args.kv_get_callback = &KvGet;
    args.kv_get_user_arg = kv.get();
    args.kv_put_callback = &KvPut;
    args.kv_put_user_arg = kv.get();
    args.kv_try_get_callback = &KvTryGet;
    args.kv_try_get_user_arg = kv.get();
  }
  SEAM_RETURN_IF_ERROR(SEAM_PJRT_CALL(api, PJRT_Client_Create, &args));
  if (args.client == nullptr) {
    return absl::InternalError("PJRT_Client_Create succeeded and returned no client");
  }
  std::unique_ptr<PjrtComputationClient> client(new PjrtComputationClient(api, args.client));
  client->kv_ = std::move(kv);
  client->attributes_ = std::move(attributes);
  SEAM_RETURN_IF_ERROR(client->DiscoverDevices());
  // seam's IR or StableHLO: a bad SEAM_PROGRAM_FORMAT or SEAM_MATMUL_PRECISION fails here.
  SEAM_ASSIGN_OR_RETURN(client->program_format_, ChooseProgramFormatFromEnvironment(
                                                     client->attributes_, client->platform_name_));
  // A plugin with the profiler extension adds its events to every trace from now on.
  client->profiler_ = MakeProfilerSource(api, client->platform_name_);
  trace::AddSource(client->profiler_.get());
  return client;
}

PjrtComputationClient::PjrtComputationClient(const PJRT_Api* api, PJRT_Client* client)
    : api_(api), client_(client) {}

PjrtComputationClient::~PjrtComputationClient() {
  trace::RemoveSource(profiler_.get());
  auto args = SEAM_PJRT_ARGS(PJRT_Client_Destroy_Args);
  args.client = client_;
  SEAM_PJRT_CALL(api_, PJRT_Client_Destroy, &args).IgnoreError();
}

absl::StatusOr<std::vector<ComputationClient::DataPtr>> PjrtComputationClient::DoTransferToDevice(
    const std::vector<TensorSource>& tensors) {
  std::vector<DataPtr> handles;
  handles.reserve(tensors.size());
  for (const TensorSource& tensor : tensors) {
    SEAM_ASSIGN_OR_RETURN(int index, DeviceIndex(tensor.device));
    PJRT_Device* device = devices_[static_cast<size_t>(index)];
    auto args = SEAM_PJRT_ARGS(PJRT_Client_BufferFromHostBuffer_Args);
    args.client = client_;
    args.data = tensor.data;
    args.type = abi::ToPjrtBufferType(tensor.shape.dtype);
    args.dims = tensor.shape.dims.data();
    args.num_dims = tensor.shape.dims.size();
    args.byte_strides = nullptr;  // dense, row-major
    args.num_byte_strides = 0;
    args.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
    args.device = device;
    args.memory = nullptr;         // the device's default memory
    args.device_layout = nullptr;  // the plugin's default layout
    SEAM_RETURN_IF_ERROR(SEAM_PJRT_CALL(api_, PJRT_Client_BufferFromHostBuffer, &args));
    DestroyEvent(api_, args.done_with_host_buffer);  // the data was read during the call
    if (args.buffer == nullptr) {
      return absl::InternalError(
          "PJRT_Client_BufferFromHostBuffer succeeded and returned no buffer");
    }
    handles.push_back(std::make_shared<PjrtData>(tensor.device, tensor.shape, api_, args.buffer,
                                                 activity_[static_cast<size_t>(index)]));
  }
  return handles;
}

namespace {

// The handles as this client's values, every one computed (errors first, sizes after: the
// outputs of a run that failed, out of memory say, report its error here, before any host
// memory is sized by their shapes).
absl::StatusOr<absl::InlinedVector<const PjrtData*, 4>> ReadyValues(
    absl::Span<const ComputationClient::DataPtr> handles, std::string_view op) {
  absl::InlinedVector<const PjrtData*, 4> values;
  for (const ComputationClient::DataPtr& handle : handles) {
    const auto* data = AsExactly<PjrtData>(handle.get());
    if (data == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(std::string(op), ": handle is not from this client"));
    }
    values.push_back(data);
  }
  const trace::Span wait("wait: values ready", "wait");
  for (const PjrtData* data : values) SEAM_RETURN_IF_ERROR(data->AwaitReady());
  return values;
}

// Copies values[i] into destinations[i] (each exactly its size) and awaits every copy that
// started, even after a failure, before the destinations can go away.
absl::Status CopyToHost(const PJRT_Api* api, absl::Span<const PjrtData* const> values,
                        absl::Span<const absl::Span<uint8_t>> destinations) {
  absl::InlinedVector<PJRT_Event*, 4> events;
  absl::Status status;
  for (size_t i = 0; i < values.size() && status.ok(); ++i) {
    // Nothing to copy (and a null `dst` would be PJRT's size query, which starts no copy).
    if (destinations[i].empty()) continue;
    // The host layout: dense row-major (minor_to_major rank-1 ... 0, no tiles).
    const size_t rank = values[i]->shape().dims.size();
    absl::InlinedVector<int64_t, 8> minor_to_major(rank);
    for (size_t d = 0; d < rank; ++d) minor_to_major[d] = static_cast<int64_t>(rank - 1 - d);
    auto layout = SEAM_PJRT_ARGS(PJRT_Buffer_MemoryLayout);
    layout.type = PJRT_Buffer_MemoryLayout_Type_Tiled;
    layout.tiled.struct_size = PJRT_Buffer_MemoryLayout_Tiled_STRUCT_SIZE;
    layout.tiled.minor_to_major = minor_to_major.data();
    layout.tiled.minor_to_major_size = rank;
    // First the size the plugin will write in that layout (dst NULL starts no copy).
    auto query = SEAM_PJRT_ARGS(PJRT_Buffer_ToHostBuffer_Args);
    query.src = values[i]->buffer();
    query.host_layout = &layout;
    query.dst = nullptr;
    status = SEAM_PJRT_CALL(api, PJRT_Buffer_ToHostBuffer, &query);
    if (!status.ok()) break;
    DestroyEvent(api, query.event);  // none expected; freed if a plugin made one
    if (query.dst_size != destinations[i].size()) {
      status = absl::InternalError(
          absl::StrCat("PJRT_Buffer_ToHostBuffer: the plugin needs ", query.dst_size, " bytes for ",
                       values[i]->shape().ToString(), " in a dense row-major layout, expected ",
                       destinations[i].size()));
      break;
    }
    auto args = SEAM_PJRT_ARGS(PJRT_Buffer_ToHostBuffer_Args);
    args.src = values[i]->buffer();
    args.host_layout = &layout;
    args.dst = destinations[i].data();
    args.dst_size = destinations[i].size();
    status = SEAM_PJRT_CALL(api, PJRT_Buffer_ToHostBuffer, &args);
    if (status.ok()) events.push_back(args.event);
  }
  const trace::Span wait("wait: copies to host", "wait");
  for (PJRT_Event* event : events) {
    absl::Status copy_status = AwaitAndDestroy(api, event);
    if (status.ok()) status = copy_status;
  }
  if (status.ok()) {
    for (const absl::Span<uint8_t> destination : destinations) {
      ComputationClient::OutboundDataMetric()->AddSample(static_cast<double>(destination.size()));
    }
  }
  return status;
}

}  // namespace

absl::StatusOr<std::vector<ir::Literal>> PjrtComputationClient::DoTransferFromDevice(
    const std::vector<DataPtr>& handles) {
  SEAM_ASSIGN_OR_RETURN(auto values, ReadyValues(handles, "TransferFromDevice"));
  std::vector<ir::Literal> literals(values.size());
  absl::InlinedVector<absl::Span<uint8_t>, 4> destinations;
  for (size_t i = 0; i < values.size(); ++i) {
    literals[i].shape = values[i]->shape();
    const size_t size = literals[i].shape.byte_size();
    try {
      literals[i].bytes.resize(size);
    } catch (const std::bad_alloc&) {
      return absl::ResourceExhaustedError(absl::StrCat("TransferFromDevice: cannot allocate ", size,
                                                       " bytes of host memory for ",
                                                       literals[i].shape.ToString()));
    }
    destinations.push_back(absl::MakeSpan(literals[i].bytes));
  }
  SEAM_RETURN_IF_ERROR(CopyToHost(api_, values, destinations));
  return literals;
}

absl::Status PjrtComputationClient::DoTransferFromDeviceInto(const DataPtr& handle,
                                                             absl::Span<uint8_t> destination) {
  SEAM_ASSIGN_OR_RETURN(auto values,
                        ReadyValues(absl::MakeConstSpan(&handle, 1), "TransferFromDeviceInto"));
  return CopyToHost(api_, values, absl::MakeConstSpan(&destination, 1));
}

absl::Status PjrtComputationClient::TransferFromDeviceRange(const DataPtr& handle, size_t offset,
                                                            absl::Span<uint8_t> destination) {
  if (!HasRangedReads(api_) || !ranged_reads_.load(std::memory_order_relaxed)) {
    return ComputationClient::TransferFromDeviceRange(handle, offset, destination);
  }
  SEAM_RETURN_IF_ERROR(CheckReadRange(*handle, offset, destination.size()));
  SEAM_ASSIGN_OR_RETURN(auto values,
                        ReadyValues(absl::MakeConstSpan(&handle, 1), "TransferFromDeviceRange"));
  absl::Status copied = CopyRawToHost(api_, values.front()->buffer(), offset, destination);
  if (absl::IsUnimplemented(copied)) {
    // The slot is there but the plugin does not serve it: the host-staged default, from now on.
    ranged_reads_.store(false, std::memory_order_relaxed);
    return ComputationClient::TransferFromDeviceRange(handle, offset, destination);
  }
  return copied;
}

absl::StatusOr<std::unique_ptr<ComputationClient::Upload>> PjrtComputationClient::StartUpload(
    std::vector<UploadTarget> targets) {
  if (!HasStreamedTransfers(api_) || !streamed_uploads_.load(std::memory_order_relaxed)) {
    return ComputationClient::StartUpload(std::move(targets));
  }
  SEAM_RETURN_IF_ERROR(CheckUploadTargets(targets));
  for (const UploadTarget& target : targets) {
    if (memories_[static_cast<size_t>(FindDevice(target.device))] == nullptr) {
      return ComputationClient::StartUpload(std::move(targets));  // no memory to allocate in
    }
  }
  std::vector<PJRT_Memory*> memories;
  std::vector<DeviceActivity*> activity;
  std::vector<std::string> names;
  std::vector<std::shared_ptr<const ir::Shape>> shapes;
  memories.reserve(targets.size());
  activity.reserve(targets.size());
  names.reserve(targets.size());
  shapes.reserve(targets.size());
  for (const UploadTarget& target : targets) {
    const auto index = static_cast<size_t>(FindDevice(target.device));
    memories.push_back(memories_[index]);
    activity.push_back(activity_[index]);
    names.push_back(target.device);
    shapes.push_back(std::make_shared<const ir::Shape>(target.shape));
  }
  auto make_handle = [api = api_, activity = std::move(activity), names = std::move(names),
                      shapes = std::move(shapes)](size_t i, PJRT_Buffer* buffer) -> DataPtr {
    return NewData(names[i], shapes[i], api, buffer, activity[i]);
  };
  absl::StatusOr<std::unique_ptr<Upload>> upload =
      StartPjrtUpload(api_, client_, targets, memories, std::move(make_handle));
  if (absl::IsUnimplemented(upload.status())) {
    // The plugin has the slots but does not serve them: the default, from now on.
    streamed_uploads_.store(false, std::memory_order_relaxed);
    return ComputationClient::StartUpload(std::move(targets));
  }
  return upload;
}

namespace {

// The serialized xla.CompileOptionsProto every compile sends: the build options of a
// program of `replicas` replicas, one partition, the plugin choosing the device, and for
// more than one replica the assignment of replica r to global device r. Never
// debug_options: the plugin keeps its defaults.
absl::StatusOr<std::string> CompileOptionsBytes(int64_t replicas, int64_t process_index,
                                                int64_t process_count) {
  xla::CompileOptionsProto options;
  xla::ExecutableBuildOptionsProto* build = options.mutable_executable_build_options();
  build->set_device_ordinal(-1);
  build->set_num_replicas(replicas);
  build->set_num_partitions(1);
  build->set_process_index(process_index);
  build->set_process_count(process_count);
  if (replicas > 1) {
    xla::DeviceAssignmentProto* assignment = build->mutable_device_assignment();
    assignment->set_replica_count(static_cast<int32_t>(replicas));
    assignment->set_computation_count(1);
    xla::DeviceAssignmentProto::ComputationDevice* devices = assignment->add_computation_devices();
    for (int64_t r = 0; r < replicas; ++r) devices->add_replica_device_ids(r);
  }
  std::string bytes;
  if (!options.SerializeToString(&bytes)) {
    return absl::InternalError("cannot serialize the CompileOptionsProto");
  }
  return bytes;
}

void DestroyExecutable(const PJRT_Api* api, PJRT_Executable* executable) {
  auto args = SEAM_PJRT_ARGS(PJRT_Executable_Destroy_Args);
  args.executable = executable;
  SEAM_PJRT_CALL(api, PJRT_Executable_Destroy, &args).IgnoreError();
}

// The executable's outputs per device, as the plugin reports them
// (PJRT_LoadedExecutable_GetExecutable, then PJRT_Executable_NumOutputs, and, when the plugin
// serves them, OutputElementTypes and OutputDimensions), checked against the program's result
// shapes: a plugin that disagrees with the program would hand out buffers of other shapes.
absl::StatusOr<size_t> QueryOutputs(const PJRT_Api* api, PJRT_LoadedExecutable* loaded,
                                    const std::vector<ir::Shape>& expected) {
  auto get = SEAM_PJRT_ARGS(PJRT_LoadedExecutable_GetExecutable_Args);
  get.loaded_executable = loaded;
  SEAM_RETURN_IF_ERROR(SEAM_PJRT_CALL(api, PJRT_LoadedExecutable_GetExecutable, &get));
  PJRT_Executable* executable = get.executable;
  auto check = [&]() -> absl::StatusOr<size_t> {
    auto count = SEAM_PJRT_ARGS(PJRT_Executable_NumOutputs_Args);
    count.executable = executable;
    SEAM_RETURN_IF_ERROR(SEAM_PJRT_CALL(api, PJRT_Executable_NumOutputs, &count));
    if (count.num_outputs != expected.size()) {
      return absl::InternalError(absl::StrCat("PJRT_Executable_NumOutputs: the plugin reports ",
                                              count.num_outputs, " outputs, the program has ",
                                              expected.size()));
    }
    auto types = SEAM_PJRT_ARGS(PJRT_Executable_OutputElementTypes_Args);
    types.executable = executable;
    absl::Status typed = SEAM_PJRT_CALL(api, PJRT_Executable_OutputElementTypes, &types);
    if (typed.ok()) {
      if (types.num_output_types != expected.size() ||
          (types.num_output_types > 0 && types.output_types == nullptr)) {
        return absl::InternalError(absl::StrCat(
            "PJRT_Executable_OutputElementTypes: the plugin reports ", types.num_output_types,
            " types, the program has ", expected.size(), " outputs"));
      }
      for (size_t i = 0; i < expected.size(); ++i) {
        if (types.output_types[i] != abi::ToPjrtBufferType(expected[i].dtype)) {
          return absl::InternalError(absl::StrCat("PJRT_Executable_OutputElementTypes: output ", i,
                                                  " has element type ",
                                                  static_cast<int>(types.output_types[i]),
                                                  ", the program's is ", expected[i].ToString()));
        }
      }
    } else if (!absl::IsUnimplemented(typed)) {
      return typed;
    }
    auto dims = SEAM_PJRT_ARGS(PJRT_Executable_OutputDimensions_Args);
    dims.executable = executable;
    absl::Status dimensioned = SEAM_PJRT_CALL(api, PJRT_Executable_OutputDimensions, &dims);
    if (dimensioned.ok()) {
      if (dims.num_outputs != expected.size() ||
          (dims.num_outputs > 0 && dims.dim_sizes == nullptr)) {
        return absl::InternalError(
            absl::StrCat("PJRT_Executable_OutputDimensions: the plugin reports ", dims.num_outputs,
                         " outputs, the program has ", expected.size()));
      }
      size_t at = 0;
      for (size_t i = 0; i < expected.size(); ++i) {
        const std::vector<int64_t>& want = expected[i].dims;
        bool same = dims.dim_sizes[i] == want.size() && (want.empty() || dims.dims != nullptr);
        for (size_t d = 0; same && d < want.size(); ++d) same = dims.dims[at + d] == want[d];
        if (!same) {
          return absl::InternalError(absl::StrCat("PJRT_Executable_OutputDimensions: output ", i,
                                                  " does not have the program's shape ",
                                                  expected[i].ToString()));
        }
        at += dims.dim_sizes[i];
      }
    } else if (!absl::IsUnimplemented(dimensioned)) {
      return dimensioned;
    }
    return count.num_outputs;
  };
  absl::StatusOr<size_t> outputs = check();
  DestroyExecutable(api, executable);
  return outputs;
}

}  // namespace

absl::StatusOr<std::vector<ComputationClient::ComputationPtr>> PjrtComputationClient::DoCompile(
    std::vector<CompileInstance> instances) {
  std::vector<ComputationPtr> computations;
  for (CompileInstance& instance : instances) {
    SEAM_RETURN_IF_ERROR(DeviceIndex(instance.compilation_device).status());
    SEAM_ASSIGN_OR_RETURN(std::string text, ProgramText(instance.program, program_format_));
    SEAM_ASSIGN_OR_RETURN(std::string options,
                          CompileOptionsBytes(std::max<int64_t>(instance.program.replica_count, 1),
                                              process_index_, process_count_));
    const char* format = PjrtFormatName(program_format_.format);
    auto program = SEAM_PJRT_ARGS(PJRT_Program);
    program.code = text.data();
    program.code_size = text.size();
    program.format = format;
    program.format_size = std::strlen(format);
    auto args = SEAM_PJRT_ARGS(PJRT_Client_Compile_Args);
    args.client = client_;
    args.program = &program;
    args.compile_options = options.data();
    args.compile_options_size = options.size();
    SEAM_RETURN_IF_ERROR(SEAM_PJRT_CALL(api_, PJRT_Client_Compile, &args));
    if (args.executable == nullptr) {
      return absl::InternalError("PJRT_Client_Compile succeeded and returned no executable");
    }
    auto computation =
        std::make_shared<PjrtComputation>(std::move(instance.program), api_, args.executable);
    SEAM_RETURN_IF_ERROR(
        QueryOutputs(api_, args.executable, computation->result_shapes()).status());
    computations.push_back(std::move(computation));
  }
  return computations;
}

absl::StatusOr<std::vector<ComputationClient::DataPtr>> PjrtComputationClient::DoExecuteComputation(
    const Computation& computation, const std::vector<DataPtr>& arguments,
    const std::string& device, const ExecuteComputationOptions& options) {
  const auto* pjrt_computation = AsExactly<PjrtComputation>(&computation);
  if (pjrt_computation == nullptr) {
    return absl::InvalidArgumentError("ExecuteComputation: computation is not from this client");
  }
  const int index = FindDevice(device);
  if (index < 0) return DeviceIndex(device).status();  // the error, named
  PJRT_Device* pjrt_device = devices_[static_cast<size_t>(index)];
  DeviceActivity* activity = activity_[static_cast<size_t>(index)];
  // Inline storage: a usual run's handle lists need no heap block.
  absl::InlinedVector<PJRT_Buffer*, 16> buffers;
  buffers.reserve(arguments.size());
  for (size_t i = 0; i < arguments.size(); ++i) {
    const auto* data = AsExactly<PjrtData>(arguments[i].get());
    if (data == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("ExecuteComputation: argument ", i, " is not from this client"));
    }
    buffers.push_back(data->buffer());
  }
  const std::vector<std::shared_ptr<const ir::Shape>>& result_shapes =
      pjrt_computation->output_shapes();
  absl::InlinedVector<PJRT_Buffer*, 16> outputs(result_shapes.size(), nullptr);
  PJRT_Buffer* const* argument_list = buffers.data();
  PJRT_Buffer** output_list = outputs.data();
  PJRT_Event* complete = nullptr;

  auto exec_options = SEAM_PJRT_ARGS(PJRT_ExecuteOptions);
  auto args = SEAM_PJRT_ARGS(PJRT_LoadedExecutable_Execute_Args);
  args.executable = pjrt_computation->executable();
  args.options = &exec_options;
  args.argument_lists = &argument_list;
  args.num_devices = 1;
  args.num_args = buffers.size();
  args.output_lists = &output_list;
  args.device_complete_events = &complete;
  args.execute_device = pjrt_device;

  metrics::Metric* metric = options.eager_mode ? EagerOpExecuteMetric() : ExecuteMetric();
  int64_t launch_ns = metrics::NowNs();
  SEAM_RETURN_IF_ERROR(SEAM_PJRT_CALL(api_, PJRT_LoadedExecutable_Execute, &args));

  // A run the plugin finished during the call (a small one, run on this thread) is timed
  // now; any other is in flight until its completion event fires.
  absl::Status timer_status;
  auto is_ready = SEAM_PJRT_ARGS(PJRT_Event_IsReady_Args);
  is_ready.event = complete;
  if (complete == nullptr ||
      (SEAM_PJRT_CALL(api_, PJRT_Event_IsReady, &is_ready).ok() && is_ready.is_ready)) {
    RecordRun(metric, *activity, launch_ns, /*was_launched=*/false);
  } else {
    activity->Launched();
    auto on_ready = SEAM_PJRT_ARGS(PJRT_Event_OnReady_Args);
    on_ready.event = complete;
    on_ready.callback = OnRunComplete;
    on_ready.user_arg = NewRunTimer(api_, metric, activity, launch_ns);
    timer_status = SEAM_PJRT_CALL(api_, PJRT_Event_OnReady, &on_ready);
    if (!timer_status.ok()) {
      // Never called back: the run counts as finished now, so no one waits for it forever.
      OnRunComplete(nullptr, on_ready.user_arg);
    }
  }
  DestroyEvent(api_, complete);

  std::vector<DataPtr> results;
  results.reserve(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    results.push_back(NewData(device, result_shapes[i], api_, outputs[i], activity));
  }
  SEAM_RETURN_IF_ERROR(timer_status);
  return results;
}

absl::StatusOr<std::vector<std::vector<ComputationClient::DataPtr>>>
PjrtComputationClient::DoExecuteReplicated(const Computation& computation,
                                           const std::vector<std::vector<DataPtr>>& arguments,
                                           const std::vector<std::string>& devices) {
  const auto* pjrt_computation = AsExactly<PjrtComputation>(&computation);
  if (pjrt_computation == nullptr) {
    return absl::InvalidArgumentError("ExecuteReplicated: computation is not from this client");
  }
  const size_t n = devices.size();
  if (n == 0 || n > device_names_.size() || arguments.size() != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ExecuteReplicated: ", n, " device(s) and ", arguments.size(),
        " argument list(s) given; they must be equal and between 1 and ", device_names_.size()));
  }
  std::vector<std::vector<PJRT_Buffer*>> buffers(n);
  std::vector<PJRT_Buffer* const*> argument_lists(n);
  for (size_t d = 0; d < n; ++d) {
    if (devices[d] != device_names_[d]) {
      return absl::InvalidArgumentError(absl::StrCat("ExecuteReplicated: devices[", d, "] is '",
                                                     devices[d], "', expected '", device_names_[d],
                                                     "' (replica d runs on "
                                                     "the d-th addressable device)"));
    }
    for (size_t i = 0; i < arguments[d].size(); ++i) {
      const auto* data = AsExactly<PjrtData>(arguments[d][i].get());
      if (data == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            "ExecuteReplicated: argument ", i, " of device ", d, " is not from this client"));
      }
      buffers[d].push_back(data->buffer());
    }
    if (buffers[d].size() != buffers[0].size()) {
      return absl::InvalidArgumentError(absl::StrCat("ExecuteReplicated: device ", d, " has ",
                                                     buffers[d].size(), " arguments, device 0 has ",
                                                     buffers[0].size()));
    }
    argument_lists[d] = buffers[d].data();
  }
  const std::vector<ir::Shape>& result_shapes = computation.result_shapes();
  std::vector<std::vector<PJRT_Buffer*>> outputs(n,
                                                 std::vector<PJRT_Buffer*>(result_shapes.size()));
  std::vector<PJRT_Buffer**> output_lists(n);
  for (size_t d = 0; d < n; ++d) output_lists[d] = outputs[d].data();
  std::vector<PJRT_Event*> complete(n, nullptr);

  auto exec_options = SEAM_PJRT_ARGS(PJRT_ExecuteOptions);
  auto args = SEAM_PJRT_ARGS(PJRT_LoadedExecutable_Execute_Args);
  args.executable = pjrt_computation->executable();
  args.options = &exec_options;
  args.argument_lists = argument_lists.data();
  args.num_devices = n;
  args.num_args = buffers[0].size();
  args.output_lists = output_lists.data();
  args.device_complete_events = complete.data();

  int64_t launch_ns = metrics::NowNs();
  SEAM_RETURN_IF_ERROR(SEAM_PJRT_CALL(api_, PJRT_LoadedExecutable_Execute, &args));

  auto* timer = new ReplicatedTimer{api_, launch_ns, static_cast<int>(n), INT64_MAX, {}};
  timer->replicas.resize(n);
  for (size_t d = 0; d < n; ++d) {
    timer->replicas[d] = {timer, activity_[d]};
    activity_[d]->Launched();
  }
  absl::Status timer_status;
  for (size_t d = 0; d < n; ++d) {
    auto on_ready = SEAM_PJRT_ARGS(PJRT_Event_OnReady_Args);
    on_ready.event = complete[d];
    on_ready.callback = OnReplicaComplete;
    on_ready.user_arg = &timer->replicas[d];
    if (complete[d] == nullptr) {
      // No completion event (a plugin that leaves the optional array alone): the device's
      // run counts as finished now, as in ExecuteComputation.
      OnReplicaComplete(nullptr, &timer->replicas[d]);
      continue;
    }
    absl::Status s = SEAM_PJRT_CALL(api_, PJRT_Event_OnReady, &on_ready);
    if (!s.ok()) {
      // This device will never count down; do it here so the timer is still freed.
      OnReplicaComplete(nullptr, &timer->replicas[d]);
      if (timer_status.ok()) timer_status = s;
    }
    DestroyEvent(api_, complete[d]);
  }

  std::vector<std::vector<DataPtr>> results(n);
  for (size_t d = 0; d < n; ++d) {
    for (size_t i = 0; i < result_shapes.size(); ++i) {
      results[d].push_back(NewData(devices[d], pjrt_computation->output_shapes()[i], api_,
                                   outputs[d][i], activity_[d]));
    }
  }
  SEAM_RETURN_IF_ERROR(timer_status);
  return results;
}

}  // namespace seam::runtime
