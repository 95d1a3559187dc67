#include "src/lazy/recompile_explainer.h"

#include <deque>
#include <map>
#include <mutex>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "src/base/env.h"
#include "src/base/logging.h"
#include "src/base/settings.h"
#include "src/ir/text.h"
#include "src/runtime/metrics.h"

namespace seam::lazy {
namespace {

thread_local SyncSite t_site;

// Programs kept per site for the comparison (only with SEAM_DEBUG=1).
constexpr size_t kProgramsPerSite = 8;

struct Earlier {
  ir::Program program;
  int64_t ordinal = 0;  // 1 for the first program compiled at the site
};

struct SiteHistory {
  int64_t compiles = 0;
  std::deque<Earlier> programs;  // most recent last
};

struct State {
  std::mutex mu;
  std::map<std::string, SiteHistory> sites;
};

State& GetState() {
  static auto* state = new State();
  return *state;
}

absl::StatusOr<bool> DebugEnabled() {
  static const absl::StatusOr<bool>* enabled = [] {
    std::optional<std::string> value = base::ReadSetting(base::Setting::kSeamDebug);
    if (!value || value->empty() || *value == "0") return new absl::StatusOr<bool>(false);
    if (*value == "1") return new absl::StatusOr<bool>(true);
    return new absl::StatusOr<bool>(absl::InvalidArgumentError(
        absl::StrCat("Environment variable SEAM_DEBUG must be 0 or 1, got '", *value, "'")));
  }();
  return *enabled;
}

// The text line of each instruction ("%3 = add(%1, %2) : f32[4]"), by index.
std::vector<std::string> InstructionLines(const ir::Program& program) {
  std::vector<std::string> lines;
  std::string text = ir::PrintProgram(program);
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripLeadingAsciiWhitespace(line);
    if (!line.empty() && line.front() == '%') lines.emplace_back(line);
  }
  return lines;
}

std::string LineOf(const std::vector<std::string>& lines, size_t i) {
  return i < lines.size() ? absl::StrCat("`", lines[i], "`") : "(no instruction)";
}

std::string ScalarText(const ir::Literal& literal) {
  std::string line =
      InstructionLines(
          ir::Program{"c",
                      1,
                      {ir::Instruction{ir::Op::kConstant, {}, literal.shape, {}, -1, literal}},
                      {0},
                      {}})
          .front();
  // "%0 = constant(1) : f32[]" -> "1"
  size_t open = line.find('('), close = line.rfind(')');
  return open == std::string::npos ? line : line.substr(open + 1, close - open - 1);
}

struct Comparison {
  int64_t structural = 0;  // instructions whose op or operands differ (and length change)
  int64_t differing = 0;   // any other differing instructions
  std::string why;
};

Comparison Compare(const ir::Program& before, const ir::Program& now,
                   const std::vector<bool>& now_from_host, bool explain) {
  Comparison c;
  const auto& a = before.instructions;
  const auto& b = now.instructions;
  size_t n = std::min(a.size(), b.size());
  std::vector<std::string> inputs, scalars, constants;
  int64_t first_structural = -1, first_other = -1;
  for (size_t i = 0; i < n; ++i) {
    const ir::Instruction& x = a[i];
    const ir::Instruction& y = b[i];
    if (x == y) continue;
    bool x_param = x.op == ir::Op::kParameter, y_param = y.op == ir::Op::kParameter;
    if (x_param && y_param) {
      ++c.differing;
      if (!explain) continue;
      auto j = static_cast<size_t>(y.parameter_index);
      std::string origin =
          j < now_from_host.size() && now_from_host[j] ? "host data" : "device value";
      inputs.push_back(absl::StrCat("parameter ", y.parameter_index, " (", origin, ", %", i, ") ",
                                    x.shape.ToString(), " -> ", y.shape.ToString()));
      continue;
    }
    if ((x_param && y.op == ir::Op::kConstant) || (x.op == ir::Op::kConstant && y_param)) {
      ++c.differing;
      if (!explain) continue;
      if (x_param) {
        scalars.push_back(absl::StrCat("the input at %", i, " (parameter ", x.parameter_index, ", ",
                                       x.shape.ToString(), ") became the constant ",
                                       ScalarText(y.literal)));
      } else {
        scalars.push_back(absl::StrCat("the constant ", ScalarText(x.literal), " at %", i,
                                       " became an input (parameter ", y.parameter_index, ", ",
                                       y.shape.ToString(), ")"));
      }
      continue;
    }
    if (x.op != y.op || x.operands != y.operands) {
      ++c.structural;
      if (first_structural < 0) first_structural = static_cast<int64_t>(i);
      continue;
    }
    ++c.differing;
    if (x.op == ir::Op::kConstant && explain) {
      constants.push_back(absl::StrCat("the constant at %", i, " changed from ",
                                       ScalarText(x.literal), " to ", ScalarText(y.literal)));
    } else if (first_other < 0) {
      first_other = static_cast<int64_t>(i);
    }
  }
  if (a.size() != b.size()) {
    c.structural += static_cast<int64_t>(std::max(a.size(), b.size()) - n);
    if (first_structural < 0) first_structural = static_cast<int64_t>(n);
  }
  if (!explain) return c;

  std::vector<std::string> parts;
  if (!inputs.empty()) parts.push_back("input shape/dtype changed: " + absl::StrJoin(inputs, "; "));
  if (!scalars.empty()) {
    parts.push_back(absl::StrJoin(scalars, "; ") +
                    " (scalars 0 and +-1 are compiled in, others travel as data)");
  }
  if (!constants.empty()) parts.push_back(absl::StrJoin(constants, "; "));
  if (first_structural >= 0) {
    std::vector<std::string> la = InstructionLines(before), lb = InstructionLines(now);
    auto k = static_cast<size_t>(first_structural);
    parts.push_back(absl::StrCat("the graph structure differs from instruction %", k,
                                 " on: before ", LineOf(la, k), ", now ", LineOf(lb, k), " (",
                                 a.size(), " instructions before, ", b.size(), " now)"));
  } else if (parts.empty() && first_other >= 0) {
    std::vector<std::string> la = InstructionLines(before), lb = InstructionLines(now);
    auto k = static_cast<size_t>(first_other);
    parts.push_back(absl::StrCat("instruction %", k, " differs: before ", LineOf(la, k), ", now ",
                                 LineOf(lb, k)));
  }
  if (parts.empty() && before.results != now.results) {
    parts.push_back(absl::StrCat("the result tuple differs: before (",
                                 absl::StrJoin(before.results, ","), "), now (",
                                 absl::StrJoin(now.results, ","), ")"));
  }
  if (before.aliases != now.aliases) {
    auto print = [](const std::vector<ir::Alias>& aliases) {
      std::vector<std::string> out;
      out.reserve(aliases.size());
      for (const ir::Alias& alias : aliases) {
        out.push_back(absl::StrCat(alias.output_index, "=", alias.parameter_index));
      }
      return absl::StrCat(aliases.size(), " [", absl::StrJoin(out, " "), "]");
    };
    parts.push_back(absl::StrCat("buffer donation differs (output=parameter aliases): before ",
                                 print(before.aliases), ", now ", print(now.aliases)));
  }
  c.why = absl::StrJoin(parts, "; ");
  return c;
}

}  // namespace

