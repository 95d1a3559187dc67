// A plugin's function table, started by the kit:
//
//   inline constexpr char kMyPlugin[] = "my";
//   const PJRT_Api* GetMyPjrtApi() {
//     static const PJRT_Api api = [] {
//       PJRT_Api a = seam::plugin::NewApi<kMyPlugin>();
//       SEAM_PLUGIN_SET(a, PJRT_Client_Create, ClientCreate);
//       ...
//       return a;
//     }();
//     return &api;
//   }
//
// NewApi<Plugin>() fills the size, this header's version and every one of PJRT_Api's 129
// slots: the three error functions with the kit's, every other one with an entry that
// checks its Args and returns UNIMPLEMENTED "<PJRT_Name> is not implemented by the
// <Plugin> plugin". No slot is ever null.
#ifndef SEAM_PLUGINS_COMMON_TABLE_H_
#define SEAM_PLUGINS_COMMON_TABLE_H_

#include "seam/c/pjrt_c_api.h"
#include "src/plugins/common/abi_functions.h"
#include "src/plugins/common/entry.h"

namespace seam::plugin {

// The slots of PJRT_Api (abi_functions.h lists every one; table.cc checks the count and
// each one's place).
inline constexpr size_t kApiSlots = 129;

// The size, version and extension head (none) of a new table; its slots are left null.
PJRT_Api NewApiHeader();

// `Plugin` names the plugin in the stubs' messages ("cpu", "null"); it must have static
// storage (a constexpr char array).
template <const char* Plugin>
PJRT_Api NewApi() {
  PJRT_Api api = NewApiHeader();
#define SEAM_PLUGIN_STUB(Name) api.Name = Entry<&NotImplemented<Name##_Args, Plugin>>;
  SEAM_PLUGIN_FUNCTIONS(SEAM_PLUGIN_STUB)
#undef SEAM_PLUGIN_STUB
  api.PJRT_Error_Destroy = ErrorDestroy;
  api.PJRT_Error_Message = ErrorMessage;
  api.PJRT_Error_GetCode = Entry<&ErrorGetCode>;
  return api;
}

}  // namespace seam::plugin

// Puts `impl` (a function taking the slot's Args) behind Entry in slot `Name` of `api`.
// NOLINTNEXTLINE(bugprone-macro-parentheses): `Name` is a member name, `impl` a function.
#define SEAM_PLUGIN_SET(api, Name, impl) (api).Name = ::seam::plugin::Entry<&(impl)>

#endif  // SEAM_PLUGINS_COMMON_TABLE_H_
