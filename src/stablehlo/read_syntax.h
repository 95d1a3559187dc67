// The StableHLO reader's syntax tree and its lexer and parser (read_lexer.cc,
// read_parser.cc, read_pretty.cc): MLIR text to modules, functions, ops, attributes and
// types, before any op is mapped to seam's IR (read_convert.cc). Internal to the reader.
#ifndef SEAM_STABLEHLO_READ_SYNTAX_H_
#define SEAM_STABLEHLO_READ_SYNTAX_H_

#include <algorithm>
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace seam::stablehlo::syntax {

struct Pos {
  int line = 1;
  int col = 1;
};

// absl::StrCat that also takes std::string_view (this abseil's absl::string_view is a type
// of its own, and the syntax tree's text is std::string_view).
inline absl::string_view ForCat(std::string_view text) { return {text.data(), text.size()}; }
template <typename T>
const T& ForCat(const T& value) {
  return value;
}
template <typename... Args>
std::string Cat(const Args&... args) {
  return absl::StrCat(ForCat(args)...);
}

// "line L, column C: message" as InvalidArgument.
absl::Status ErrorAt(Pos pos, const std::string& message);
// The text quoted for a message: at most 40 bytes, control bytes as \xNN.
std::string Quote(std::string_view text);
// A value's name quoted with its '%'.
std::string QuoteValue(std::string_view name);

enum class Tok {
  kIdent,   // [A-Za-z_][A-Za-z0-9_$.]*: func.func, stablehlo.add, f32, x, true
  kValue,   // %name, text without '%'; `index` holds #k (or -1)
  kSymbol,  // @name or @"quoted"; text is the name
  kBlock,   // ^bb0
  kInt,     // 12, -3, 0x7FC00000 (hex: text keeps "0x")
  kFloat,   // 1.5, -2.0e-03
  kString,  // "..." (text is the unescaped content)
  kAngled,  // word<...>: tensor<4xf32>, array<i64: 1>, dense<...>, #stablehlo.dot<...>;
            // text is the word (with a leading '#' for attributes), inner the content
  kArrow,   // ->
  kPunct,   // one of ( ) { } [ ] , = : < > * ?
  kOther,   // any other byte
  kEnd,
};

// The text of every token, and of everything the syntax tree names, is a view into the
// module's text, except for strings with escapes: those are unescaped into a Strings store
// that the Module owns. Either way the views live as long as the text and the Module.
using Strings = std::deque<std::string>;

struct Token {
  Tok kind = Tok::kEnd;
  std::string_view text;
  std::string_view inner;  // kAngled only
  Pos inner_pos;           // kAngled: where `inner` starts
  int64_t index = -1;      // kValue: the #k suffix
  Pos pos;
};

class Lexer {
 public:
  Lexer(std::string_view text, Pos start, Strings* strings)
      : text_(text), line_(start.line), col_(start.col), strings_(strings) {}
  // The next token into `tok`; an error for an unterminated string or '<'.
  absl::Status Next(Token* tok);

 private:
  void Skip();
  char Peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  void Bump() {
    if (text_[pos_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++pos_;
  }
  void BumpSameLine(size_t n) {  // n bytes known to hold no newline
    pos_ += n;
    col_ += static_cast<int>(n);
  }
  absl::Status LexAngled(Token* tok);
  absl::Status LexString(Token* tok);
  void LexNumber(Token* tok);

  std::string_view text_;
  size_t pos_ = 0;
  int line_;
  int col_;
  Strings* strings_;
};

// A type's dimensions: up to kInline of them in place (no allocation for the usual ranks),
// more on the heap.
class Dims {
 public:
  static constexpr size_t kInline = 6;
  Dims() = default;
  Dims(std::initializer_list<int64_t> dims) {
    for (int64_t d : dims) push_back(d);
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const int64_t* begin() const { return size_ <= kInline ? inline_ : heap_.data(); }
  const int64_t* end() const { return begin() + size_; }
  int64_t operator[](size_t i) const { return begin()[i]; }
  void push_back(int64_t d) {
    if (size_ < kInline) {
      inline_[size_] = d;
    } else {
      if (size_ == kInline) heap_.assign(inline_, inline_ + kInline);
      heap_.push_back(d);
    }
    ++size_;
  }
  bool operator==(const Dims& other) const {
    return size_ == other.size_ && std::equal(begin(), end(), other.begin());
  }

 private:
  int64_t inline_[kInline] = {};
  size_t size_ = 0;
  std::vector<int64_t> heap_;  // every dimension, once there are more than kInline
};

// A tensor type, tensor<d0xd1x...xT>: element type as written (f32, i1, ui64, ...), a
// view of a static name.
struct Type {
  Dims dims;
  std::string_view element;
  Pos pos;
  std::string ToString() const;
  bool operator==(const Type& other) const {
    return dims == other.dims && element == other.element;
  }
};

// One value of a dense<...>, as written.
struct DenseValue {
  Tok kind = Tok::kInt;  // kInt, kFloat or kIdent (true, false)
  std::string_view text;
  Pos pos;
};

struct Attr;
struct NamedAttr;

// Attributes by name: a small vector kept sorted by name, so that iteration visits them in
// name order; a repeated name replaces the earlier value.
class AttrMap {
 public:
  using const_iterator = std::vector<NamedAttr>::const_iterator;
  const_iterator begin() const;
  const_iterator end() const;
  size_t size() const;
  const_iterator find(std::string_view name) const;
  // The value under `name`, inserted (default) when absent.
  Attr& operator[](std::string_view name);

 private:
  std::vector<NamedAttr> entries_;
};

struct Attr {
  enum Kind {
    kInt,  // 3 : i64, true / false (kBool)
    kBool,
    kFloat,
    kString,
    kArray,   // array<i64: 1, 2>
    kList,    // [a, b, ...]
    kDense,   // dense<...> : tensor<...>
    kEnum,    // #stablehlo<comparison_direction EQ>: text = "comparison_direction", word = "EQ"
    kStruct,  // #stablehlo.dot<k = v, ...>, #stablehlo.conv<...>: text = "stablehlo.dot"
    kWord,    // a bare word (HIGHEST, EQ in pretty forms)
    kUnit,    // a name without a value
  };
  Kind kind = kUnit;
  bool splat = false;
  bool has_blob = false;
  int64_t i = 0;
  std::string_view text;
  std::string_view word;
  std::vector<int64_t> ints;
  std::vector<Attr> items;
  AttrMap fields;
  // kDense: the values as written, flattened (splat: one value, `splat` true), or the hex
  // blob of dense<"0x...">; the type after ':'.
  std::vector<DenseValue> values;
  std::string_view blob;
  Type type;
  Pos pos;
};

struct NamedAttr {
  std::string_view first;
  Attr second;
};

inline AttrMap::const_iterator AttrMap::begin() const { return entries_.begin(); }
inline AttrMap::const_iterator AttrMap::end() const { return entries_.end(); }
inline size_t AttrMap::size() const { return entries_.size(); }

inline AttrMap::const_iterator AttrMap::find(std::string_view name) const {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->first == name) return it;
  }
  return entries_.end();
}

inline Attr& AttrMap::operator[](std::string_view name) {
  auto it = entries_.begin();
  while (it != entries_.end() && it->first < name) ++it;
  if (it != entries_.end() && it->first == name) return it->second;
  return entries_.insert(it, NamedAttr{name, Attr()})->second;
}

struct ValueUse {
  std::string_view name;
  int64_t index = 0;  // #k
  Pos pos;
  std::string Key() const;  // "name" or "name#k"
};

struct Op;

struct Block {
  std::vector<std::string_view> arg_names;
  std::vector<Type> arg_types;
  std::vector<Op> ops;
  Pos pos;
};

struct Op {
  std::string_view result;  // the result name (without '%'), empty when none
  int64_t num_results = 0;
  std::string_view name;  // "stablehlo.add", "return"
  std::vector<ValueUse> operands;
  std::vector<Block> regions;
  AttrMap attrs;
  std::vector<Type> operand_types;
  std::vector<Type> result_types;
  Pos pos;
  Pos name_pos;
};

struct Argument {
  std::string_view name;
  Type type;
  AttrMap attrs;
};

struct Module {
  std::string_view name = "main";
  AttrMap attrs;
  std::vector<Argument> args;
  std::vector<Type> results;
  Block body;  // the ops of @main, ending with return
  // Unescaped strings the views above may point into (see Strings).
  std::unique_ptr<Strings> strings;
};

// Parses the text into the one module it holds (read_parser.cc).
absl::StatusOr<Module> ParseModule(std::string_view text);

// The most bytes a constant may hold, and the most values a dense<...> may list; larger
// sizes are refused before anything is allocated for them (docs/stablehlo.md).
inline constexpr int64_t kMaxConstantBytes = int64_t{1} << 28;
// The deepest nesting of regions, and of attribute values ([..], {..}), the reader takes.
inline constexpr int kMaxNesting = 32;

}  // namespace seam::stablehlo::syntax

#endif  // SEAM_STABLEHLO_READ_SYNTAX_H_
