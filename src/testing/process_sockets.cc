#include "src/testing/process_sockets.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

namespace seam::testing {
namespace {

// The inodes of the sockets among /proc/self/fd ("socket:[12345]").
std::set<std::string> SocketInodes() {
  std::set<std::string> inodes;
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return inodes;
  while (dirent* entry = readdir(dir)) {
    const std::string path = std::string("/proc/self/fd/") + entry->d_name;
    char target[256] = {};
    const ssize_t n = readlink(path.c_str(), target, sizeof(target) - 1);
    if (n <= 0) continue;
    const std::string link(target, static_cast<size_t>(n));
    if (link.rfind("socket:[", 0) == 0) inodes.insert(link.substr(8, link.size() - 9));
  }
  closedir(dir);
  return inodes;
}

// "0100007F:1F90" (little-endian words, as /proc/net/tcp writes them) as an address and port.
void ParseEndpoint(const std::string& text, bool v6, std::string& address, int& port) {
  const size_t colon = text.find(':');
  const std::string hex = text.substr(0, colon);
  port = static_cast<int>(std::stoul(text.substr(colon + 1), nullptr, 16));
  unsigned char bytes[16] = {};
  const size_t words = v6 ? 4 : 1;
  for (size_t w = 0; w < words; ++w) {
    const auto word = static_cast<uint32_t>(std::stoul(hex.substr(w * 8, 8), nullptr, 16));
    for (size_t b = 0; b < 4; ++b) bytes[w * 4 + b] = static_cast<unsigned char>(word >> (8 * b));
  }
  char out[INET6_ADDRSTRLEN] = {};
  inet_ntop(v6 ? AF_INET6 : AF_INET, bytes, out, sizeof(out));
  address = out;
}

void ReadTable(const char* path, bool v6, const std::set<std::string>& inodes,
               std::vector<TcpSocket>& sockets) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
    fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >>
        timeout >> inode;
    if (inodes.count(inode) == 0) continue;
    TcpSocket socket;
    int remote_port = 0;
    ParseEndpoint(local, v6, socket.local_address, socket.local_port);
    ParseEndpoint(remote, v6, socket.remote_address, remote_port);
    sockets.push_back(socket);
  }
}

}  // namespace

std::vector<TcpSocket> OwnTcpSockets() {
  const std::set<std::string> inodes = SocketInodes();
  std::vector<TcpSocket> sockets;
  ReadTable("/proc/self/net/tcp", false, inodes, sockets);
  ReadTable("/proc/self/net/tcp6", true, inodes, sockets);
  return sockets;
}

}  // namespace seam::testing
