// Reading IDX files (the MNIST family's format), plain or gzip-compressed, and the
// Fashion-MNIST data set that Debian's dataset-fashion-mnist package installs.
#ifndef SEAM_DATA_IDX_H_
#define SEAM_DATA_IDX_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace seam::data {

// An IDX array of unsigned bytes (element type 0x08): dims and row-major values.
struct IdxArray {
  std::vector<int64_t> dims;
  std::vector<uint8_t> values;
};

// Errors name the file and what is wrong: a missing file, a bad magic number, an element
// type other than unsigned byte, or fewer bytes than the dimensions promise.
absl::StatusOr<IdxArray> ReadIdx(const std::string& path);

// Images as floats in [0, 1] (count x rows*cols, row-major) and labels 0..9.
struct ImageSet {
  int64_t count = 0;
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<float> images;
  std::vector<int32_t> labels;
};

inline constexpr char kFashionMnistDir[] = "/usr/share/datasets/fashion-mnist";

// Reads "<dir>/{train,t10k}-{images-idx3,labels-idx1}-ubyte.gz". When the files are
// missing, the error names the Debian package that provides them.
absl::StatusOr<ImageSet> LoadFashionMnist(const std::string& dir, bool train);

}  // namespace seam::data

#endif  // SEAM_DATA_IDX_H_
