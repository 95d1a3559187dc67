// A plugin's function table, started by the kit:
//
//   const PJRT_Api* GetMyPjrtApi() {
//     static const PJRT_Api api = [] {
//       PJRT_Api a = seam::plugin::NewApi();
//       SEAM_PLUGIN_SET(a, PJRT_Client_Create, ClientCreate);
//       ...
//       return a;
//     }();
//     return &api;
//   }
//
// NewApi() fills the size, this header's version and every slot: the three error
// functions with the kit's, every other one with an entry that checks its Args and
// returns UNIMPLEMENTED naming the function. No slot is ever null.
#ifndef SEAM_PLUGINS_COMMON_TABLE_H_
#define SEAM_PLUGINS_COMMON_TABLE_H_

#include "seam/c/pjrt_c_api.h"
#include "src/plugins/common/entry.h"

namespace seam::plugin {

PJRT_Api NewApi();

}  // namespace seam::plugin

// Puts `impl` (a function taking the slot's Args) behind Entry in slot `Name` of `api`.
// NOLINTNEXTLINE(bugprone-macro-parentheses): `Name` is a member name, `impl` a function.
#define SEAM_PLUGIN_SET(api, Name, impl) (api).Name = ::seam::plugin::Entry<&(impl)>

#endif  // SEAM_PLUGINS_COMMON_TABLE_H_
