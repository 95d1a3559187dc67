// The StableHLO reader's syntax tree and its lexer and parser (read_lexer.cc,
// read_parser.cc, read_pretty.cc): MLIR text to modules, functions, ops, attributes and
// types, before any op is mapped to seam's IR (read_convert.cc). Internal to the reader.
#ifndef SEAM_STABLEHLO_READ_SYNTAX_H_
#define SEAM_STABLEHLO_READ_SYNTAX_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace seam::stablehlo::syntax {

struct Pos {
  int line = 1;
  int col = 1;
};

// "line L, column C: message" as InvalidArgument.
absl::Status ErrorAt(Pos pos, const std::string& message);
// The text quoted for a message: at most 40 bytes, control bytes as \xNN.
std::string Quote(std::string_view text);
// A value's name quoted with its '%'.
std::string QuoteValue(const std::string& name);

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

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;
  std::string inner;   // kAngled only
  Pos inner_pos;       // kAngled: where `inner` starts
  int64_t index = -1;  // kValue: the #k suffix
  Pos pos;
};

class Lexer {
 public:
  Lexer(std::string_view text, Pos start) : text_(text), line_(start.line), col_(start.col) {}
  absl::StatusOr<Token> Next();

 private:
  void Skip();
  char Peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  void Bump();
  absl::Status LexAngled(Token* tok);
  absl::Status LexString(Token* tok);
  void LexNumber(Token* tok);

  std::string_view text_;
  size_t pos_ = 0;
  int line_;
  int col_;
};

// A tensor type, tensor<d0xd1x...xT>: element type as written (f32, i1, ui64, ...).
struct Type {
  std::vector<int64_t> dims;
  std::string element;
  Pos pos;
  std::string ToString() const;
  bool operator==(const Type& other) const {
    return dims == other.dims && element == other.element;
  }
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
  int64_t i = 0;
  double f = 0;
  std::string text;
  std::string word;
  std::vector<int64_t> ints;
  std::vector<Attr> items;
  std::map<std::string, Attr> fields;
  // kDense: the values as written, flattened (splat: one value, `splat` true), or the hex
  // blob of dense<"0x...">; the type after ':'.
  std::vector<Token> values;
  bool splat = false;
  std::string blob;
  bool has_blob = false;
  Type type;
  Pos pos;
};

struct ValueUse {
  std::string name;
  int64_t index = 0;  // #k
  Pos pos;
  std::string Key() const;  // "name" or "name#k"
};

struct Op;

struct Block {
  std::vector<std::string> arg_names;
  std::vector<Type> arg_types;
  std::vector<Op> ops;
  Pos pos;
};

struct Op {
  std::string result;  // the result name (without '%'), empty when none
  int64_t num_results = 0;
  std::string name;  // "stablehlo.add", "return"
  std::vector<ValueUse> operands;
  std::vector<Block> regions;
  std::map<std::string, Attr> attrs;
  std::vector<Type> operand_types;
  std::vector<Type> result_types;
  Pos pos;
  Pos name_pos;
};

struct Argument {
  std::string name;
  Type type;
  std::map<std::string, Attr> attrs;
};

struct Module {
  std::string name = "main";
  std::map<std::string, Attr> attrs;
  std::vector<Argument> args;
  std::vector<Type> results;
  Block body;  // the ops of @main, ending with return
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
