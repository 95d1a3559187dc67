// Attribute sets of recorded nodes, found by content: each distinct set is built once per
// thread and then shared, so that recording an op with attributes a step recorded before
// builds no map (a std::map of strings and vectors costs several allocations to make and
// as many to free).
#ifndef SEAM_LAZY_ATTRIBUTES_H_
#define SEAM_LAZY_ATTRIBUTES_H_

#include <cstdint>
#include <span>
#include <string_view>

#include "absl/types/span.h"
#include "src/ir/program.h"
#include "src/lazy/lazy_tensor.h"

namespace seam::lazy {

// One attribute by reference (the name and values must outlive the call that takes it;
// values may be a braced list in the call).
struct Attr {
  std::string_view name;
  absl::Span<const int64_t> values;
};

// The shared set holding `attrs`, in any order; of repeated names the first counts (as
// in a map built from the same list). Null when `attrs` is empty.
AttributeSetPtr InternAttributes(std::span<const Attr> attrs);
AttributeSetPtr InternAttributes(const ir::Attributes& attrs);

// Attributes (in name order, names distinct) as words: per attribute the name's length,
// its bytes a word at a time, the number of values and the values. Different lists give
// different words. EncodeAttributes writes AttributeWords(sorted) words to `out`.
size_t AttributeWords(std::span<const Attr> sorted);
void EncodeAttributes(std::span<const Attr> sorted, uint64_t* out);

// Whether two names are equal, compared a word at a time inline (names are short, and
// std::string's comparisons call memcmp).
bool SameName(std::string_view a, std::string_view b);

// The values of attribute `name`, found by SameName (std::map::at builds a std::string and
// calls memcmp); std::out_of_range when there is none, as from at().
const std::vector<int64_t>& AttrValues(const ir::Attributes& attrs, std::string_view name);

// Whether two attribute maps are equal, compared inline (no library call per name or
// value list).
bool SameAttributes(const ir::Attributes& a, const ir::Attributes& b);

}  // namespace seam::lazy

#endif  // SEAM_LAZY_ATTRIBUTES_H_
