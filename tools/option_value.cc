#include "tools/option_value.h"

#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace seam::tools {

std::string DescribeOptionValue(const runtime::PluginOptionValue& value) {
  struct Visitor {
    std::string operator()(int64_t v) const { return absl::StrCat(v); }
    std::string operator()(const std::string& v) const { return absl::StrCat("\"", v, "\""); }
    std::string operator()(bool v) const { return v ? "true" : "false"; }
    std::string operator()(float v) const { return absl::StrCat(v); }
    std::string operator()(const std::vector<int64_t>& v) const {
      return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
    }
  };
  return std::visit(Visitor{}, value);
}

}  // namespace seam::tools
