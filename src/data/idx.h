// Reading IDX files and Fashion-MNIST with absl::Status errors: what the public data API
// (include/seam/data.h, which defines the types) and the tests use.
#ifndef SEAM_DATA_IDX_H_
#define SEAM_DATA_IDX_H_

#include <string>

#include "absl/status/statusor.h"
#include "seam/data.h"

namespace seam::data {

// Errors name the file and what is wrong: a missing file or a directory, a bad magic
// number, an element type other than unsigned byte, dimensions describing more than 2^32
// bytes, fewer (DATA_LOSS) or more bytes than the dimensions describe, a corrupt or
// truncated gzip stream (DATA_LOSS). Nothing is allocated on the header's word alone: a
// plain file's size is checked first, gzip data is read 1 MiB at a time.
absl::StatusOr<IdxArray> ReadIdx(const std::string& path);

// Reads "<dir>/{train,t10k}-{images-idx3,labels-idx1}-ubyte.gz". When the files are
// missing, the error names the Debian package that provides them; a set whose images are
// not count x 28 x 28, whose labels do not match, or that holds no images is refused.
absl::StatusOr<ImageSet> LoadFashionMnist(const std::string& dir, bool train);

}  // namespace seam::data

#endif  // SEAM_DATA_IDX_H_
