// The plugin kit (src/plugins/common): the entry points' Args check and exception
// firewall, the table's UNIMPLEMENTED stubs, errors, named-value options, attributes and
// events, called the way a framework calls a plugin's table.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>

#include "absl/strings/str_cat.h"
#include "seam/c/pjrt_c_api.h"
#include "src/plugins/common/entry.h"
#include "src/plugins/common/error.h"
#include "src/plugins/common/event.h"
#include "src/plugins/common/kv_store.h"
#include "src/plugins/common/options.h"
#include "src/plugins/common/table.h"

namespace seam::plugin {
namespace {

using ::testing::HasSubstr;

struct Taken {
  absl::StatusCode code = absl::StatusCode::kOk;
  std::string message;
};

// Reads and frees an error through the table's functions, as a framework does.
Taken Take(PJRT_Error* error) {
  if (error == nullptr) return {};
  PJRT_Error_Message_Args message{};
  message.struct_size = PJRT_Error_Message_Args_STRUCT_SIZE;
  message.error = error;
  ErrorMessage(&message);
  PJRT_Error_GetCode_Args code{};
  code.struct_size = PJRT_Error_GetCode_Args_STRUCT_SIZE;
  code.error = error;
  EXPECT_EQ(Entry<&ErrorGetCode>(&code), nullptr);
  Taken taken{static_cast<absl::StatusCode>(code.code),
              std::string(message.message, message.message_size)};
  PJRT_Error_Destroy_Args destroy{};
  destroy.struct_size = PJRT_Error_Destroy_Args_STRUCT_SIZE;
  destroy.error = error;
  ErrorDestroy(&destroy);
  return taken;
}

template <typename Args>
Args Make() {
  Args args{};
  args.struct_size = AbiFunction<Args>::kArgsSize;
  return args;
}

std::string Framework() { return absl::StrCat(PJRT_API_MAJOR, ".", PJRT_API_MINOR); }

constexpr char kKit[] = "kit";

int g_calls = 0;
PJRT_Error* CountedPlatformName(PJRT_Client_PlatformName_Args* args) {
  ++g_calls;
  args->platform_name = "kit";
  args->platform_name_size = 3;
  return nullptr;
}
PJRT_Error* ThrowsBadAlloc(PJRT_Client_Create_Args*) { throw std::bad_alloc(); }
PJRT_Error* ThrowsRuntimeError(PJRT_Client_Compile_Args*) {
  throw std::runtime_error("the compiler fell over");
}
PJRT_Error* ThrowsInt(PJRT_Buffer_Destroy_Args*) { throw 42; }

TEST(PluginKitTest, EntryRefusesANullOrTooSmallArgsStructBeforeCallingTheFunction) {
  g_calls = 0;
  Taken null = Take(Entry<&CountedPlatformName>(nullptr));
  EXPECT_EQ(null.code, absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(null.message, "PJRT_Client_PlatformName_Args pointer is null");

  auto args = Make<PJRT_Client_PlatformName_Args>();
  args.struct_size = PJRT_Client_PlatformName_Args_STRUCT_SIZE - 1;
  Taken small = Take(Entry<&CountedPlatformName>(&args));
  EXPECT_EQ(small.code, absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(small.message,
            absl::StrCat("Unexpected PJRT_Client_PlatformName_Args size: expected ",
                         PJRT_Client_PlatformName_Args_STRUCT_SIZE, ", got ",
                         PJRT_Client_PlatformName_Args_STRUCT_SIZE - 1,
                         ". Check installed software versions. The framework PJRT API version "
                         "is ",
                         Framework(), "."));
  EXPECT_EQ(g_calls, 0);

  struct Bigger {  // a newer caller's struct, with a field this header does not know
    PJRT_Client_PlatformName_Args args;
    int64_t later;
  } bigger{};
  bigger.args.struct_size = sizeof(Bigger);
  EXPECT_EQ(Take(Entry<&CountedPlatformName>(&bigger.args)).code, absl::StatusCode::kOk);
  EXPECT_EQ(g_calls, 1);
  EXPECT_EQ(std::string(bigger.args.platform_name, bigger.args.platform_name_size), "kit");
}

TEST(PluginKitTest, BadAllocBecomesResourceExhaustedNamingTheFunction) {
  auto args = Make<PJRT_Client_Create_Args>();
  Taken taken = Take(Entry<&ThrowsBadAlloc>(&args));
  EXPECT_EQ(taken.code, absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(taken.message, "PJRT_Client_Create: out of host memory (std::bad_alloc)");
}

TEST(PluginKitTest, AnyOtherExceptionBecomesInternalNamingTheFunction) {
  auto compile = Make<PJRT_Client_Compile_Args>();
  Taken runtime_error = Take(Entry<&ThrowsRuntimeError>(&compile));
  EXPECT_EQ(runtime_error.code, absl::StatusCode::kInternal);
  EXPECT_EQ(runtime_error.message,
            "PJRT_Client_Compile: internal error: uncaught C++ exception: the compiler fell "
            "over");
  auto destroy = Make<PJRT_Buffer_Destroy_Args>();
  Taken unknown = Take(Entry<&ThrowsInt>(&destroy));
  EXPECT_EQ(unknown.code, absl::StatusCode::kInternal);
  EXPECT_EQ(unknown.message,
            "PJRT_Buffer_Destroy: internal error: uncaught C++ exception of unknown type");
}

// A test plugin that must misbehave opts out of the Args check, not of the firewall.
TEST(PluginKitTest, UncheckedEntrySkipsTheArgsCheckButKeepsTheFirewall) {
  g_calls = 0;
  PJRT_Client_PlatformName_Args small{};  // struct_size 0: Entry would refuse it
  EXPECT_EQ(Take(UncheckedEntry<&CountedPlatformName>(&small)).code, absl::StatusCode::kOk);
  EXPECT_EQ(g_calls, 1);
  PJRT_Client_Create_Args create{};
  EXPECT_EQ(Take(UncheckedEntry<&ThrowsBadAlloc>(&create)).code,
            absl::StatusCode::kResourceExhausted);
}

// NewApi: all 129 slots of upstream's PJRT_Api, none null; every slot but the error
// functions checks its Args and answers UNIMPLEMENTED naming its function and the plugin.
TEST(PluginKitTest, NewApiFillsEverySlotWithACheckedUnimplementedStub) {
  PJRT_Api api = NewApi<kKit>();
  EXPECT_EQ((PJRT_Api_STRUCT_SIZE - offsetof(PJRT_Api, PJRT_Error_Destroy)) / sizeof(void*),
            kApiSlots);
  EXPECT_EQ(kApiSlots, 129u);
  EXPECT_EQ(api.struct_size, PJRT_Api_STRUCT_SIZE);
  EXPECT_EQ(api.pjrt_api_version.major_version, PJRT_API_MAJOR);
  EXPECT_EQ(api.pjrt_api_version.minor_version, PJRT_API_MINOR);
  for (size_t offset = offsetof(PJRT_Api, PJRT_Error_Destroy); offset < PJRT_Api_STRUCT_SIZE;
       offset += sizeof(void*)) {
    void* slot = nullptr;
    std::memcpy(&slot, reinterpret_cast<const char*>(&api) + offset, sizeof(slot));
    EXPECT_NE(slot, nullptr) << "slot at byte " << offset;
  }
  int stubs = 0;
#define SEAM_EXPECT_STUB(Name)                                                             \
  if (std::string(#Name) != "PJRT_Error_GetCode") {                                        \
    ++stubs;                                                                               \
    alignas(16) unsigned char buffer[512] = {};                                            \
    size_t size = Name##_Args_STRUCT_SIZE;                                                 \
    std::memcpy(buffer, &size, sizeof(size));                                              \
    Taken taken = Take(api.Name(reinterpret_cast<Name##_Args*>(buffer)));                  \
    EXPECT_EQ(taken.code, absl::StatusCode::kUnimplemented) << #Name;                      \
    EXPECT_EQ(taken.message, #Name " is not implemented by the kit plugin");               \
    size = kMinArgsSize<Name##_Args> - 1;                                                  \
    std::memcpy(buffer, &size, sizeof(size));                                              \
    Taken small = Take(api.Name(reinterpret_cast<Name##_Args*>(buffer)));                  \
    EXPECT_EQ(small.code, absl::StatusCode::kInvalidArgument) << #Name;                    \
    EXPECT_THAT(small.message, ::testing::StartsWith("Unexpected " #Name "_Args size: ")); \
  }
  SEAM_PLUGIN_FUNCTIONS(SEAM_EXPECT_STUB)
#undef SEAM_EXPECT_STUB
  EXPECT_EQ(stubs, 126);  // 129 slots less PJRT_Error_Destroy, _Message and _GetCode
}

TEST(PluginKitTest, ErrorsAndThePreallocatedOutOfMemoryError) {
  EXPECT_EQ(MakeError(absl::OkStatus()), nullptr);
  Taken taken = Take(MakeError(absl::NotFoundError("no such thing")));
  EXPECT_EQ(taken.code, absl::StatusCode::kNotFound);
  EXPECT_EQ(taken.message, "no such thing");
  // The preallocated error survives being "destroyed" (twice, even).
  PJRT_Error* oom = OutOfMemoryError();
  EXPECT_EQ(Take(oom).code, absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(Take(oom).code, absl::StatusCode::kResourceExhausted);
  // Error functions with a bad Args struct do nothing rather than read it.
  ErrorDestroy(nullptr);
  ErrorMessage(nullptr);
  PJRT_Error_Message_Args small{};
  ErrorMessage(&small);
  EXPECT_EQ(small.message, nullptr);
  EXPECT_EQ(CheckStructSize("PJRT_Program", 40, 40), absl::OkStatus());
}

PJRT_NamedValue Int64Value(const char* name, int64_t value) {
  PJRT_NamedValue v{};
  v.struct_size = PJRT_NamedValue_STRUCT_SIZE;
  v.name = name;
  v.name_size = std::strlen(name);
  v.type = PJRT_NamedValue_kInt64;
  v.int64_value = value;
  v.value_size = 1;
  return v;
}

TEST(PluginKitTest, OptionsAreCheckedByNameTypeAndSize) {
  const int64_t list[] = {3, 4};
  PJRT_NamedValue values[3] = {Int64Value("count", 7), Int64Value("flag", 0),
                               Int64Value("dims", 0)};
  values[1].type = PJRT_NamedValue_kBool;
  values[1].bool_value = true;
  values[2].type = PJRT_NamedValue_kInt64List;
  values[2].int64_array_value = list;
  values[2].value_size = 2;
  auto parse = [&](size_t count, std::initializer_list<OptionSpec> accepted) {
    return Options::Parse("PJRT_Client_Create", "client option", "kit", values, count, accepted);
  };
  absl::StatusOr<Options> all = parse(3, {{"count", PJRT_NamedValue_kInt64},
                                          {"flag", PJRT_NamedValue_kBool},
                                          {"dims", PJRT_NamedValue_kInt64List},
                                          {"unused", PJRT_NamedValue_kString}});
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(all->Int64("count"), 7);
  EXPECT_EQ(all->Bool("flag"), true);
  EXPECT_EQ(all->Int64List("dims"), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(all->String("unused"), std::nullopt);
  EXPECT_EQ(all->Int64("flag"), std::nullopt);  // another type

  EXPECT_EQ(parse(1, {}).status().message(),
            "PJRT_Client_Create: unknown client option 'count' (the kit plugin accepts none)");
  EXPECT_EQ(parse(2, {{"count", PJRT_NamedValue_kInt64}, {"other", PJRT_NamedValue_kFloat}})
                .status()
                .message(),
            "PJRT_Client_Create: unknown client option 'flag' (the kit plugin accepts: count, "
            "other)");
  EXPECT_EQ(parse(1, {{"count", PJRT_NamedValue_kString}}).status().message(),
            "PJRT_Client_Create: option 'count' must be a string value");
  values[1] = Int64Value("count", 8);
  EXPECT_EQ(parse(2, {{"count", PJRT_NamedValue_kInt64}}).status().message(),
            "PJRT_Client_Create: option 'count' is given twice");
  values[0].struct_size = 8;
  absl::Status small = parse(1, {{"count", PJRT_NamedValue_kInt64}}).status();
  EXPECT_EQ(small.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(small.message()),
              ::testing::StartsWith(absl::StrCat("Unexpected PJRT_NamedValue size: expected ",
                                                 PJRT_NamedValue_STRUCT_SIZE, ", got 8.")));
  EXPECT_EQ(Options::Parse("PJRT_Client_Compile", "compile option", "kit", nullptr, 2, {})
                .status()
                .message(),
            "PJRT_Client_Compile: 2 compile option(s) given, but the list is null");
}

TEST(PluginKitTest, AttributesKeepTheirValuesWhileMoreAreAdded) {
  Attributes attributes;
  attributes.String("name", "kit").Int64("answer", 42).Bool("fast", false).Float("ratio", 0.5f);
  for (int i = 0; i < 100; ++i) attributes.Int64List(absl::StrCat("list", i), {i, i + 1});
  ASSERT_EQ(attributes.size(), 104u);
  const PJRT_NamedValue* v = attributes.data();
  EXPECT_EQ(std::string(v[0].name, v[0].name_size), "name");
  EXPECT_EQ(std::string(v[0].string_value, v[0].value_size), "kit");
  EXPECT_EQ(v[1].int64_value, 42);
  EXPECT_EQ(v[2].bool_value, false);
  EXPECT_EQ(v[3].float_value, 0.5f);
  EXPECT_EQ(std::string(v[103].name, v[103].name_size), "list99");
  EXPECT_EQ(v[103].value_size, 2u);
  EXPECT_EQ(v[103].int64_array_value[1], 100);
  for (size_t i = 0; i < attributes.size(); ++i) {
    EXPECT_EQ(v[i].struct_size, PJRT_NamedValue_STRUCT_SIZE);
  }
}

void CountReady(PJRT_Error* error, void* user_arg) {
  Taken taken = Take(error);
  auto* seen = static_cast<std::vector<absl::StatusCode>*>(user_arg);
  seen->push_back(taken.code);
}

TEST(PluginKitTest, EventsThroughTheTableFunctions) {
  PJRT_Api api = NewApi<kKit>();
  SetEventFunctions(api);
  auto state = EventState::Create();
  auto* event = new PJRT_Event{state};

  auto ready = Make<PJRT_Event_IsReady_Args>();
  ready.event = event;
  EXPECT_EQ(Take(api.PJRT_Event_IsReady(&ready)).code, absl::StatusCode::kOk);
  EXPECT_FALSE(ready.is_ready);
  auto error = Make<PJRT_Event_Error_Args>();
  error.event = event;
  EXPECT_EQ(Take(api.PJRT_Event_Error(&error)).code, absl::StatusCode::kFailedPrecondition);

  std::vector<absl::StatusCode> seen;
  auto on_ready = Make<PJRT_Event_OnReady_Args>();
  on_ready.event = event;
  on_ready.callback = CountReady;
  on_ready.user_arg = &seen;
  EXPECT_EQ(Take(api.PJRT_Event_OnReady(&on_ready)).code, absl::StatusCode::kOk);
  EXPECT_TRUE(seen.empty());
  state->Set(absl::AbortedError("stopped"));
  EXPECT_EQ(seen, std::vector<absl::StatusCode>{absl::StatusCode::kAborted});

  auto await = Make<PJRT_Event_Await_Args>();
  await.event = event;
  Taken awaited = Take(api.PJRT_Event_Await(&await));
  EXPECT_EQ(awaited.code, absl::StatusCode::kAborted);
  EXPECT_EQ(awaited.message, "stopped");
  on_ready.callback = nullptr;
  EXPECT_EQ(Take(api.PJRT_Event_OnReady(&on_ready)).message,
            "PJRT_Event_OnReady: args->callback is null");
  auto destroy = Make<PJRT_Event_Destroy_Args>();
  destroy.event = event;
  EXPECT_EQ(Take(api.PJRT_Event_Destroy(&destroy)).code, absl::StatusCode::kOk);
}

// Upstream's PJRT_Event_Create / PJRT_Event_Set: an event the caller completes, once.
TEST(PluginKitTest, EventCreateAndSet) {
  PJRT_Api api = NewApi<kKit>();
  SetEventFunctions(api);
  auto create = Make<PJRT_Event_Create_Args>();
  ASSERT_EQ(Take(api.PJRT_Event_Create(&create)).code, absl::StatusCode::kOk);
  ASSERT_NE(create.event, nullptr);
  auto ready = Make<PJRT_Event_IsReady_Args>();
  ready.event = create.event;
  EXPECT_EQ(Take(api.PJRT_Event_IsReady(&ready)).code, absl::StatusCode::kOk);
  EXPECT_FALSE(ready.is_ready);
  auto set = Make<PJRT_Event_Set_Args>();
  set.event = create.event;
  set.error_code = PJRT_Error_Code_DATA_LOSS;
  set.error_message = "lost it";
  set.error_message_size = 7;
  EXPECT_EQ(Take(api.PJRT_Event_Set(&set)).code, absl::StatusCode::kOk);
  auto await = Make<PJRT_Event_Await_Args>();
  await.event = create.event;
  Taken awaited = Take(api.PJRT_Event_Await(&await));
  EXPECT_EQ(awaited.code, absl::StatusCode::kDataLoss);
  EXPECT_EQ(awaited.message, "lost it");
  set.error_code = PJRT_Error_Code_OK;
  Taken again = Take(api.PJRT_Event_Set(&set));
  EXPECT_EQ(again.code, absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(again.message, "PJRT_Event_Set: the event is already set");
  auto destroy = Make<PJRT_Event_Destroy_Args>();
  destroy.event = create.event;
  EXPECT_EQ(Take(api.PJRT_Event_Destroy(&destroy)).code, absl::StatusCode::kOk);

  auto ok = Make<PJRT_Event_Create_Args>();
  ASSERT_EQ(Take(api.PJRT_Event_Create(&ok)).code, absl::StatusCode::kOk);
  set.event = ok.event;
  set.error_code = PJRT_Error_Code_OK;
  EXPECT_EQ(Take(api.PJRT_Event_Set(&set)).code, absl::StatusCode::kOk);
  await.event = ok.event;
  EXPECT_EQ(Take(api.PJRT_Event_Await(&await)).code, absl::StatusCode::kOk);
  destroy.event = ok.event;
  EXPECT_EQ(Take(api.PJRT_Event_Destroy(&destroy)).code, absl::StatusCode::kOk);
}

// A key-value store of callbacks that each answer with their own user_arg (upstream gives
// get, put and try-get one each).
struct FakeKv {
  std::map<std::string, std::string> values;
  int gets = 0, try_gets = 0, puts = 0;
};
char* CopyOut(const std::string& value) {
  char* out = new char[value.size()];
  std::memcpy(out, value.data(), value.size());
  return out;
}
void DeleteValue(char* value) { delete[] value; }
PJRT_Error* KvGet(PJRT_KeyValueGetCallback_Args* args) {
  auto* kv = static_cast<FakeKv*>(args->user_arg);
  ++kv->gets;
  auto it = kv->values.find(std::string(args->key, args->key_size));
  if (it == kv->values.end()) {
    return (*args->callback_error)(PJRT_Error_Code_DEADLINE_EXCEEDED, "no value in time", 16);
  }
  args->value = CopyOut(it->second);
  args->value_size = it->second.size();
  args->value_deleter_callback = DeleteValue;
  return nullptr;
}
PJRT_Error* KvTryGet(PJRT_KeyValueTryGetCallback_Args* args) {
  auto* kv = static_cast<FakeKv*>(args->user_arg);
  ++kv->try_gets;
  auto it = kv->values.find(std::string(args->key, args->key_size));
  if (it == kv->values.end()) {
    return (*args->callback_error)(PJRT_Error_Code_NOT_FOUND, "not there", 9);
  }
  args->value = CopyOut(it->second);
  args->value_size = it->second.size();
  args->value_deleter_callback = DeleteValue;
  return nullptr;
}
PJRT_Error* KvPut(PJRT_KeyValuePutCallback_Args* args) {
  auto* kv = static_cast<FakeKv*>(args->user_arg);
  ++kv->puts;
  kv->values[std::string(args->key, args->key_size)] = std::string(args->value, args->value_size);
  return nullptr;
}

TEST(PluginKitTest, TheKvStoreIsBuiltOnlyWithAllThreeCallbacksEachWithItsOwnUserArg) {
  FakeKv get_side, put_side, try_side;
  auto args = Make<PJRT_Client_Create_Args>();
  absl::StatusOr<std::optional<KvStore>> none = KvStore::FromCreateArgs(args);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_FALSE(none->has_value());

  args.kv_get_callback = KvGet;
  args.kv_get_user_arg = &get_side;
  args.kv_put_callback = KvPut;
  args.kv_put_user_arg = &put_side;
  absl::StatusOr<std::optional<KvStore>> two = KvStore::FromCreateArgs(args);
  EXPECT_EQ(two.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(two.status().message(),
            "PJRT_Client_Create: 2 of the 3 key-value callbacks are set (kv_get_callback, "
            "kv_put_callback and kv_try_get_callback come together)");

  args.kv_try_get_callback = KvTryGet;
  args.kv_try_get_user_arg = &try_side;
  // A caller whose struct ends before kv_try_get_callback has no try-get, whatever the
  // memory after its struct holds.
  args.struct_size = PJRT_STRUCT_SIZE(PJRT_Client_Create_Args, client);
  absl::StatusOr<std::optional<KvStore>> older = KvStore::FromCreateArgs(args);
  EXPECT_EQ(older.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(older.status().message()),
              HasSubstr("the caller's PJRT_Client_Create_Args has no kv_try_get_callback"));

  args.struct_size = PJRT_Client_Create_Args_STRUCT_SIZE;
  absl::StatusOr<std::optional<KvStore>> all = KvStore::FromCreateArgs(args);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_TRUE(all->has_value());
  const KvStore& kv = **all;
  EXPECT_TRUE(kv.Put("k", "v").ok());
  EXPECT_EQ(put_side.values["k"], "v");
  get_side.values["k"] = "from get";
  try_side.values["k"] = "from try";
  EXPECT_EQ(kv.Get("k", std::chrono::milliseconds(10)).value_or(""), "from get");
  EXPECT_EQ(kv.TryGet("k").value_or(""), "from try");
  absl::StatusOr<std::string> missing = kv.TryGet("nothing");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "not there");
  EXPECT_EQ(kv.Get("nothing", std::chrono::milliseconds(10)).status().code(),
            absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(put_side.puts, 1);
  EXPECT_EQ(get_side.gets, 2);
  EXPECT_EQ(try_side.try_gets, 2);
  EXPECT_EQ(get_side.puts + try_side.puts + put_side.gets + put_side.try_gets, 0);
}

// PJRT_Client_Create_Args grew kv_try_get_* after `client`: the entry takes the shorter
// struct, and refuses one shorter still with upstream's text.
PJRT_Error* CreatedNothing(PJRT_Client_Create_Args* /*args*/) { return nullptr; }
TEST(PluginKitTest, ClientCreateArgsWithoutTryGetAreAccepted) {
  auto args = Make<PJRT_Client_Create_Args>();
  args.struct_size = PJRT_STRUCT_SIZE(PJRT_Client_Create_Args, client);
  EXPECT_EQ(Take(Entry<&CreatedNothing>(&args)).code, absl::StatusCode::kOk);
  args.struct_size = PJRT_STRUCT_SIZE(PJRT_Client_Create_Args, kv_put_user_arg);
  Taken small = Take(Entry<&CreatedNothing>(&args));
  EXPECT_EQ(small.code, absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(small.message,
            absl::StrCat("Unexpected PJRT_Client_Create_Args size: expected ",
                         PJRT_STRUCT_SIZE(PJRT_Client_Create_Args, client), ", got ",
                         PJRT_STRUCT_SIZE(PJRT_Client_Create_Args, kv_put_user_arg),
                         ". Check installed software versions. The framework PJRT API version "
                         "is 0.94."));
}

}  // namespace
}  // namespace seam::plugin
