// The entry points of a plugin's table: the Args check and the exception firewall.
//
//   api.PJRT_Client_Create = seam::plugin::Entry<&ClientCreate>;
//
// Entry<Impl> is the function the framework calls. It refuses a null Args pointer and an
// Args struct smaller than this plugin's header defines (the reference message, naming
// the struct and both sizes), then calls Impl inside a try block: no C++ exception ever
// crosses the ABI. std::bad_alloc becomes RESOURCE_EXHAUSTED and any other exception
// INTERNAL, each naming the function. On the success path this costs one comparison and a
// call: a try block sets nothing up at run time, and nothing is allocated.
//
// UncheckedEntry<Impl> is the firewall without the Args check, for an Impl that reads
// struct_size itself (or, in a test plugin, deliberately does not).
#ifndef SEAM_PLUGINS_COMMON_ENTRY_H_
#define SEAM_PLUGINS_COMMON_ENTRY_H_

#include <cxxabi.h>

#include "seam/c/pjrt_c_api.h"
#include "src/plugins/common/abi_functions.h"
#include "src/plugins/common/error.h"

namespace seam::plugin {

// Called inside a catch block: the current exception as an error naming `function`
// (RESOURCE_EXHAUSTED for std::bad_alloc, INTERNAL otherwise).
PJRT_Error* ErrorFromCurrentException(const char* function) noexcept;

template <auto Impl>
PJRT_Error* UncheckedEntry(ArgsOf<Impl>* args) {
  try {
    return Impl(args);
  } catch (::abi::__forced_unwind&) {
    throw;  // thread cancellation unwinds through every frame; it is not an error
  } catch (...) {
    return ErrorFromCurrentException(AbiFunction<ArgsOf<Impl>>::kName);
  }
}

template <auto Impl>
PJRT_Error* Entry(ArgsOf<Impl>* args) {
  using Function = AbiFunction<ArgsOf<Impl>>;
  if (args == nullptr) [[unlikely]] {
    return NullArgsError(Function::kArgsName);
  }
  if (args->struct_size < kMinArgsSize<ArgsOf<Impl>>) [[unlikely]] {
    return StructSizeError(Function::kArgsName, kMinArgsSize<ArgsOf<Impl>>, args->struct_size);
  }
  return UncheckedEntry<Impl>(args);
}

// The body of a slot a plugin does not implement: UNIMPLEMENTED "<function> is not
// implemented by the <Plugin> plugin". The table holds Entry<&NotImplemented<Args,
// Plugin>>, so the Args are still checked first.
template <typename Args, const char* Plugin>
PJRT_Error* NotImplemented(Args* /*args*/) {
  return UnimplementedError(AbiFunction<Args>::kName, Plugin);
}

}  // namespace seam::plugin

#endif  // SEAM_PLUGINS_COMMON_ENTRY_H_
