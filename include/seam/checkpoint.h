// Named tensors in a safetensors file (docs/checkpoints.md): the format PyTorch
// (`safetensors.torch.load_file`), NumPy and the safetensors library read, so a file written
// here opens in those tools and theirs opens here.
//
//   seam::checkpoint::save_file("weights.safetensors", {{"w", w}, {"b", b}}, {{"step", "10"}});
//   seam::checkpoint::Loaded file = seam::checkpoint::load_file("weights.safetensors");
//   Tensor w = file.tensors.at("w");
//
// Saving is atomic: the file appears complete under its name or not at all (a temporary file
// in the same folder, fsync, rename). Loading validates the whole file first and creates no
// tensor unless every one can be made; every failure is a seam::Error naming the file and
// what is wrong with it, with the code of its kind (docs/checkpoints.md, "Errors"):
// NOT_FOUND (no such file or folder), PERMISSION_DENIED (cannot be read, or the folder
// cannot be written), DATA_LOSS (a malformed or truncated file), FAILED_PRECONDITION (the
// path is a directory), RESOURCE_EXHAUSTED (no space left), UNIMPLEMENTED (a dtype the
// tensor API lacks), INVALID_ARGUMENT (what the caller asked to save is wrong).
#ifndef SEAM_CHECKPOINT_H_
#define SEAM_CHECKPOINT_H_

#include <map>
#include <string>

#include "seam/tensor.h"

namespace seam::checkpoint {

// Writes `tensors` (float32, float64, bfloat16, int32 and int64 as F32, F64, BF16, I32 and
// I64; syncing pending ones; bool is an Error) with `metadata` (the
// header's "__metadata__", strings only). A name may not be "__metadata__". A temporary file
// an earlier save of `path` left when its process was killed (`<path>.tmp.<pid>`, no process
// `pid` alive) is removed.
void save_file(const std::string& path, const std::map<std::string, Tensor>& tensors,
               const std::map<std::string, std::string>& metadata = {});

struct Loaded {
  std::map<std::string, Tensor> tensors;
  std::map<std::string, std::string> metadata;
};

// Reads a safetensors file. Every tensor is sent to the device straight from the file's
// read-only mapping, one at a time, and keeps no host copy (host memory for the mapped
// pages only, which the kernel can drop). Tensors of dtype F32, F64, BF16, I32 and I64
// become float32, float64, bfloat16, int32 and int64 tensors, bit for bit; any other dtype
// (valid in the format, e.g. F16 or U8) is an Error naming the tensor and the dtype, and
// nothing is loaded.
Loaded load_file(const std::string& path);

// `text` as the whole content of `path`, atomically (readers see the old content or the new,
// never a mix): e.g. a checkpoint folder's one-line `latest` file.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace seam::checkpoint

#endif  // SEAM_CHECKPOINT_H_