std::string SyncSite::Text() const {
  if (!known) return "sync";
  if (op == nullptr) return absl::StrCat(location.file_name(), ":", location.line());
  return absl::StrCat(op, " at ", location.file_name(), ":", location.line());
}

SyncSiteScope::SyncSiteScope(SourceLocation location, const char* op) : previous_(t_site) {
  t_site = SyncSite{op, location, true};
}

SyncSiteScope::~SyncSiteScope() { t_site = previous_; }

std::string ExplainDifference(const ir::Program& before, const ir::Program& now,
                              const std::vector<bool>& now_from_host) {
  return Compare(before, now, now_from_host, /*explain=*/true).why;
}

absl::Status NoteCompileCacheMiss(const ir::Program& program,
                                  const std::vector<std::shared_ptr<DeviceValue>>& parameters) {
  absl::StatusOr<bool> debug = DebugEnabled();
  if (!debug.ok()) return debug.status();
  static metrics::Counter* recompiles = metrics::GetOrCreateCounter("RecompileAfterFirstStep");
  State& state = GetState();
  std::lock_guard<std::mutex> lock(state.mu);
  const std::string site_text = t_site.Text();
  SiteHistory& site = state.sites[site_text];
  ++site.compiles;
  if (site.compiles > 1) recompiles->Add(1);
  if (!*debug) return absl::OkStatus();

  std::vector<bool> from_host;
  from_host.reserve(parameters.size());
  for (const auto& leaf : parameters) from_host.push_back(leaf->host.has_value());
  if (!site.programs.empty()) {
    // The closest earlier program; among equally close ones the most recent (batch 17
    // after batch 13 is explained against 13, not against the 256 of the first step).
    const Earlier* closest = nullptr;
    Comparison best;
    for (auto earlier = site.programs.rbegin(); earlier != site.programs.rend(); ++earlier) {
      Comparison c = Compare(earlier->program, program, from_host, /*explain=*/false);
      if (closest == nullptr || c.structural < best.structural ||
          (c.structural == best.structural && c.differing < best.differing)) {
        closest = &*earlier;
        best = c;
      }
    }
    std::string why = ExplainDifference(closest->program, program, from_host);
    if (why.empty()) {
      why =
          "the program equals one compiled here before, which the compile cache evicted "
          "(XLA_COMPILATION_CACHE_SIZE)";
    }
    base::Log(base::LogSeverity::kInfo,
              absl::StrCat("recompile at ", site_text, ": program ", site.compiles,
                           " compiled here, compared with program ", closest->ordinal, ": ", why));
  }
  site.programs.push_back({program, site.compiles});
  if (site.programs.size() > kProgramsPerSite) site.programs.pop_front();
  return absl::OkStatus();
}

}  // namespace seam::lazy
