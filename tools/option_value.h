// How the `seam` commands print a plugin attribute's or option's value.
#ifndef SEAM_TOOLS_OPTION_VALUE_H_
#define SEAM_TOOLS_OPTION_VALUE_H_

#include <string>

#include "src/runtime/pjrt/plugin.h"

namespace seam::tools {

// 42, "text" (quoted), true/false, 1.5, [1, 2, 3].
std::string DescribeOptionValue(const runtime::PluginOptionValue& value);

}  // namespace seam::tools

#endif  // SEAM_TOOLS_OPTION_VALUE_H_
