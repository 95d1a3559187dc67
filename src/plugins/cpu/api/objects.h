// The CPU plugin's definitions of the ABI's opaque objects, and helpers shared by the
// files that implement the function table.
#ifndef SEAM_PLUGINS_CPU_OBJECTS_H_
#define SEAM_PLUGINS_CPU_OBJECTS_H_

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "seam/c/pjrt_c_api.h"
#include "src/base/object_pool.h"
#include "src/plugins/common/device.h"
#include "src/plugins/common/error.h"
#include "src/plugins/common/event.h"
#include "src/plugins/common/executable.h"
#include "src/plugins/common/kv_store.h"
#include "src/plugins/cpu/collectives/gloo_collectives.h"
#include "src/plugins/cpu/compile/executable.h"
#include "src/plugins/cpu/runtime/buffer.h"
#include "src/plugins/cpu/runtime/worker.h"

struct PJRT_Device {
  PJRT_DeviceDescription description;  // description.id: the job-wide (global) id
  PJRT_Client* client = nullptr;
  // Devices of other processes of the job are listed (PJRT_Client_Devices) but not driven:
  // no worker, no memory.
  bool addressable = true;
  int local_hardware_id = -1;  // the index among this process's devices; -1 for another's
  // Its one memory space (kind "device"), and the list PJRT_Device_AddressableMemories
  // returns (that memory; empty for another process's device).
  std::unique_ptr<PJRT_Memory> memory_space;
  std::vector<PJRT_Memory*> memories;
  // The device's memory figures (PJRT_Device_MemoryStats), shared with every block made for
  // the device. Declared before the worker, which uses it until it is joined.
  std::shared_ptr<seam::cpu::MemoryCounters> memory = std::make_shared<seam::cpu::MemoryCounters>();
  std::unique_ptr<seam::cpu::Worker> worker;
};

struct PJRT_Client {
  std::string platform_name = "cpu";
  std::string platform_version = "seam cpu plugin";
  // This process among the processes of its job (create options process_index and
  // process_count; 0 of 1 in a single-process job). The kit's PJRT_Client_ProcessIndex
  // reads process_index.
  int64_t process_index = 0;
  int64_t process_count = 1;
  // Collectives across processes, when process_count > 1. Declared before the devices, so
  // that it outlives their workers (members are destroyed in reverse order).
  std::unique_ptr<seam::cpu::GlooCollectives> gloo;
  std::vector<std::unique_ptr<PJRT_Device>> owned_devices;
  // Every device of the job, in global id order (process p's device i has id
  // p * devices per process + i), and this process's ones, in local order.
  std::vector<PJRT_Device*> devices;
  std::vector<PJRT_Device*> addressable_devices;
  std::vector<PJRT_Memory*> addressable_memories;  // one per addressable device
  std::mutex launch_mu;                            // held while one Execute call enqueues its runs
  // Single-device runs of programs whose cost (Executable::cost) is at most this run on
  // the caller's thread when the device is idle (api_execute.cc); 0 turns that off.
  int64_t inline_max_cost = 0;
  // A process's one replica of a launch across processes runs on the caller's thread when
  // the device is idle (SEAM_CPU_INLINE_CROSS_PROCESS, api_execute.cc).
  bool inline_cross_process = true;
  // The job's key-value store (PJRT_Client_Create_Args' kv callbacks), when the framework
  // passed one:
  // how the processes of a multi-process job find each other for collectives.
  std::optional<seam::plugin::KvStore> kv_store;
  // The client's settings (cpu_settings.h), held by each executable it compiles.
  std::shared_ptr<const seam::cpu::CpuSettings> settings;
};

struct PJRT_Buffer {
  // Immutable, so shared: a run's outputs share their executable's result shapes.
  std::shared_ptr<const seam::ir::Shape> shape;
  // Null once deleted; runs that already hold the state keep its memory alive.
  std::shared_ptr<seam::cpu::BufferState> state;
  PJRT_Device* device = nullptr;
  bool deleted = false;   // after PJRT_Buffer_Delete (or donation); `state` is then null
  bool donated = false;   // deleted because a run took its memory (an input/output alias)
  SEAM_PLUGIN_POOLED_NEW  // a run hands out new buffer handles: from the object pool
};

namespace seam::cpu {

// What PJRT_Executable answers about a compiled program (the kit's), built once at compile
// and shared by the loaded executable and every PJRT_Executable handed out for it; the
// fingerprint is a hex digest of the program text and the replica count.
using ExecutableFacts = plugin::ExecutableFacts;

}  // namespace seam::cpu

struct PJRT_LoadedExecutable {
  PJRT_LoadedExecutable(std::shared_ptr<const seam::cpu::Executable> compiled, PJRT_Client* owner,
                        std::shared_ptr<const seam::cpu::ExecutableFacts> program_facts,
                        std::vector<PJRT_Device*> run_devices)
      : executable(std::move(compiled)),
        client(owner),
        facts(std::move(program_facts)),
        devices(std::move(run_devices)) {
    for (const seam::ir::Shape& shape : executable->result_shapes()) {
      output_shapes.push_back(std::make_shared<const seam::ir::Shape>(shape));
    }
  }
  // Null after PJRT_LoadedExecutable_Delete (runs already launched hold their own).
  std::shared_ptr<const seam::cpu::Executable> executable;
  PJRT_Client* client = nullptr;
  std::shared_ptr<const seam::cpu::ExecutableFacts> facts;
  std::vector<PJRT_Device*> devices;  // PJRT_LoadedExecutable_AddressableDevices
  std::vector<std::shared_ptr<const seam::ir::Shape>> output_shapes;  // the outputs' shapes
};

// A compiled program as PJRT_LoadedExecutable_GetExecutable hands it out (the caller
// destroys it); it answers the PJRT_Executable_* queries.
struct PJRT_Executable {
  std::shared_ptr<const seam::cpu::Executable> executable;
  std::shared_ptr<const seam::cpu::ExecutableFacts> facts;
};

namespace seam::cpu {

using ::seam::plugin::MakeError;

PJRT_Buffer_Type ToPjrtType(ir::DType dtype);
// `type` is the int the caller's PJRT_Buffer_Type field holds (plugin::RawEnumValue): any
// value, a foreign one included, is answered without loading it as the enum.
absl::StatusOr<ir::DType> FromPjrtType(int type);

// OK for a null layout or a dense one for a value of `rank` (a Tiled layout whose
// minor_to_major is rank-1 ... 0, without tiles); UNIMPLEMENTED "<function>: <field> ..."
// naming what is not dense otherwise (the cpu plugin keeps values dense and row-major).
absl::Status CheckDenseLayout(const char* function, const char* field,
                              const PJRT_Buffer_MemoryLayout* layout, size_t rank);

}  // namespace seam::cpu

// Rejects a deleted or donated buffer where its data would be read, naming the function.
#define SEAM_CHECK_NOT_DELETED(function, buffer)                                   \
  do {                                                                             \
    if ((buffer)->deleted) {                                                       \
      return ::seam::cpu::MakeError(absl::FailedPreconditionError(                 \
          (buffer)->donated ? #function ": the buffer was donated to an execution" \
                            : #function ": the buffer was deleted"));              \
    }                                                                              \
  } while (0)

#endif  // SEAM_PLUGINS_CPU_OBJECTS_H_
