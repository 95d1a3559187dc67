// Every function of the plugin ABI (include/seam/c/pjrt_c_api.h, upstream's PJRT C API
// 0.94), as X-macro lists in PJRT_Api's order, and per Args struct the function's name and
// the struct's size. The kit builds its entry points (entry.h) and its UNIMPLEMENTED stubs
// (table.h) from these lists.
#ifndef SEAM_PLUGINS_COMMON_ABI_FUNCTIONS_H_
#define SEAM_PLUGINS_COMMON_ABI_FUNCTIONS_H_

#include <cstddef>

#include "seam/c/pjrt_c_api.h"
#include "seam/c/pjrt_c_api_profiler.h"
#include "src/abi/pjrt_slots.h"

// The table's functions, in slot order (src/abi/pjrt_slots.h): the two that return
// nothing, then every one that returns PJRT_Error*.
#define SEAM_PLUGIN_VOID_FUNCTIONS(X) SEAM_PJRT_VOID_SLOTS(X)
#define SEAM_PLUGIN_FUNCTIONS(X) SEAM_PJRT_ERROR_SLOTS(X)

// The functions of seam's profiler extension (SEAM_Profiler_*): not slots of the table,
// but entered the same way (entry.h).
#define SEAM_PLUGIN_EXTENSION_FUNCTIONS(X) \
  X(SEAM_Profiler_Start)                   \
  X(SEAM_Profiler_Stop)                    \
  X(SEAM_Profiler_Collect)

namespace seam::plugin {

// AbiFunction<PJRT_Client_Create_Args>::kName is "PJRT_Client_Create", kArgsName
// "PJRT_Client_Create_Args", kArgsSize PJRT_Client_Create_Args_STRUCT_SIZE.
template <typename Args>
struct AbiFunction;

#define SEAM_PLUGIN_ABI_FUNCTION_TRAITS(Name)                    \
  template <>                                                    \
  struct AbiFunction<Name##_Args> {                              \
    static constexpr const char* kName = #Name;                  \
    static constexpr const char* kArgsName = #Name "_Args";      \
    static constexpr size_t kArgsSize = Name##_Args_STRUCT_SIZE; \
  };
SEAM_PLUGIN_VOID_FUNCTIONS(SEAM_PLUGIN_ABI_FUNCTION_TRAITS)
SEAM_PLUGIN_FUNCTIONS(SEAM_PLUGIN_ABI_FUNCTION_TRAITS)
SEAM_PLUGIN_EXTENSION_FUNCTIONS(SEAM_PLUGIN_ABI_FUNCTION_TRAITS)
#undef SEAM_PLUGIN_ABI_FUNCTION_TRAITS

// The least struct_size the kit's entry accepts for an Args struct: its whole size at
// 0.94, except where the plugin reads the later fields only when struct_size covers them.
template <typename Args>
inline constexpr size_t kMinArgsSize = AbiFunction<Args>::kArgsSize;
// PJRT_Client_Create_Args: kv_try_get_callback and kv_try_get_user_arg came later
// (decision 7 of the migration: they exist only when struct_size covers them).
template <>
inline constexpr size_t kMinArgsSize<PJRT_Client_Create_Args> =
    PJRT_STRUCT_SIZE(PJRT_Client_Create_Args, client);

// The Args type of a table function's pointer type.
template <typename Fn>
struct ArgsOfFunction;
template <typename Args>
struct ArgsOfFunction<PJRT_Error* (*)(Args*)> {
  using type = Args;
};
template <auto Impl>
using ArgsOf = typename ArgsOfFunction<decltype(Impl)>::type;

}  // namespace seam::plugin

#endif  // SEAM_PLUGINS_COMMON_ABI_FUNCTIONS_H_
