#include "src/data/idx.h"

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "src/base/status_macros.h"

namespace seam::data {
namespace {

constexpr int64_t kMaxBytes = int64_t{1} << 32;  // far above any IDX file seam reads
// Values are read, and their array grown, this much at a time: memory follows the bytes
// that actually arrive, never the header's claim alone.
constexpr size_t kChunk = size_t{1} << 20;
constexpr int kFashionMnistSide = 28;

struct GzCloser {
  void operator()(gzFile_s* file) const { gzclose(file); }
};

// An IDX file's bytes: a plain file (read through zlib's transparent mode, its size known
// from the file system) or a gzip stream (its size known only once it has been read).
class IdxStream {
 public:
  static absl::StatusOr<IdxStream> Open(const std::string& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
      return absl::InvalidArgumentError(absl::StrCat(path, " is a directory, not an IDX file"));
    }
    IdxStream stream;
    stream.path_ = path;
    stream.file_.reset(gzopen(path.c_str(), "rb"));
    if (stream.file_ == nullptr) {
      return absl::NotFoundError(absl::StrCat("cannot open IDX file ", path));
    }
    // gzdirect looks at the first bytes: 1 when they are not gzip data.
    if (gzdirect(stream.file_.get()) == 1 && S_ISREG(info.st_mode)) {
      stream.plain_size_ = static_cast<int64_t>(info.st_size);
    }
    return stream;
  }

  // Up to `size` bytes into `out`; fewer only where the data ends. A gzip stream that is
  // corrupt or cut short is DATA_LOSS naming the file and zlib's reason.
  absl::StatusOr<size_t> Read(uint8_t* out, size_t size) {
    size_t total = 0;
    while (total < size) {
      auto chunk = static_cast<unsigned>(std::min<size_t>(size - total, size_t{1} << 30));
      int got = gzread(file_.get(), out + total, chunk);
      if (got < 0) return ZlibError();
      if (got == 0) {
        int code = Z_OK;
        gzerror(file_.get(), &code);
        if (code != Z_OK) return ZlibError();
        break;
      }
      total += static_cast<size_t>(got);
    }
    consumed_ += static_cast<int64_t>(total);
    return total;
  }

  // The bytes after those read so far, when the file is plain; nullopt for gzip data.
  std::optional<int64_t> remaining() const {
    if (plain_size_ < 0) return std::nullopt;
    return plain_size_ - consumed_;
  }

 private:
  absl::Status ZlibError() const {
    int code = Z_OK;
    absl::string_view message = gzerror(file_.get(), &code);
    // zlib's message starts with the path it was opened with.
    const std::string prefix = path_ + ": ";
    if (absl::StartsWith(message, prefix)) message.remove_prefix(prefix.size());
    return absl::DataLossError(
        absl::StrCat(path_, ": corrupt or truncated gzip data (zlib: ", message, ")"));
  }

  std::string path_;
  std::unique_ptr<gzFile_s, GzCloser> file_;
  int64_t plain_size_ = -1;
  int64_t consumed_ = 0;
};

// Reads exactly `size` bytes; false when the data ends first.
absl::StatusOr<bool> ReadExactly(IdxStream& stream, uint8_t* out, size_t size) {
  SEAM_ASSIGN_OR_RETURN(size_t got, stream.Read(out, size));
  return got == size;
}

// The magic number and the dimensions; returns the number of values they describe.
absl::StatusOr<int64_t> ReadHeader(IdxStream& stream, const std::string& path, IdxArray* array) {
  uint8_t magic[4];
  SEAM_ASSIGN_OR_RETURN(bool whole, ReadExactly(stream, magic, sizeof(magic)));
  if (!whole) return absl::DataLossError(absl::StrCat(path, ": too short for an IDX header"));
  if (magic[0] != 0 || magic[1] != 0) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not an IDX file (magic bytes ",
                                                   magic[0], " ", magic[1], ", expected 0 0)"));
  }
  if (magic[2] != 0x08) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": element type 0x", absl::Hex(magic[2]),
                                                   " is not unsigned byte (0x08)"));
  }
  int64_t count = 1;  // stays <= kMaxBytes, so count * size cannot overflow
  for (int d = 0; d < magic[3]; ++d) {
    uint8_t be[4];
    SEAM_ASSIGN_OR_RETURN(whole, ReadExactly(stream, be, sizeof(be)));
    if (!whole) {
      return absl::DataLossError(absl::StrCat(path, ": header ends inside dimension ", d));
    }
    const int64_t size =
        (int64_t{be[0]} << 24) | (int64_t{be[1]} << 16) | (int64_t{be[2]} << 8) | int64_t{be[3]};
    array->dims.push_back(size);
    if (size != 0 && count > kMaxBytes / size) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": dimensions describe more than ", kMaxBytes, " bytes"));
    }
    count *= size;
  }
  return count;
}

