#include "src/testing/reduction_cases.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

#include "src/ir/bf16.h"

namespace seam::testing {
namespace {

uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Replica r's element e before conversion to the dtype: small integers (every reduction
// order gives the same bits), or random values.
double RawValue(const ReductionCase& c, int64_t replica, int64_t element) {
  const uint64_t h =
      Mix(static_cast<uint64_t>(replica) * 1000003u + static_cast<uint64_t>(element) * 7919u +
          static_cast<uint64_t>(c.round) * 104729u);
  const double s64_scale = c.dtype == ir::DType::kS64 ? 8589934592.0 : 1.0;  // 2^33
  if (!c.random) return static_cast<double>(static_cast<int64_t>(h % 17) - 8) * s64_scale;
  if (ir::IsInteger(c.dtype)) {
    return static_cast<double>(static_cast<int64_t>(h % 2001) - 1000) * s64_scale;
  }
  return static_cast<double>(h >> 11) * 0x1p-52 - 1.0;  // [-1, 1)
}

template <typename T>
T Apply(const std::string& op, T a, T b) {
  if (op == "max") return a > b ? a : b;
  if (op == "min") return a < b ? a : b;
  return a + b;
}

// The documented order: each process's members folded in the group's order, then the
// processes' partial results folded in ascending process order. `round_each` rounds to
// bf16 after every step (bf16 travels and is combined as bf16, within a process and
// across processes).
template <typename T, typename Load>
T HostReduce(const ReductionCase& c, const std::vector<int64_t>& group, Load load,
             bool round_each) {
  std::vector<int64_t> processes;
  for (int64_t m : group) processes.push_back(m / c.devices);
  std::sort(processes.begin(), processes.end());
  processes.erase(std::unique(processes.begin(), processes.end()), processes.end());
  T result{};
  for (size_t k = 0; k < processes.size(); ++k) {
    T partial{};
    bool first = true;
    for (int64_t m : group) {
      if (m / c.devices != processes[k]) continue;
      partial = first ? load(m) : Apply<T>(c.op, partial, load(m));
      if (round_each) partial = static_cast<T>(ir::BF16ToFloat(ir::FloatToBF16(partial)));
      first = false;
    }
    result = k == 0 ? partial : Apply<T>(c.op, result, partial);
    if (round_each) result = static_cast<T>(ir::BF16ToFloat(ir::FloatToBF16(result)));
  }
  return result;
}

template <typename T>
T LoadAs(const std::vector<uint8_t>& bytes, int64_t element) {
  T value;
  std::memcpy(&value, bytes.data() + element * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return value;
}

template <typename T>
void StoreAs(std::vector<uint8_t>& bytes, int64_t element, T value) {
  std::memcpy(bytes.data() + element * static_cast<int64_t>(sizeof(T)), &value, sizeof(T));
}

}  // namespace

std::string LayoutName(GroupLayout layout) {
  switch (layout) {
    case GroupLayout::kAll:
      return "all";
    case GroupLayout::kReversed:
      return "reversed";
    case GroupLayout::kPairs:
      return "pairs";
    case GroupLayout::kLocal:
      return "local";
  }
  return "?";
}

std::string ReductionCase::Name() const {
  std::ostringstream name;
  name << op << "/" << ir::DTypeName(dtype) << "/" << LayoutName(layout) << "/" << elements
       << (random ? "/random" : "/exact") << "/round" << round;
  return name.str();
}

std::vector<int64_t> ReductionCase::Groups() const {
  const int64_t n = replicas();
  std::vector<int64_t> groups;
  switch (layout) {
    case GroupLayout::kAll:
      for (int64_t r = 0; r < n; ++r) groups.push_back(r);
      break;
    case GroupLayout::kReversed:
      for (int64_t r = n - 1; r >= 0; --r) groups.push_back(r);
      break;
    case GroupLayout::kPairs:
      for (int64_t r = 0; r < n / 2; ++r) {
        groups.push_back(r);
        groups.push_back(r + n / 2);
      }
      break;
    case GroupLayout::kLocal:
      for (int64_t r = 0; r < n; ++r) groups.push_back(r);
      break;
  }
  return groups;
}

int64_t ReductionCase::GroupSize() const {
  switch (layout) {
    case GroupLayout::kPairs:
      return 2;
    case GroupLayout::kLocal:
      return devices;
    default:
      return replicas();
  }
}

PJRT_Buffer_Type ReductionCase::BufferType() const {
  switch (dtype) {
    case ir::DType::kF32:
      return PJRT_Buffer_Type_F32;
    case ir::DType::kF64:
      return PJRT_Buffer_Type_F64;
    case ir::DType::kBF16:
      return PJRT_Buffer_Type_BF16;
    case ir::DType::kS32:
      return PJRT_Buffer_Type_S32;
    case ir::DType::kS64:
      return PJRT_Buffer_Type_S64;
    case ir::DType::kPred:
      return PJRT_Buffer_Type_PRED;
  }
  return PJRT_Buffer_Type_INVALID;
}

std::string ReductionCase::ProgramText() const {
  std::ostringstream groups;
  const std::vector<int64_t> list = Groups();
  for (size_t k = 0; k < list.size(); ++k) groups << (k > 0 ? "," : "") << list[k];
  const std::string shape =
      std::string(ir::DTypeName(dtype)) + "[" + std::to_string(elements) + "]";
  std::ostringstream text;
  text << "program @all_reduce replicas=" << replicas() << " {\n"
       << "  %0 = parameter(0) : " << shape << "\n"
       << "  %1 = all_reduce_" << op << "(%0), group_size={" << GroupSize() << "}, replica_groups={"
       << groups.str() << "} : " << shape << "\n"
       << "  return (%1)\n}\n";
  return text.str();
}

std::vector<uint8_t> ReductionCase::Input(int64_t replica) const {
  std::vector<uint8_t> bytes(static_cast<size_t>(elements) * ir::DTypeSize(dtype));
  for (int64_t e = 0; e < elements; ++e) {
    const double v = RawValue(*this, replica, e);
    switch (dtype) {
      case ir::DType::kF32:
        StoreAs<float>(bytes, e, static_cast<float>(v));
        break;
      case ir::DType::kF64:
        StoreAs<double>(bytes, e, v);
        break;
      case ir::DType::kBF16:
        StoreAs<uint16_t>(bytes, e, ir::FloatToBF16(static_cast<float>(v)));
        break;
      case ir::DType::kS32:
        StoreAs<int32_t>(bytes, e, static_cast<int32_t>(v));
        break;
      case ir::DType::kS64:
        StoreAs<int64_t>(bytes, e, static_cast<int64_t>(v));
        break;
      case ir::DType::kPred:
        break;
    }
  }
  return bytes;
}

std::string ReductionCase::Check(int64_t replica, const std::vector<uint8_t>& got) const {
  const std::vector<int64_t> list = Groups();
  const auto size = static_cast<size_t>(GroupSize());
  const size_t at =
      static_cast<size_t>(std::find(list.begin(), list.end(), replica) - list.begin());
  const std::vector<int64_t> group(
      list.begin() + static_cast<std::ptrdiff_t>(at / size * size),
      list.begin() + static_cast<std::ptrdiff_t>(at / size * size + size));
  std::vector<std::vector<uint8_t>> inputs;
  for (int64_t r = 0; r < replicas(); ++r) inputs.push_back(Input(r));
  int64_t spanned = 0;
  for (int64_t p = 0; p < processes; ++p) {
    spanned += std::any_of(group.begin(), group.end(), [&](int64_t m) { return m / devices == p; });
  }
  const bool exact = !random || op != "sum" || ir::IsInteger(dtype) || spanned <= 2;
  for (int64_t e = 0; e < elements; ++e) {
    double want = 0, value = 0, bound = 0;
    double magnitude = 0;
    for (int64_t m : group) magnitude += std::fabs(RawValue(*this, m, e));
    bool same = false;
    switch (dtype) {
      case ir::DType::kF32: {
        const float w = HostReduce<float>(
            *this, group, [&](int64_t m) { return LoadAs<float>(inputs[m], e); }, false);
        const float g = LoadAs<float>(got, e);
        same = std::memcmp(&w, &g, sizeof(w)) == 0;
        want = w, value = g, bound = static_cast<double>(size) * 0x1p-24 * magnitude;
        break;
      }
      case ir::DType::kF64: {
        const double w = HostReduce<double>(
            *this, group, [&](int64_t m) { return LoadAs<double>(inputs[m], e); }, false);
        const double g = LoadAs<double>(got, e);
        same = std::memcmp(&w, &g, sizeof(w)) == 0;
        want = w, value = g, bound = static_cast<double>(size) * 0x1p-53 * magnitude;
        break;
      }
      case ir::DType::kBF16: {
        const float wide = HostReduce<float>(
            *this, group,
            [&](int64_t m) { return ir::BF16ToFloat(LoadAs<uint16_t>(inputs[m], e)); }, true);
        const uint16_t w = ir::FloatToBF16(wide);
        const uint16_t g = LoadAs<uint16_t>(got, e);
        same = w == g;
        want = ir::BF16ToFloat(w), value = ir::BF16ToFloat(g);
        bound = (0x1p-7 + static_cast<double>(size) * 0x1p-24) * magnitude;
        break;
      }
      case ir::DType::kS32: {
        const int32_t w = HostReduce<int32_t>(
            *this, group, [&](int64_t m) { return LoadAs<int32_t>(inputs[m], e); }, false);
        same = w == LoadAs<int32_t>(got, e);
        want = w, value = LoadAs<int32_t>(got, e);
        break;
      }
      case ir::DType::kS64: {
        const int64_t w = HostReduce<int64_t>(
            *this, group, [&](int64_t m) { return LoadAs<int64_t>(inputs[m], e); }, false);
        same = w == LoadAs<int64_t>(got, e);
        want = static_cast<double>(w), value = static_cast<double>(LoadAs<int64_t>(got, e));
        break;
      }
      case ir::DType::kPred:
        return "pred is not a case";
    }
    if (same || (!exact && std::fabs(value - want) <= bound)) continue;
    std::ostringstream out;
    out.precision(17);
    out << Name() << ": replica " << replica << " element " << e << ": got " << value << ", want "
        << want;
    if (exact) {
      out << " (bit-exact)";
    } else {
      out << " (within " << bound << ")";
    }
    return out.str();
  }
  return "";
}

}  // namespace seam::testing
