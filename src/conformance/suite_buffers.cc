// Buffers, events, compile and execute.
#include <algorithm>
#include <cstring>
#include <variant>

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
                               {PJRT_Buffer_Type_BF16, "BF16", 2}};

const TypeInfo* Info(int64_t type) {
  for (const TypeInfo& info : kTypes) {
    if (info.type == type) return &info;
  }
  return nullptr;
}

// The element types the plugin lists in its "supported_element_types" attribute (F32
// when it lists none).
std::vector<int64_t> SupportedTypes(const PJRT_Api* api) {
  absl::StatusOr<runtime::PluginOptions> attributes = runtime::GetPluginAttributes(api);
  if (attributes.ok()) {
    auto it = attributes->find("supported_element_types");
    if (it != attributes->end()) {
      if (const auto* list = std::get_if<std::vector<int64_t>>(&it->second)) return *list;
    }
  }
  return {PJRT_Buffer_Type_F32};
}

std::vector<uint8_t> Pattern(const TypeInfo& info, size_t count) {
  std::vector<uint8_t> bytes(count * info.size);
  for (size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = info.type == PJRT_Buffer_Type_PRED ? static_cast<uint8_t>(i % 2)
                                                  : static_cast<uint8_t>(i * 37 + 11);
  }
  return bytes;
}

