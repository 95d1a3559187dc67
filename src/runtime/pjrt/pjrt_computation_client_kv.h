// The job's key-value store handed to a plugin as PJRT_Client_Create's three callbacks (get,
// try-get, put; each with the same user arg, a KvCallbackState): each callback adds the state's
// prefix to the plugin's key; a try-get miss is NOT_FOUND, a get that times out DEADLINE_EXCEEDED;
// errors are made with the plugin's callback_error and nothing is thrown across the ABI. Used by
// pjrt_computation_client.cc.
#ifndef SEAM_RUNTIME_PJRT_PJRT_COMPUTATION_CLIENT_KV_H_
#define SEAM_RUNTIME_PJRT_PJRT_COMPUTATION_CLIENT_KV_H_

#include <memory>
#include <string>

#include "seam/c/pjrt_c_api.h"
#include "src/runtime/distributed/key_value_store.h"

namespace seam::runtime {

// The callbacks' user arg; outlives the plugin's client.
struct KvCallbackState {
  std::shared_ptr<KeyValueStore> store;
  std::string prefix;  // "pjrt:<job incarnation>/"
};

PJRT_Error* KvGet(PJRT_KeyValueGetCallback_Args* args);
PJRT_Error* KvTryGet(PJRT_KeyValueTryGetCallback_Args* args);
PJRT_Error* KvPut(PJRT_KeyValuePutCallback_Args* args);

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_PJRT_PJRT_COMPUTATION_CLIENT_KV_H_
