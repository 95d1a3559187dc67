// Buffers from and to the host, events, and compiling.
#include <algorithm>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "src/conformance/suite_internal.h"

namespace seam::conformance {
namespace {

struct TypeInfo {
  PJRT_Buffer_Type type;
  const char* name;
  size_t size;
};

constexpr TypeInfo kTypes[] = {{PJRT_Buffer_Type_PRED, "PRED", 1}, {PJRT_Buffer_Type_S8, "S8", 1},
                               {PJRT_Buffer_Type_S16, "S16", 2},   {PJRT_Buffer_Type_S32, "S32", 4},
                               {PJRT_Buffer_Type_S64, "S64", 8},   {PJRT_Buffer_Type_U8, "U8", 1},
                               {PJRT_Buffer_Type_U16, "U16", 2},   {PJRT_Buffer_Type_U32, "U32", 4},
                               {PJRT_Buffer_Type_U64, "U64", 8},   {PJRT_Buffer_Type_F16, "F16", 2},
                               {PJRT_Buffer_Type_F32, "F32", 4},   {PJRT_Buffer_Type_F64, "F64", 8},
                               {PJRT_Buffer_Type_BF16, "BF16", 2}, {PJRT_Buffer_Type_C64, "C64", 8},
                               {PJRT_Buffer_Type_C128, "C128", 16}};

const TypeInfo* Info(int64_t type) {
  for (const TypeInfo& info : kTypes) {
    if (info.type == type) return &info;
  }
  return nullptr;
}

std::vector<uint8_t> Pattern(const TypeInfo& info, size_t count) {
  std::vector<uint8_t> bytes(count * info.size);
  for (size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = info.type == PJRT_Buffer_Type_PRED ? static_cast<uint8_t>(i % 2)
                                                  : static_cast<uint8_t>(i * 37 + 11);
  }
  return bytes;
}

// The dense row-major layout: minor_to_major rank-1, ..., 0, no tiles.
struct DenseLayout {
  explicit DenseLayout(size_t rank) {
    for (size_t i = 0; i < rank; ++i) minor_to_major.push_back(static_cast<int64_t>(rank - 1 - i));
    layout = SEAM_PJRT_ARGS(PJRT_Buffer_MemoryLayout);
    layout.type = PJRT_Buffer_MemoryLayout_Type_Tiled;
    layout.tiled = SEAM_PJRT_ARGS(PJRT_Buffer_MemoryLayout_Tiled);
    layout.tiled.minor_to_major = minor_to_major.data();
    layout.tiled.minor_to_major_size = minor_to_major.size();
  }
  std::vector<int64_t> minor_to_major;
  PJRT_Buffer_MemoryLayout layout;
};

absl::StatusOr<std::vector<int64_t>> Dimensions(Suite& suite, PJRT_Buffer* buffer) {
  auto args = SEAM_PJRT_ARGS(PJRT_Buffer_Dimensions_Args);
  args.buffer = buffer;
  absl::Status status = SEAM_CALL(suite, PJRT_Buffer_Dimensions, &args);
  if (!status.ok()) return status;
  if (args.num_dims > 0 && args.dims == nullptr) {
    return absl::InternalError("PJRT_Buffer_Dimensions: dimensions and a null array");
  }
  return std::vector<int64_t>(args.dims, args.dims + args.num_dims);
}

absl::Status RoundTrip(Suite& suite, const TypeInfo& info, const std::vector<int64_t>& dims) {
  size_t count = 1;
  for (int64_t d : dims) count *= static_cast<size_t>(d);
  std::vector<uint8_t> data = Pattern(info, count);
  absl::StatusOr<PJRT_Buffer*> uploaded = Upload(suite, data.data(), info.type, dims);
  if (!uploaded.ok()) return uploaded.status();
  Buffer buffer(suite, *uploaded);
  std::string shape = absl::StrCat(info.name, "[", absl::StrJoin(dims, ","), "]");

  absl::StatusOr<std::vector<int64_t>> reported = Dimensions(suite, buffer.get());
  if (!reported.ok()) return reported.status();
  if (*reported != dims) {
    return absl::InternalError(absl::StrCat(shape, ": the buffer reports dimensions [",
                                            absl::StrJoin(*reported, ","), "]"));
  }
  auto type_args = SEAM_PJRT_ARGS(PJRT_Buffer_ElementType_Args);
  type_args.buffer = buffer.get();
  absl::Status status = SEAM_CALL(suite, PJRT_Buffer_ElementType, &type_args);
  if (!status.ok()) return status;
  if (type_args.type != info.type) {
    return absl::InternalError(
        absl::StrCat(shape, ": element type reported as ", static_cast<int>(type_args.type)));
  }
  auto ready = SEAM_PJRT_ARGS(PJRT_Buffer_ReadyEvent_Args);
  ready.buffer = buffer.get();
  status = SEAM_CALL(suite, PJRT_Buffer_ReadyEvent, &ready);
  if (!status.ok()) return status;
  auto await = SEAM_PJRT_ARGS(PJRT_Event_Await_Args);
  await.event = ready.event;
  status = SEAM_CALL(suite, PJRT_Event_Await, &await);
  auto is_ready = SEAM_PJRT_ARGS(PJRT_Event_IsReady_Args);
  is_ready.event = ready.event;
  if (status.ok()) status = SEAM_CALL(suite, PJRT_Event_IsReady, &is_ready);
  auto destroy = SEAM_PJRT_ARGS(PJRT_Event_Destroy_Args);
  destroy.event = ready.event;
  absl::Status destroyed = SEAM_CALL(suite, PJRT_Event_Destroy, &destroy);
  if (!status.ok()) return status;
  if (!destroyed.ok()) return destroyed;
  if (!is_ready.is_ready)
    return absl::InternalError(absl::StrCat(shape, ": not ready after await"));

  std::vector<uint8_t> back;
  status = Download(suite, buffer.get(), back);
  if (!status.ok()) return status;
  return Expect(back == data, absl::StrCat(shape, ": the bytes read back differ"));
}

absl::Status RoundTrips(Suite& suite, const TypeInfo& info) {
  if (absl::Status s = suite.NeedClient(); !s.ok()) return s;
  for (const std::vector<int64_t>& dims : {std::vector<int64_t>{}, {0}, {2, 0, 3}, {3, 5}}) {
    absl::Status status = RoundTrip(suite, info, dims);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

void CountCall(PJRT_Error* error, void* user_arg) {
  auto* calls = static_cast<std::pair<const PJRT_Api*, int>*>(user_arg);
  ++calls->second;
  TakeError(calls->first, error).IgnoreError();
}

// Uploads f32[4] with the given extra fields set by `fill`, reads it back and compares.
absl::Status UploadWith(Suite& suite,
                        const std::function<void(PJRT_Client_BufferFromHostBuffer_Args&)>& fill,
                        bool* had_event = nullptr) {
  if (absl::Status s = suite.NeedClient(); !s.ok()) return s;
  const float values[4] = {1.5f, -2, 3, 0.25f};
  static const int64_t kDims[] = {4};
  auto args = SEAM_PJRT_ARGS(PJRT_Client_BufferFromHostBuffer_Args);
  args.client = suite.client();
  args.data = values;
  args.type = PJRT_Buffer_Type_F32;
  args.dims = kDims;
  args.num_dims = 1;
  args.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
  args.device = suite.devices().front();
  fill(args);
  absl::Status status = SEAM_CALL(suite, PJRT_Client_BufferFromHostBuffer, &args);
  if (!status.ok()) return status;
  Buffer buffer(suite, args.buffer);
  if (had_event != nullptr) *had_event = args.done_with_host_buffer != nullptr;
  if (args.done_with_host_buffer != nullptr) {
    if (absl::Status s = AwaitAndDestroy(suite, args.done_with_host_buffer); !s.ok()) return s;
  }
  std::vector<uint8_t> back;
  if (absl::Status s = Download(suite, buffer.get(), back); !s.ok()) return s;
  float got[4] = {};
  if (back.size() == sizeof(got)) std::memcpy(got, back.data(), sizeof(got));
  return Expect(back.size() == sizeof(values) && std::equal(got, got + 4, values),
                "the values read back differ");
}

absl::StatusOr<PJRT_Memory*> DefaultMemory(Suite& suite) {
  if (absl::Status s = suite.NeedClient(); !s.ok()) return s;
  auto args = SEAM_PJRT_ARGS(PJRT_Device_DefaultMemory_Args);
  args.device = suite.devices().front();
  absl::Status status = SEAM_CALL(suite, PJRT_Device_DefaultMemory, &args);
  if (!status.ok()) return status;
  return args.memory;
}

}  // namespace

Buffer::~Buffer() {
  if (buffer_ == nullptr) return;
  auto args = SEAM_PJRT_ARGS(PJRT_Buffer_Destroy_Args);
  args.buffer = buffer_;
  SEAM_CALL(suite_, PJRT_Buffer_Destroy, &args).IgnoreError();
}

absl::Status AwaitAndDestroy(Suite& suite, PJRT_Event* event) {
  if (event == nullptr) return absl::InternalError("a null event");
  auto await = SEAM_PJRT_ARGS(PJRT_Event_Await_Args);
  await.event = event;
  absl::Status status = SEAM_CALL(suite, PJRT_Event_Await, &await);
  auto destroy = SEAM_PJRT_ARGS(PJRT_Event_Destroy_Args);
  destroy.event = event;
  absl::Status destroyed = SEAM_CALL(suite, PJRT_Event_Destroy, &destroy);
  return status.ok() ? destroyed : status;
}

absl::StatusOr<PJRT_Buffer*> Upload(Suite& suite, const void* data, PJRT_Buffer_Type type,
                                    const std::vector<int64_t>& dims) {
  if (absl::Status s = suite.NeedClient(); !s.ok()) return s;
  auto args = SEAM_PJRT_ARGS(PJRT_Client_BufferFromHostBuffer_Args);
  args.client = suite.client();
  args.data = data;
  args.type = type;
  args.dims = dims.data();
  args.num_dims = dims.size();
  args.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
  args.device = suite.devices().front();
  absl::Status status = SEAM_CALL(suite, PJRT_Client_BufferFromHostBuffer, &args);
  if (!status.ok()) return status;
  if (args.done_with_host_buffer != nullptr) {
    auto destroy = SEAM_PJRT_ARGS(PJRT_Event_Destroy_Args);
    destroy.event = args.done_with_host_buffer;
    SEAM_CALL(suite, PJRT_Event_Destroy, &destroy).IgnoreError();
  }
  if (args.buffer == nullptr) {
    return absl::InternalError("PJRT_Client_BufferFromHostBuffer succeeded with a null buffer");
  }
  return args.buffer;
}

absl::Status Download(Suite& suite, PJRT_Buffer* buffer, std::vector<uint8_t>& out) {
  absl::StatusOr<std::vector<int64_t>> dims = Dimensions(suite, buffer);
  if (!dims.ok()) return dims.status();
  DenseLayout layout(dims->size());
  auto args = SEAM_PJRT_ARGS(PJRT_Buffer_ToHostBuffer_Args);
  args.src = buffer;
  args.host_layout = &layout.layout;
  absl::Status status = SEAM_CALL(suite, PJRT_Buffer_ToHostBuffer, &args);  // size query
  if (!status.ok()) return status;
  if (args.event != nullptr) {
    return absl::InternalError("PJRT_Buffer_ToHostBuffer with dst = NULL returned an event");
  }
  out.assign(args.dst_size, 0xAB);
  uint8_t unused;  // a 0-byte copy still needs a non-null destination (null asks the size)
  args.dst = out.empty() ? &unused : out.data();
  status = SEAM_CALL(suite, PJRT_Buffer_ToHostBuffer, &args);
  if (!status.ok()) return status;
  return AwaitAndDestroy(suite, args.event);
}

absl::StatusOr<PJRT_LoadedExecutable*> Compile(Suite& suite, const ProbeProgram& program,
                                               int64_t num_replicas) {
  if (absl::Status s = suite.NeedClient(); !s.ok()) return s;
  const std::string options = CompileOptionsBytes(num_replicas);
  auto pjrt_program = SEAM_PJRT_ARGS(PJRT_Program);
  std::string code = program.code;
  pjrt_program.code = code.data();
  pjrt_program.code_size = code.size();
  pjrt_program.format = program.format.data();
  pjrt_program.format_size = program.format.size();
  auto args = SEAM_PJRT_ARGS(PJRT_Client_Compile_Args);
  args.client = suite.client();
  args.program = &pjrt_program;
  args.compile_options = options.data();
  args.compile_options_size = options.size();
  absl::Status status = SEAM_CALL(suite, PJRT_Client_Compile, &args);
  if (!status.ok()) return status;
  if (args.executable == nullptr) {
    return absl::InternalError("PJRT_Client_Compile succeeded with a null executable");
  }
  return args.executable;
}

void DestroyExecutable(Suite& suite, PJRT_LoadedExecutable* executable) {
  auto args = SEAM_PJRT_ARGS(PJRT_LoadedExecutable_Destroy_Args);
  args.executable = executable;
  SEAM_CALL(suite, PJRT_LoadedExecutable_Destroy, &args).IgnoreError();
}

namespace {

absl::Status SizeQuery(Suite& suite) {
  float values[6] = {};
  absl::StatusOr<PJRT_Buffer*> uploaded = Upload(suite, values, PJRT_Buffer_Type_F32, {2, 3});
  if (!uploaded.ok()) return uploaded.status();
  Buffer buffer(suite, *uploaded);
  for (bool with_layout : {false, true}) {
    DenseLayout layout(2);
    auto args = SEAM_PJRT_ARGS(PJRT_Buffer_ToHostBuffer_Args);
    args.src = buffer.get();
    args.host_layout = with_layout ? &layout.layout : nullptr;
    absl::Status status = SEAM_CALL(suite, PJRT_Buffer_ToHostBuffer, &args);
    if (!status.ok()) return status;
    if (args.event != nullptr) return absl::InternalError("an event came with the size");
    if (args.dst_size != sizeof(values)) {
      return absl::InternalError(absl::StrCat("f32[2,3]: dst_size ", args.dst_size,
                                              with_layout ? " (dense host layout)" : "",
                                              ", expected 24"));
    }
  }
  return absl::OkStatus();
}

absl::Status TooSmallDestinationIsRefused(Suite& suite) {
  float values[4] = {1, 2, 3, 4};
  absl::StatusOr<PJRT_Buffer*> uploaded = Upload(suite, values, PJRT_Buffer_Type_F32, {4});
  if (!uploaded.ok()) return uploaded.status();
  Buffer buffer(suite, *uploaded);
  float small[2];
  auto args = SEAM_PJRT_ARGS(PJRT_Buffer_ToHostBuffer_Args);
  args.src = buffer.get();
  args.dst = small;
  args.dst_size = sizeof(small);
  absl::Status status = SEAM_CALL(suite, PJRT_Buffer_ToHostBuffer, &args);
  if (status.ok() && args.event != nullptr) AwaitAndDestroy(suite, args.event).IgnoreError();
  return ExpectError(status, absl::StatusCode::kInvalidArgument, "copying 16 bytes into 8");
}

absl::Status OnDeviceSize(Suite& suite) {
  float values[15] = {};
  absl::StatusOr<PJRT_Buffer*> uploaded = Upload(suite, values, PJRT_Buffer_Type_F32, {3, 5});
  if (!uploaded.ok()) return uploaded.status();
  Buffer buffer(suite, *uploaded);
  auto args = SEAM_PJRT_ARGS(PJRT_Buffer_OnDeviceSizeInBytes_Args);
  args.buffer = buffer.get();
  absl::Status status = SEAM_CALL(suite, PJRT_Buffer_OnDeviceSizeInBytes, &args);
  if (!status.ok()) return status;
  return Expect(args.on_device_size_in_bytes >= sizeof(values),
                absl::StrCat("f32[3,5] reports ", args.on_device_size_in_bytes, " bytes"));
}

absl::Status DeletedState(Suite& suite) {
  float values[2] = {1, 2};
  absl::StatusOr<PJRT_Buffer*> uploaded = Upload(suite, values, PJRT_Buffer_Type_F32, {2});
  if (!uploaded.ok()) return uploaded.status();
  Buffer buffer(suite, *uploaded);
  auto deleted = SEAM_PJRT_ARGS(PJRT_Buffer_IsDeleted_Args);
  deleted.buffer = buffer.get();
  absl::Status status = SEAM_CALL(suite, PJRT_Buffer_IsDeleted, &deleted);
  if (!status.ok()) return status;
  if (deleted.is_deleted) return absl::InternalError("a new buffer reports deleted");
  auto del = SEAM_PJRT_ARGS(PJRT_Buffer_Delete_Args);
  del.buffer = buffer.get();
  status = SEAM_CALL(suite, PJRT_Buffer_Delete, &del);
  if (!status.ok()) return status;
  status = SEAM_CALL(suite, PJRT_Buffer_IsDeleted, &deleted);
  if (!status.ok()) return status;
  if (!deleted.is_deleted) return absl::InternalError("a deleted buffer reports not deleted");
  float back[2];
  auto read = SEAM_PJRT_ARGS(PJRT_Buffer_ToHostBuffer_Args);
  read.src = buffer.get();
  read.dst = back;
  read.dst_size = sizeof(back);
  status = SEAM_CALL(suite, PJRT_Buffer_ToHostBuffer, &read);
  if (status.ok()) status = AwaitAndDestroy(suite, read.event);
  return ExpectSomeError(status, "reading a deleted buffer");
}

absl::Status DeviceAndMemory(Suite& suite) {
  float value = 1;
  absl::StatusOr<PJRT_Buffer*> uploaded = Upload(suite, &value, PJRT_Buffer_Type_F32, {});
  if (!uploaded.ok()) return uploaded.status();
  Buffer buffer(suite, *uploaded);
  auto device = SEAM_PJRT_ARGS(PJRT_Buffer_Device_Args);
  device.buffer = buffer.get();
  if (absl::Status s = SEAM_CALL(suite, PJRT_Buffer_Device, &device); !s.ok()) return s;
  if (device.device != suite.devices().front()) {
    return absl::InternalError("PJRT_Buffer_Device names another device than it was put on");
  }
  absl::StatusOr<PJRT_Memory*> memory = DefaultMemory(suite);
  if (!memory.ok()) return memory.status();
  auto args = SEAM_PJRT_ARGS(PJRT_Buffer_Memory_Args);
  args.buffer = buffer.get();
  if (absl::Status s = SEAM_CALL(suite, PJRT_Buffer_Memory, &args); !s.ok()) return s;
  return Expect(args.memory == *memory, "PJRT_Buffer_Memory is not the device's default memory");
}

absl::Status DoneWithHostBuffer(Suite& suite) {
  bool had_event = false;
  absl::Status status = UploadWith(
      suite,
      [&](PJRT_Client_BufferFromHostBuffer_Args& args) {
        args.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes;
      },
      &had_event);
  if (!status.ok()) return status;
  return Expect(had_event, "no done_with_host_buffer event came back");
}

absl::Status OnReadyAndError(Suite& suite) {
  float value = 1;
  absl::StatusOr<PJRT_Buffer*> uploaded = Upload(suite, &value, PJRT_Buffer_Type_F32, {});
  if (!uploaded.ok()) return uploaded.status();
  Buffer buffer(suite, *uploaded);
  auto ready = SEAM_PJRT_ARGS(PJRT_Buffer_ReadyEvent_Args);
  ready.buffer = buffer.get();
  absl::Status status = SEAM_CALL(suite, PJRT_Buffer_ReadyEvent, &ready);
  if (!status.ok()) return status;
  std::pair<const PJRT_Api*, int> calls{suite.api(), 0};
  auto on_ready = SEAM_PJRT_ARGS(PJRT_Event_OnReady_Args);
  on_ready.event = ready.event;
  on_ready.callback = CountCall;
  on_ready.user_arg = &calls;
  status = SEAM_CALL(suite, PJRT_Event_OnReady, &on_ready);
  absl::Status awaited = AwaitAndDestroy(suite, ready.event);
  if (!status.ok()) return status;
  if (!awaited.ok()) return awaited;
  if (calls.second != 1) {
    return absl::InternalError(absl::StrCat("callback ran ", calls.second, " times"));
  }
  auto again = SEAM_PJRT_ARGS(PJRT_Buffer_ReadyEvent_Args);
  again.buffer = buffer.get();
  if (absl::Status s = SEAM_CALL(suite, PJRT_Buffer_ReadyEvent, &again); !s.ok()) return s;
  auto error = SEAM_PJRT_ARGS(PJRT_Event_Error_Args);
  error.event = again.event;
  auto await = SEAM_PJRT_ARGS(PJRT_Event_Await_Args);
  await.event = again.event;
  absl::Status awaited_again = SEAM_CALL(suite, PJRT_Event_Await, &await);
  absl::Status event_error = SEAM_CALL(suite, PJRT_Event_Error, &error);
  auto destroy = SEAM_PJRT_ARGS(PJRT_Event_Destroy_Args);
  destroy.event = again.event;
  SEAM_CALL(suite, PJRT_Event_Destroy, &destroy).IgnoreError();
  if (!awaited_again.ok()) return awaited_again;
  return event_error;
}

absl::Status CreatedEvent(Suite& suite) {
  auto create = SEAM_PJRT_ARGS(PJRT_Event_Create_Args);
  if (absl::Status s = SEAM_CALL(suite, PJRT_Event_Create, &create); !s.ok()) {
    return s;
  }
  static const char kMessage[] = "set by the conformance suite";
  auto set = SEAM_PJRT_ARGS(PJRT_Event_Set_Args);
  set.event = create.event;
  set.error_code = PJRT_Error_Code_ABORTED;
  set.error_message = kMessage;
  set.error_message_size = sizeof(kMessage) - 1;
  absl::Status status = SEAM_CALL(suite, PJRT_Event_Set, &set);
  absl::Status awaited = status.ok() ? AwaitAndDestroy(suite, create.event) : absl::OkStatus();
  if (!status.ok()) {
    auto destroy = SEAM_PJRT_ARGS(PJRT_Event_Destroy_Args);
    destroy.event = create.event;
    SEAM_CALL(suite, PJRT_Event_Destroy, &destroy).IgnoreError();
    return status;
  }
  return Expect(awaited.code() == absl::StatusCode::kAborted &&
                    absl::StrContains(awaited.message(), kMessage),
                absl::StrCat("awaiting it gave ", awaited.ToString()));
}

}  // namespace

void CheckBuffersAndEvents(Suite& suite) {
  suite.Optional("buffers", "round trip F32: scalar, 0-sized, [3,5]",
                 [&] { return RoundTrips(suite, *Info(PJRT_Buffer_Type_F32)); });
  suite.Optional("buffers", "ToHostBuffer with dst = NULL answers the size and no event",
                 [&] { return SizeQuery(suite); });
  suite.Optional("buffers", "a too small destination is refused",
                 [&] { return TooSmallDestinationIsRefused(suite); });
  suite.Optional("buffers", "on-device size", [&] { return OnDeviceSize(suite); });
  suite.Optional("buffers", "deleted state", [&] { return DeletedState(suite); });
  suite.Optional("buffers", "a buffer's device and memory", [&] { return DeviceAndMemory(suite); });
  suite.Optional("buffers", "from the host into a memory (device NULL)", [&]() -> absl::Status {
    absl::StatusOr<PJRT_Memory*> memory = DefaultMemory(suite);
    if (!memory.ok()) return memory.status();
    return UploadWith(suite, [&](PJRT_Client_BufferFromHostBuffer_Args& args) {
      args.device = nullptr;
      args.memory = *memory;
    });
  });
  suite.Optional("buffers", "ImmutableUntilTransferCompletes: done_with_host_buffer becomes ready",
                 [&] { return DoneWithHostBuffer(suite); });
  suite.Optional("events", "OnReady runs the callback exactly once; Error of a ready event is null",
                 [&] { return OnReadyAndError(suite); });
  suite.Optional("events", "an event made by PJRT_Event_Create carries what Set gives it",
                 [&] { return CreatedEvent(suite); });
}

void CheckSeamBuffers(Suite& suite) {
  const NamedValue* listed = suite.Attribute("supported_element_types");
  if (listed != nullptr && listed->type == PJRT_NamedValue_kInt64List) {
    for (int64_t type : listed->int64_list) {
      const TypeInfo* info = Info(type);
      std::string name =
          absl::StrCat("round trip ", info == nullptr ? std::to_string(type) : info->name,
                       " (supported_element_types): scalar, 0-sized, [3,5]");
      suite.Optional("buffers", name, [&, info]() -> absl::Status {
        if (info == nullptr) {
          return absl::InternalError("the plugin lists an element type the suite does not know");
        }
        return RoundTrips(suite, *info);
      });
    }
  }
  suite.Optional(
      "buffers",
      "byte_strides: dense row-major accepted; others honoured or UNIMPLEMENTED naming them",
      [&]() -> absl::Status {
        static const int64_t kDense[] = {4};
        absl::Status status = UploadWith(suite, [&](PJRT_Client_BufferFromHostBuffer_Args& args) {
          args.byte_strides = kDense;
          args.num_byte_strides = 1;
        });
        if (!status.ok()) return status;
        // Every other float of values[8]: f32[4] with a stride of 8 bytes.
        static const int64_t kGappy[] = {8};
        const float values[8] = {1, -1, 2, -1, 3, -1, 4, -1};
        static const int64_t kDims[] = {4};
        auto args = SEAM_PJRT_ARGS(PJRT_Client_BufferFromHostBuffer_Args);
        args.client = suite.client();
        args.data = values;
        args.type = PJRT_Buffer_Type_F32;
        args.dims = kDims;
        args.num_dims = 1;
        args.byte_strides = kGappy;
        args.num_byte_strides = 1;
        args.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
        args.device = suite.devices().front();
        status = SEAM_CALL(suite, PJRT_Client_BufferFromHostBuffer, &args);
        if (status.ok()) {
          Buffer buffer(suite, args.buffer);
          if (args.done_with_host_buffer != nullptr) {
            AwaitAndDestroy(suite, args.done_with_host_buffer).IgnoreError();
          }
          std::vector<uint8_t> back;
          if (absl::Status s = Download(suite, buffer.get(), back); !s.ok()) return s;
          const float expected[4] = {1, 2, 3, 4};
          float got[4] = {};
          if (back.size() == sizeof(got)) std::memcpy(got, back.data(), sizeof(got));
          return Expect(back.size() == sizeof(expected) && std::equal(got, got + 4, expected),
                        "byte_strides {8} of f32[4] were accepted but not honoured");
        }
        return Expect(status.code() == absl::StatusCode::kUnimplemented &&
                          absl::StrContains(status.message(), "byte_strides"),
                      absl::StrCat("byte_strides {8} of f32[4]: expected them honoured or "
                                   "UNIMPLEMENTED naming byte_strides, got ",
                                   status.ToString()));
      });
  suite.Optional("buffers", "a dense tiled device_layout is accepted", [&] {
    DenseLayout layout(1);
    return UploadWith(suite, [&](PJRT_Client_BufferFromHostBuffer_Args& args) {
      args.device_layout = &layout.layout;
    });
  });
}

void CheckCompile(Suite& suite) {
  suite.Optional("compile", "an unknown program format is refused", [&]() -> absl::Status {
    absl::StatusOr<PJRT_LoadedExecutable*> executable =
        Compile(suite, ProbeProgram{"conformance-format", "nothing to read"});
    if (executable.ok()) {
      DestroyExecutable(suite, *executable);
      return absl::InternalError("format 'conformance-format' was accepted");
    }
    if (executable.status().code() == absl::StatusCode::kUnimplemented) {
      return executable.status();
    }
    return Expect(
        executable.status().code() == absl::StatusCode::kInvalidArgument &&
            executable.status().message() == "Unknown program format 'conformance-format'.",
        absl::StrCat(
            "expected INVALID_ARGUMENT 'Unknown program format 'conformance-format'.', got ",
            executable.status().ToString()));
  });
}

void CheckSeamCompile(Suite& suite) {
  suite.Optional(
      "compile", "a malformed seam IR program is INVALID_ARGUMENT", [&]() -> absl::Status {
        if (absl::Status s = suite.NeedSeamIr(); !s.ok()) return s;
        absl::StatusOr<PJRT_LoadedExecutable*> executable = Compile(
            suite, ProbeProgram{"seam-ir", "program @broken {\n  %0 = add(%1, %2) : f32[4]\n"});
        if (executable.ok()) DestroyExecutable(suite, *executable);
        return ExpectError(executable.status(), absl::StatusCode::kInvalidArgument,
                           "compiling a truncated program");
      });
  suite.Optional("compile", "compile options that are not a CompileOptionsProto are refused",
                 [&]() -> absl::Status {
                   if (absl::Status s = suite.NeedSeamIr(); !s.ok()) return s;
                   if (absl::Status s = suite.NeedClient(); !s.ok()) return s;
                   absl::StatusOr<ProbeProgram> program = suite.DoubleProgram(false);
                   if (!program.ok()) return program.status();
                   auto pjrt_program = SEAM_PJRT_ARGS(PJRT_Program);
                   pjrt_program.code = program->code.data();
                   pjrt_program.code_size = program->code.size();
                   pjrt_program.format = program->format.data();
                   pjrt_program.format_size = program->format.size();
                   static const char kGarbage[] = "\xff\xff\xff\xff not a proto";
                   auto args = SEAM_PJRT_ARGS(PJRT_Client_Compile_Args);
                   args.client = suite.client();
                   args.program = &pjrt_program;
                   args.compile_options = kGarbage;
                   args.compile_options_size = sizeof(kGarbage) - 1;
                   absl::Status status = SEAM_CALL(suite, PJRT_Client_Compile, &args);
                   if (status.ok()) {
                     DestroyExecutable(suite, args.executable);
                     return absl::InternalError("garbage compile options were accepted");
                   }
                   if (status.code() == absl::StatusCode::kUnimplemented) return status;
                   return Expect(status.code() == absl::StatusCode::kInvalidArgument &&
                                     absl::StrContains(status.message(),
                                                       "failed to deserialize CompileOptionsProto"),
                                 absl::StrCat("expected INVALID_ARGUMENT 'failed to deserialize "
                                              "CompileOptionsProto', got ",
                                              status.ToString()));
                 });
  suite.Optional(
      "compile", "num_replicas other than the program's is refused naming both",
      [&]() -> absl::Status {
        if (absl::Status s = suite.NeedSeamIr(); !s.ok()) return s;
        absl::StatusOr<ProbeProgram> program = suite.DoubleProgram(false);
        if (!program.ok()) return program.status();
        absl::StatusOr<PJRT_LoadedExecutable*> executable = Compile(suite, *program, 3);
        if (executable.ok()) {
          DestroyExecutable(suite, *executable);
          return absl::InternalError("a program of 1 replica compiled with num_replicas 3");
        }
        if (executable.status().code() == absl::StatusCode::kUnimplemented) {
          return executable.status();
        }
        const std::string message(executable.status().message());
        return Expect(executable.status().code() == absl::StatusCode::kInvalidArgument &&
                          absl::StrContains(message, "3") && absl::StrContains(message, "1") &&
                          absl::StrContains(message, "num_replicas"),
                      absl::StrCat("expected INVALID_ARGUMENT naming num_replicas 3 and "
                                   "the program's 1, got ",
                                   executable.status().ToString()));
      });
}

}  // namespace seam::conformance
