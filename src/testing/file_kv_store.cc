#include "src/testing/file_kv_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

namespace seam::testing {
namespace {

bool Plain(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

PJRT_Error* Fail(PJRT_CallbackError* make, PJRT_Error_Code code, const std::string& message) {
  // Upstream's field is a pointer to the plugin's factory function.
  return (*make)(code, message.data(), message.size());
}

// The value of the file at `path`, or false when it does not exist.
bool ReadFile(const std::string& path, std::string& value) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream text;
  text << in.rdbuf();
  value = text.str();
  return true;
}

template <typename Args>
void Hand(Args* args, const std::string& value) {
  char* copy = new char[value.size() + 1];
  std::memcpy(copy, value.data(), value.size());
  args->value = copy;
  args->value_size = value.size();
  args->value_deleter_callback = [](char* p) { delete[] p; };
}

std::string PathOf(void* user_arg, const char* key, size_t key_size) {
  const auto* store = static_cast<const FileKvStore*>(user_arg);
  return store->directory() + "/" + FileKvStore::Encode(std::string_view(key, key_size));
}

}  // namespace

std::string FileKvStore::Encode(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (Plain(c)) {
      out += c;
    } else {
      char hex[4];
      std::snprintf(hex, sizeof(hex), "%%%02X", static_cast<unsigned char>(c));
      out += hex;
    }
  }
  return out;
}

std::string FileKvStore::Decode(std::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '%' && i + 2 < name.size()) {
      out += static_cast<char>(std::stoi(std::string(name.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += name[i];
    }
  }
  return out;
}

void FileKvStore::Attach(PJRT_Client_Create_Args& args) {
  args.kv_get_callback = &Get;
  args.kv_get_user_arg = this;
  args.kv_put_callback = &Put;
  args.kv_put_user_arg = this;
  args.kv_try_get_callback = &TryGet;
  args.kv_try_get_user_arg = this;
}

std::vector<std::string> FileKvStore::Keys() const {
  std::vector<std::string> keys;
  if (DIR* dir = opendir(directory_.c_str())) {
    while (dirent* entry = readdir(dir)) {
      const std::string name = entry->d_name;
      if (name.empty() || name[0] == '.') continue;  // ".", "..", temporaries
      keys.push_back(Decode(name));
    }
    closedir(dir);
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

PJRT_Error* FileKvStore::Get(PJRT_KeyValueGetCallback_Args* args) {
  const std::string path = PathOf(args->user_arg, args->key, args->key_size);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(args->timeout_in_ms);
  std::string value;
  while (!ReadFile(path, value)) {
    if (std::chrono::steady_clock::now() >= deadline) {
      return Fail(args->callback_error, PJRT_Error_Code_DEADLINE_EXCEEDED,
                  "key '" + std::string(args->key, args->key_size) + "' not set within " +
                      std::to_string(args->timeout_in_ms) + " ms");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  Hand(args, value);
  return nullptr;
}

PJRT_Error* FileKvStore::TryGet(PJRT_KeyValueTryGetCallback_Args* args) {
  std::string value;
  if (!ReadFile(PathOf(args->user_arg, args->key, args->key_size), value)) {
    return Fail(args->callback_error, PJRT_Error_Code_NOT_FOUND,
                "key '" + std::string(args->key, args->key_size) + "' is not set");
  }
  Hand(args, value);
  return nullptr;
}

PJRT_Error* FileKvStore::Put(PJRT_KeyValuePutCallback_Args* args) {
  const std::string path = PathOf(args->user_arg, args->key, args->key_size);
  const auto* store = static_cast<const FileKvStore*>(args->user_arg);
  char temporary[] = "/.put.XXXXXX";
  std::string temp_path = store->directory() + temporary;
  const int fd = mkstemp(temp_path.data());
  if (fd < 0) {
    return Fail(args->callback_error, PJRT_Error_Code_INTERNAL,
                std::string("mkstemp: ") + std::strerror(errno));
  }
  const bool written =
      write(fd, args->value, args->value_size) == static_cast<ssize_t>(args->value_size);
  close(fd);
  // link(2) publishes the complete file under the key's name, or fails if the key exists.
  const int linked = written ? link(temp_path.c_str(), path.c_str()) : -1;
  const int link_errno = errno;
  unlink(temp_path.c_str());
  if (linked == 0) return nullptr;
  const std::string key(args->key, args->key_size);
  if (written && link_errno == EEXIST) {
    return Fail(args->callback_error, PJRT_Error_Code_ALREADY_EXISTS,
                "key '" + key + "' is already set");
  }
  return Fail(args->callback_error, PJRT_Error_Code_INTERNAL,
              "cannot write key '" + key + "': " + std::strerror(link_errno));
}

}  // namespace seam::testing
