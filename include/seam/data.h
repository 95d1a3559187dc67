// Data sets on disk: IDX files (the MNIST family's format, plain or gzip-compressed) and
// the Fashion-MNIST set that Debian's dataset-fashion-mnist package installs. Every failure
// is a seam::Error naming the file and what is wrong.
#ifndef SEAM_DATA_H_
#define SEAM_DATA_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "seam/tensor.h"

namespace seam::data {

// An IDX array of unsigned bytes (element type 0x08): dims and row-major values.
struct IdxArray {
  std::vector<int64_t> dims;
  std::vector<uint8_t> values;
};

// Reads one IDX file, plain or gzip-compressed. Every header field is checked before
// anything is allocated. Errors: a missing file or a directory, a bad magic number, an
// element type other than unsigned byte, dimensions describing more than 4 GiB, fewer or
// more bytes than the dimensions describe, corrupt or truncated gzip data, and running out
// of memory (RESOURCE_EXHAUSTED).
IdxArray read_idx(const std::string& path);

// Images as floats in [0, 1] (count x rows*cols, row-major) and their labels 0..9.
struct ImageSet {
  int64_t count = 0;
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<float> images;
  std::vector<int32_t> labels;
};

// Where dataset-fashion-mnist puts the files.
inline constexpr char kFashionMnistDir[] = "/usr/share/datasets/fashion-mnist";

// Reads "<dir>/{train,t10k}-{images-idx3,labels-idx1}-ubyte.gz" (the training set when
// `train`, else the test set). When the files are missing, the error names the Debian
// package that provides them. A set is refused unless its images are count x 28 x 28, its
// labels count values in 0..9, and count at least 1.
ImageSet load_fashion_mnist(bool train, const std::string& dir = kFashionMnistDir);

// One epoch's order: 0..count-1 shuffled by std::shuffle with `rng` (which advances). The
// examples in C++ and in Python (seam.data.Shuffler, the same code) draw every epoch's
// order with it, so the same seed gives the same batches on both sides. A negative count
// is an Error naming it.
std::vector<int64_t> shuffled_order(int64_t count, std::mt19937_64& rng);

}  // namespace seam::data

#endif  // SEAM_DATA_H_
