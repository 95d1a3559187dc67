// An ABI Args struct with its header filled in (struct_size from the header this code was
// built with, no extension), for every C++ caller of a plugin's table: the runtime, the
// conformance suite, the tests.
//
//   auto args = SEAM_ABI_ARGS(PJRT_Client_Create_Args);
#ifndef SEAM_ABI_ARGS_H_
#define SEAM_ABI_ARGS_H_

#include <cstddef>

namespace seam::abi {

template <typename Args>
Args MakeArgs(size_t struct_size) {
  Args args{};
  args.struct_size = struct_size;
  args.extension_start = nullptr;
  return args;
}

}  // namespace seam::abi

#define SEAM_ABI_ARGS(type) ::seam::abi::MakeArgs<type>(type##_STRUCT_SIZE)

#endif  // SEAM_ABI_ARGS_H_
