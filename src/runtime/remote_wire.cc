#include "src/runtime/remote_wire.h"

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace seam::runtime::wire {

std::string HostPort::ToString() const {
  if (host.find(':') != std::string::npos) return absl::StrCat("[", host, "]:", port);
  return absl::StrCat(host, ":", port);
}

absl::StatusOr<HostPort> ParseHostPort(const std::string& text, const std::string& what,
                                       bool allow_port_zero) {
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(what, " must be HOST:PORT (e.g. ",
                                                   kDefaultAddress, " or [::1]:8548), got '", text,
                                                   "': ", why));
  };
  HostPort result;
  std::string port;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string::npos) return bad("no ']' after the IPv6 address");
    result.host = text.substr(1, close - 1);
    if (close + 1 >= text.size() || text[close + 1] != ':') return bad("no ':PORT' after ']'");
    port = text.substr(close + 2);
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string::npos) return bad("no ':PORT'");
    result.host = text.substr(0, colon);
    if (result.host.find(':') != std::string::npos) {
      return bad("an IPv6 address must be written in brackets");
    }
    port = text.substr(colon + 1);
  }
  if (result.host.empty()) return bad("the host is empty");
  int value = 0;
  if (port.empty() || !absl::SimpleAtoi(port, &value) || value < 0 || value > 65535 ||
      (value == 0 && !allow_port_zero)) {
    return bad(absl::StrCat("the port '", port, "' is not a number from ", allow_port_zero ? 0 : 1,
                            " to 65535"));
  }
  result.port = value;
  return result;
}

absl::StatusOr<std::string> ReadTokenFile(const std::string& path, const std::string& what) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": cannot read the token file '", path, "'"));
  }
  std::ostringstream text;
  text << file.rdbuf();
  std::string token(absl::StripTrailingAsciiWhitespace(text.str()));
  if (token.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": the token file '", path, "' is empty"));
  }
  if (token.find('\n') != std::string::npos || token.find('\r') != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": the token file '", path, "' holds more than one line (one token expected)"));
  }
  for (char c : token) {
    if (c < 0x20 || c > 0x7e) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": the token file '", path,
          "' holds a character that is not printable ASCII (a token travels as gRPC metadata)"));
    }
  }
  return token;
}

}  // namespace seam::runtime::wire
