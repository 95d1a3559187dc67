// A job's key-value store in a directory, for tests and benchmarks that start real
// processes: each key is a file, written once (a fully written temporary file is linked
// to the key's name, which fails when the key exists), read by polling until it appears
// or the wait's timeout passes. Implements the three callbacks of PJRT_Client_Create_Args.
#ifndef SEAM_TESTING_FILE_KV_STORE_H_
#define SEAM_TESTING_FILE_KV_STORE_H_

#include <string>
#include <string_view>
#include <vector>

#include "seam/c/pjrt_c_api.h"

namespace seam::testing {

class FileKvStore {
 public:
  explicit FileKvStore(std::string directory) : directory_(std::move(directory)) {}

  // Sets the three callbacks of `args` (get, put, try-get) and their user args to this
  // store, which must outlive the client.
  void Attach(PJRT_Client_Create_Args& args);

  // Every key set so far (decoded), sorted.
  std::vector<std::string> Keys() const;
  const std::string& directory() const { return directory_; }

  // A key as a file name: letters, digits, '.', '_' and '-' stay, every other byte is %XX.
  static std::string Encode(std::string_view key);
  static std::string Decode(std::string_view name);

 private:
  static PJRT_Error* Get(PJRT_KeyValueGetCallback_Args* args);
  static PJRT_Error* TryGet(PJRT_KeyValueTryGetCallback_Args* args);
  static PJRT_Error* Put(PJRT_KeyValuePutCallback_Args* args);

  std::string directory_;
};

}  // namespace seam::testing

#endif  // SEAM_TESTING_FILE_KV_STORE_H_
