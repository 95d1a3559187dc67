// Reading IDX files and Fashion-MNIST with absl::Status errors: what the public data API
// (include/seam/data.h, which defines the types) and the tests use.
#ifndef SEAM_DATA_IDX_H_
#define SEAM_DATA_IDX_H_

#include <string>

#include "absl/status/statusor.h"
#include "seam/data.h"

namespace seam::data {

// Errors name the file and what is wrong: a missing file, a bad magic number, an element
// type other than unsigned byte, or fewer bytes than the dimensions promise.
absl::StatusOr<IdxArray> ReadIdx(const std::string& path);

// Reads "<dir>/{train,t10k}-{images-idx3,labels-idx1}-ubyte.gz". When the files are
// missing, the error names the Debian package that provides them.
absl::StatusOr<ImageSet> LoadFashionMnist(const std::string& dir, bool train);

}  // namespace seam::data

#endif  // SEAM_DATA_IDX_H_