class Buffer {
 public:
  Buffer(Suite& suite, PJRT_Buffer* buffer) : suite_(suite), buffer_(buffer) {}
  ~Buffer() {
    if (buffer_ == nullptr) return;
    auto args = SEAM_PJRT_ARGS(PJRT_Buffer_Destroy_Args);
    args.buffer = buffer_;
    SEAM_CALL(suite_, PJRT_Buffer_Destroy, &args).IgnoreError();
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  PJRT_Buffer* get() const { return buffer_; }

 private:
  Suite& suite_;
  PJRT_Buffer* buffer_;
};

absl::Status AwaitAndDestroy(Suite& suite, PJRT_Event* event) {
  auto await = SEAM_PJRT_ARGS(PJRT_Event_Await_Args);
  await.event = event;
  absl::Status status = SEAM_CALL(suite, PJRT_Event_Await, &await);
  auto destroy = SEAM_PJRT_ARGS(PJRT_Event_Destroy_Args);
  destroy.event = event;
  absl::Status destroyed = SEAM_CALL(suite, PJRT_Event_Destroy, &destroy);
  return status.ok() ? destroyed : status;
}

absl::Status Download(Suite& suite, PJRT_Buffer* buffer, std::vector<uint8_t>& out) {
  auto args = SEAM_PJRT_ARGS(PJRT_Buffer_ToHostBuffer_Args);
  args.src = buffer;
  absl::Status status = SEAM_CALL(suite, PJRT_Buffer_ToHostBuffer, &args);  // size query
  if (!status.ok()) return status;
  out.assign(args.dst_size, 0xAB);
  uint8_t unused;  // a 0-byte copy still needs a non-null destination (null asks the size)
  args.dst = out.empty() ? &unused : out.data();
  status = SEAM_CALL(suite, PJRT_Buffer_ToHostBuffer, &args);
  if (!status.ok()) return status;
  return AwaitAndDestroy(suite, args.event);
}

absl::Status RoundTrip(Suite& suite, const TypeInfo& info, const std::vector<int64_t>& dims) {
  size_t count = 1;
  for (int64_t d : dims) count *= static_cast<size_t>(d);
  std::vector<uint8_t> data = Pattern(info, count);
  absl::StatusOr<PJRT_Buffer*> uploaded = Upload(suite, data.data(), info.type, dims);
  if (!uploaded.ok()) return uploaded.status();
  Buffer buffer(suite, *uploaded);
  std::string shape = absl::StrCat(info.name, "[", absl::StrJoin(dims, ","), "]");

  auto dims_args = SEAM_PJRT_ARGS(PJRT_Buffer_Dimensions_Args);
  dims_args.buffer = buffer.get();
  absl::Status status = SEAM_CALL(suite, PJRT_Buffer_Dimensions, &dims_args);
  if (!status.ok()) return status;
  if (std::vector<int64_t>(dims_args.dims, dims_args.dims + dims_args.num_dims) != dims) {
    return absl::InternalError(absl::StrCat(shape, ": the buffer reports other dimensions"));
  }
  auto type_args = SEAM_PJRT_ARGS(PJRT_Buffer_ElementType_Args);
  type_args.buffer = buffer.get();
  status = SEAM_CALL(suite, PJRT_Buffer_ElementType, &type_args);
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

void CountCall(PJRT_Error* error, void* user_arg) {
  auto* calls = static_cast<std::pair<const PJRT_Api*, int>*>(user_arg);
  ++calls->second;
  if (error != nullptr) {
    auto destroy = SEAM_PJRT_ARGS(PJRT_Error_Destroy_Args);
    destroy.error = error;
    calls->first->PJRT_Error_Destroy(&destroy);
  }
}

absl::StatusOr<PJRT_LoadedExecutable*> Compile(Suite& suite, const std::string& code,
                                               const std::string& format,
                                               const PJRT_NamedValue* options = nullptr,
                                               size_t num_options = 0) {
  auto program = SEAM_PJRT_ARGS(PJRT_Program);
  program.code = code.data();
  program.code_size = code.size();
  program.format = format.data();
  program.format_size = format.size();
  auto args = SEAM_PJRT_ARGS(PJRT_Client_Compile_Args);
  args.client = suite.client();
  args.program = &program;
  args.compile_options = options;
  args.num_compile_options = num_options;
  absl::Status status = SEAM_CALL(suite, PJRT_Client_Compile, &args);
  if (!status.ok()) return status;
  return args.executable;
}

void DestroyExecutable(Suite& suite, PJRT_LoadedExecutable* executable) {
  auto args = SEAM_PJRT_ARGS(PJRT_LoadedExecutable_Destroy_Args);
  args.executable = executable;
  SEAM_CALL(suite, PJRT_LoadedExecutable_Destroy, &args).IgnoreError();
}

constexpr char kDoubleProgram[] =
    "program @conformance {\n  %0 = parameter(0) : f32[4]\n  %1 = add(%0, %0) : f32[4]\n"
    "  return (%1)\n}\n";

}  // namespace

absl::StatusOr<PJRT_Buffer*> Upload(Suite& suite, const void* data, PJRT_Buffer_Type type,
                                    const std::vector<int64_t>& dims) {
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
  return args.buffer;
}

void CheckBuffersAndEvents(Suite& suite) {
  for (int64_t type : SupportedTypes(suite.api())) {
    const TypeInfo* info = Info(type);
    std::string name =
        absl::StrCat("round trip ", info == nullptr ? std::to_string(type) : info->name,
                     ": scalar, 0-sized, [3,5]");
    suite.Check("buffers", name, [&]() -> absl::Status {
      if (info == nullptr) return absl::InternalError("the plugin lists an unknown element type");
      if (suite.client() == nullptr) return suite.client_status();
      for (const std::vector<int64_t>& dims : {std::vector<int64_t>{}, {0}, {2, 0, 3}, {3, 5}}) {
        absl::Status status = RoundTrip(suite, *info, dims);
        if (!status.ok()) return status;
      }
      return absl::OkStatus();
    });
  }
  suite.Check("buffers", "a too small destination is refused", [&]() -> absl::Status {
    if (suite.client() == nullptr) return suite.client_status();
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
  });
  suite.Check("buffers", "on-device size", [&]() -> absl::Status {
    if (suite.client() == nullptr) return suite.client_status();
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
  });
  suite.Check("buffers", "deleted state", [&]() -> absl::Status {
    if (suite.client() == nullptr) return suite.client_status();
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
    std::vector<uint8_t> back;
    return ExpectError(Download(suite, buffer.get(), back), absl::StatusCode::kFailedPrecondition,
                       "reading a deleted buffer");
  });
  suite.Check(
      "events", "OnReady runs the callback exactly once; Error of a ready event is null",
      [&]() -> absl::Status {
        if (suite.client() == nullptr) return suite.client_status();
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
        auto error = SEAM_PJRT_ARGS(PJRT_Event_Error_Args);
        error.event = ready.event;
        absl::Status event_error = SEAM_CALL(suite, PJRT_Event_Error, &error);
        absl::Status awaited = AwaitAndDestroy(suite, ready.event);
        if (!status.ok()) return status;
        if (!awaited.ok()) return awaited;
        if (!event_error.ok()) return event_error;
        // The buffer was ready, so the callback ran inside OnReady or before Await returned.
        return Expect(calls.second == 1, absl::StrCat("callback ran ", calls.second, " times"));
      });
}

void CheckCompile(Suite& suite) {
  suite.Check("compile", "an unknown program format", [&]() -> absl::Status {
    if (suite.client() == nullptr) return suite.client_status();
    absl::StatusOr<PJRT_LoadedExecutable*> executable =
        Compile(suite, kDoubleProgram, "conformance-format");
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
        absl::StrCat("got ", executable.status().ToString()));
  });
  suite.Check("compile", "an unknown compile option is refused by name", [&]() -> absl::Status {
    if (suite.client() == nullptr) return suite.client_status();
    static const char kName[] = "no_such_compile_option";
    PJRT_NamedValue option{};
    option.struct_size = PJRT_NamedValue_STRUCT_SIZE;
    option.name = kName;
    option.name_size = sizeof(kName) - 1;
    option.type = PJRT_NamedValue_kBool;
    option.value.bool_value = true;
    option.value_size = 1;
    absl::StatusOr<PJRT_LoadedExecutable*> executable =
        Compile(suite, kDoubleProgram, "seam-ir", &option, 1);
    if (executable.ok()) {
      DestroyExecutable(suite, *executable);
      return absl::InternalError("the option was accepted");
    }
    if (executable.status().code() == absl::StatusCode::kUnimplemented) {
      return executable.status();
    }
    return Expect(executable.status().code() == absl::StatusCode::kInvalidArgument &&
                      std::string(executable.status().message()).find(kName) != std::string::npos,
                  absl::StrCat("got ", executable.status().ToString()));
  });
  suite.Check("compile", "a malformed program is INVALID_ARGUMENT", [&]() -> absl::Status {
    if (suite.client() == nullptr) return suite.client_status();
    absl::StatusOr<PJRT_LoadedExecutable*> executable =
        Compile(suite, "program @broken {\n  %0 = add(%1, %2) : f32[4]\n", "seam-ir");
    if (executable.ok()) DestroyExecutable(suite, *executable);
    return ExpectError(executable.status(), absl::StatusCode::kInvalidArgument,
                       "compiling a truncated program");
  });
}

