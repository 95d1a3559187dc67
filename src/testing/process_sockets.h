// The TCP sockets this process holds, from /proc (for the tests of the address rule and of
// "no Gloo in a single-process job").
#ifndef SEAM_TESTING_PROCESS_SOCKETS_H_
#define SEAM_TESTING_PROCESS_SOCKETS_H_

#include <string>
#include <vector>

namespace seam::testing {

struct TcpSocket {
  std::string local_address;   // "127.0.0.1", "::1"
  std::string remote_address;  // "0.0.0.0" for a listening socket
  int local_port = 0;
};

// Every TCP socket (IPv4 and IPv6) among this process's open file descriptors.
std::vector<TcpSocket> OwnTcpSockets();

}  // namespace seam::testing

#endif  // SEAM_TESTING_PROCESS_SOCKETS_H_
