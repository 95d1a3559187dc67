// What the PJRT_Executable_* queries report about a compiled program, and the nine functions
// that report it, for every plugin built from the kit (as device.h does for devices).
#ifndef SEAM_PLUGINS_COMMON_EXECUTABLE_H_
#define SEAM_PLUGINS_COMMON_EXECUTABLE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "seam/c/pjrt_c_api.h"
#include "src/plugins/common/error.h"
#include "src/plugins/common/table.h"

namespace seam::plugin {

// Built once when a program compiles and shared by every PJRT_Executable handed out for it:
// the arrays the queries return point into it and live as long as it does.
struct ExecutableFacts {
  std::string name;         // the program's name
  std::string fingerprint;  // identifies the compiled program (the plugin's digest)
  int64_t replicas = 1;
  std::vector<PJRT_Buffer_Type> output_types;
  std::vector<int64_t> output_dims;  // every output's dimensions, one after another
  std::vector<size_t> output_ranks;
  std::vector<const char*> output_memory_kinds;  // "device" each
  std::vector<size_t> output_memory_kind_sizes;

  // Appends an output of `type` and `dims`, in the memory kind "device".
  template <typename Dims>
  void AddOutput(PJRT_Buffer_Type type, const Dims& dims) {
    static constexpr char kDevice[] = "device";
    output_types.push_back(type);
    output_dims.insert(output_dims.end(), dims.begin(), dims.end());
    output_ranks.push_back(dims.size());
    output_memory_kinds.push_back(kDevice);
    output_memory_kind_sizes.push_back(sizeof(kDevice) - 1);
  }
};

// The functions SetExecutableFunctions puts in the table, for a plugin's PJRT_Executable
// type: it holds `facts` (a pointer to ExecutableFacts) or `compiled` (a pointer to a
// struct with an ExecutableFacts member `facts`). Templates, so that they are compiled where
// that type is complete.
template <typename Executable>
struct ExecutableFunctions {
  static const ExecutableFacts& FactsOf(const Executable& executable) {
    if constexpr (requires { executable.facts; }) {
      return *executable.facts;
    } else {
      return executable.compiled->facts;
    }
  }
  static PJRT_Error* Name(PJRT_Executable_Name_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Executable_Name, args->executable);
    const std::string& name = FactsOf(*args->executable).name;
    args->executable_name = name.data();
    args->executable_name_size = name.size();
    return nullptr;
  }
  static PJRT_Error* NumReplicas(PJRT_Executable_NumReplicas_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Executable_NumReplicas, args->executable);
    args->num_replicas = static_cast<size_t>(FactsOf(*args->executable).replicas);
    return nullptr;
  }
  static PJRT_Error* NumPartitions(PJRT_Executable_NumPartitions_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Executable_NumPartitions, args->executable);
    args->num_partitions = 1;
    return nullptr;
  }
  static PJRT_Error* NumOutputs(PJRT_Executable_NumOutputs_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Executable_NumOutputs, args->executable);
    args->num_outputs = FactsOf(*args->executable).output_types.size();
    return nullptr;
  }
  static PJRT_Error* SizeOfGeneratedCode(PJRT_Executable_SizeOfGeneratedCodeInBytes_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Executable_SizeOfGeneratedCodeInBytes, args->executable);
    args->size_in_bytes = 0;  // the kit's plugins generate no code per program
    return nullptr;
  }
  static PJRT_Error* Fingerprint(PJRT_Executable_Fingerprint_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Executable_Fingerprint, args->executable);
    const std::string& fingerprint = FactsOf(*args->executable).fingerprint;
    args->executable_fingerprint = fingerprint.data();
    args->executable_fingerprint_size = fingerprint.size();
    return nullptr;
  }
  static PJRT_Error* OutputElementTypes(PJRT_Executable_OutputElementTypes_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Executable_OutputElementTypes, args->executable);
    const ExecutableFacts& facts = FactsOf(*args->executable);
    // The ABI's field is not const; the array is the executable's and never written through.
    args->output_types = const_cast<PJRT_Buffer_Type*>(facts.output_types.data());
    args->num_output_types = facts.output_types.size();
    return nullptr;
  }
  static PJRT_Error* OutputDimensions(PJRT_Executable_OutputDimensions_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Executable_OutputDimensions, args->executable);
    const ExecutableFacts& facts = FactsOf(*args->executable);
    args->num_outputs = facts.output_ranks.size();
    args->dims = facts.output_dims.data();
    args->dim_sizes = facts.output_ranks.data();
    return nullptr;
  }
  static PJRT_Error* OutputMemoryKinds(PJRT_Executable_OutputMemoryKinds_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Executable_OutputMemoryKinds, args->executable);
    const ExecutableFacts& facts = FactsOf(*args->executable);
    args->num_outputs = facts.output_memory_kinds.size();
    args->memory_kinds = facts.output_memory_kinds.data();
    args->memory_kind_sizes = facts.output_memory_kind_sizes.data();
    return nullptr;
  }
};

// PJRT_Executable_Name, _NumReplicas, _NumPartitions (1), _NumOutputs,
// _SizeOfGeneratedCodeInBytes (0), _Fingerprint, _OutputElementTypes, _OutputDimensions and
// _OutputMemoryKinds.
template <typename Executable>
void SetExecutableFunctions(PJRT_Api& api) {
  using F = ExecutableFunctions<Executable>;
  SEAM_PLUGIN_SET(api, PJRT_Executable_Name, F::Name);
  SEAM_PLUGIN_SET(api, PJRT_Executable_NumReplicas, F::NumReplicas);
  SEAM_PLUGIN_SET(api, PJRT_Executable_NumPartitions, F::NumPartitions);
  SEAM_PLUGIN_SET(api, PJRT_Executable_NumOutputs, F::NumOutputs);
  SEAM_PLUGIN_SET(api, PJRT_Executable_SizeOfGeneratedCodeInBytes, F::SizeOfGeneratedCode);
  SEAM_PLUGIN_SET(api, PJRT_Executable_Fingerprint, F::Fingerprint);
  SEAM_PLUGIN_SET(api, PJRT_Executable_OutputElementTypes, F::OutputElementTypes);
  SEAM_PLUGIN_SET(api, PJRT_Executable_OutputDimensions, F::OutputDimensions);
  SEAM_PLUGIN_SET(api, PJRT_Executable_OutputMemoryKinds, F::OutputMemoryKinds);
}

}  // namespace seam::plugin

#endif  // SEAM_PLUGINS_COMMON_EXECUTABLE_H_