namespace {

// Runs kDoubleProgram's executable once on the first device with the input
// {1, -2, 3.5, 0} and returns the result's bytes.
absl::StatusOr<std::vector<uint8_t>> RunOnce(Suite& suite, PJRT_LoadedExecutable* executable) {
  float input[4] = {1, -2, 3.5f, 0};
  absl::StatusOr<PJRT_Buffer*> uploaded = Upload(suite, input, PJRT_Buffer_Type_F32, {4});
  if (!uploaded.ok()) return uploaded.status();
  Buffer argument(suite, *uploaded);
  PJRT_Buffer* arg = argument.get();
  PJRT_Buffer* const* arg_list = &arg;
  PJRT_Buffer* output = nullptr;
  PJRT_Buffer** out_list = &output;
  PJRT_Event* done = nullptr;
  auto execute = SEAM_PJRT_ARGS(PJRT_LoadedExecutable_Execute_Args);
  execute.executable = executable;
  execute.argument_lists = &arg_list;
  execute.num_devices = 1;
  execute.num_args = 1;
  execute.output_lists = &out_list;
  execute.device_complete_events = &done;
  execute.execute_device = suite.devices().front();
  absl::Status status = SEAM_CALL(suite, PJRT_LoadedExecutable_Execute, &execute);
  if (!status.ok()) return status;
  Buffer result(suite, output);
  status = AwaitAndDestroy(suite, done);
  if (!status.ok()) return status;
  std::vector<uint8_t> back;
  status = Download(suite, result.get(), back);
  if (!status.ok()) return status;
  return back;
}

}  // namespace

void CheckExecute(Suite& suite) {
  suite.Check("execute", "compile, run and read back", [&]() -> absl::Status {
    if (suite.client() == nullptr) return suite.client_status();
    absl::StatusOr<PJRT_LoadedExecutable*> executable = Compile(suite, kDoubleProgram, "seam-ir");
    if (!executable.ok()) return executable.status();
    struct Guard {
      Suite& suite;
      PJRT_LoadedExecutable* e;
      ~Guard() { DestroyExecutable(suite, e); }
    } guard{suite, *executable};
    auto outputs_args = SEAM_PJRT_ARGS(PJRT_LoadedExecutable_NumOutputs_Args);
    outputs_args.executable = *executable;
    absl::Status status = SEAM_CALL(suite, PJRT_LoadedExecutable_NumOutputs, &outputs_args);
    if (!status.ok()) return status;
    if (outputs_args.num_outputs != 1) {
      return absl::InternalError(absl::StrCat("num_outputs is ", outputs_args.num_outputs));
    }
    absl::StatusOr<std::vector<uint8_t>> back = RunOnce(suite, *executable);
    if (!back.ok()) return back.status();
    const float expected[4] = {2, -4, 7, 0};
    float got[4] = {};
    if (back->size() == sizeof(got)) std::memcpy(got, back->data(), sizeof(got));
    return Expect(back->size() == sizeof(expected) && std::equal(got, got + 4, expected),
                  "the result differs from 2 * input");
  });
  suite.Check("execute", "a wrong argument count is refused", [&]() -> absl::Status {
    if (suite.client() == nullptr) return suite.client_status();
    absl::StatusOr<PJRT_LoadedExecutable*> executable = Compile(suite, kDoubleProgram, "seam-ir");
    if (!executable.ok()) return executable.status();
    PJRT_Buffer* output = nullptr;
    PJRT_Buffer** out_list = &output;
    auto execute = SEAM_PJRT_ARGS(PJRT_LoadedExecutable_Execute_Args);
    execute.executable = *executable;
    execute.num_devices = 1;
    execute.num_args = 0;
    execute.output_lists = &out_list;
    absl::Status status = SEAM_CALL(suite, PJRT_LoadedExecutable_Execute, &execute);
    if (status.ok() && output != nullptr) {
      Buffer cleanup(suite, output);
    }
    DestroyExecutable(suite, *executable);
    return ExpectError(status, absl::StatusCode::kInvalidArgument, "running with no arguments");
  });
}

absl::Status CompileRunAndReadBack(Suite& suite) {
  absl::StatusOr<PJRT_LoadedExecutable*> executable = Compile(suite, kDoubleProgram, "seam-ir");
  if (!executable.ok()) return executable.status();
  absl::StatusOr<std::vector<uint8_t>> back = RunOnce(suite, *executable);
  DestroyExecutable(suite, *executable);
  return back.status();
}

}  // namespace seam::conformance