// The `count` values after the header, and nothing after them.
absl::Status ReadValues(IdxStream& stream, const std::string& path, int64_t count,
                        std::vector<uint8_t>* values) {
  const auto wanted = static_cast<size_t>(count);
  auto short_data = [&] {
    return absl::DataLossError(
        absl::StrCat(path, ": fewer bytes than the dimensions promise (", count, ")"));
  };
  auto extra_data = [&](const std::string& how_many) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", how_many,
                                                   " bytes follow the data the dimensions "
                                                   "describe (",
                                                   count, " bytes)"));
  };
  if (std::optional<int64_t> remaining = stream.remaining()) {
    // A plain file: its size is checked before anything is allocated.
    if (*remaining < count) return short_data();
    if (*remaining > count) return extra_data(absl::StrCat(*remaining - count));
    values->reserve(wanted);
  }
  while (values->size() < wanted) {
    const size_t start = values->size();
    const size_t want = std::min(kChunk, wanted - start);
    values->resize(start + want);
    SEAM_ASSIGN_OR_RETURN(size_t got, stream.Read(values->data() + start, want));
    values->resize(start + got);
    if (got < want) return short_data();
  }
  // Reading on to the end also has zlib check the gzip stream's CRC.
  uint8_t extra[1];
  SEAM_ASSIGN_OR_RETURN(size_t more, stream.Read(extra, sizeof(extra)));
  if (more != 0) return extra_data("more");
  return absl::OkStatus();
}

// The images file of a set must hold count x 28 x 28 values, the labels file count values.
absl::Status CheckSetShapes(const std::string& images_path, const IdxArray& images,
                            const std::string& labels_path, const IdxArray& labels) {
  if (images.dims.size() != 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        images_path, ": images need 3 dimensions (count, rows, columns), the file has ",
        images.dims.size()));
  }
  if (labels.dims.size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        labels_path, ": labels need 1 dimension (count), the file has ", labels.dims.size()));
  }
  if (images.dims[0] != labels.dims[0]) {
    return absl::InvalidArgumentError(absl::StrCat(
        images_path, " and ", labels_path, " do not describe the same number of images (",
        images.dims[0], " images, ", labels.dims[0], " labels)"));
  }
  if (images.dims[0] == 0) {
    return absl::InvalidArgumentError(absl::StrCat(images_path, ": the set holds no images"));
  }
  if (images.dims[1] != kFashionMnistSide || images.dims[2] != kFashionMnistSide) {
    return absl::InvalidArgumentError(
        absl::StrCat(images_path, ": images are ", images.dims[1], "x", images.dims[2],
                     ", Fashion-MNIST images are ", kFashionMnistSide, "x", kFashionMnistSide));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<IdxArray> ReadIdx(const std::string& path) {
  SEAM_ASSIGN_OR_RETURN(IdxStream stream, IdxStream::Open(path));
  IdxArray array;
  SEAM_ASSIGN_OR_RETURN(int64_t count, ReadHeader(stream, path, &array));
  SEAM_RETURN_IF_ERROR(ReadValues(stream, path, count, &array.values));
  return array;
}

absl::StatusOr<ImageSet> LoadFashionMnist(const std::string& dir, bool train) {
  std::string prefix = absl::StrCat(dir, "/", train ? "train" : "t10k");
  std::string images_path = prefix + "-images-idx3-ubyte.gz";
  std::string labels_path = prefix + "-labels-idx1-ubyte.gz";
  if (std::FILE* f = std::fopen(images_path.c_str(), "rb")) {
    std::fclose(f);
  } else {
    return absl::NotFoundError(
        absl::StrCat("Fashion-MNIST not found: ", images_path,
                     " is missing. Install Debian's dataset-fashion-mnist package "
                     "(scripts/install-deps.sh does)."));
  }
  SEAM_ASSIGN_OR_RETURN(IdxArray images, ReadIdx(images_path));
  SEAM_ASSIGN_OR_RETURN(IdxArray labels, ReadIdx(labels_path));
  SEAM_RETURN_IF_ERROR(CheckSetShapes(images_path, images, labels_path, labels));
  ImageSet set;
  set.count = images.dims[0];
  set.rows = images.dims[1];
  set.cols = images.dims[2];
  set.images.resize(images.values.size());
  for (size_t i = 0; i < images.values.size(); ++i)
    set.images[i] = static_cast<float>(images.values[i]) / 255.0f;
  set.labels.reserve(labels.values.size());
  for (uint8_t label : labels.values) {
    if (label > 9) {
      return absl::InvalidArgumentError(
          absl::StrCat(labels_path, ": label ", int{label}, " is outside 0..9"));
    }
    set.labels.push_back(label);
  }
  return set;
}

}  // namespace seam::data
