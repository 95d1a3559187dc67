// The StableHLO reader's parser (read_parser.cc: modules, functions, generic ops, types,
// attributes; read_pretty.cc: the pretty forms of the common ops). Internal to the reader.
#ifndef SEAM_STABLEHLO_READ_PARSER_H_
#define SEAM_STABLEHLO_READ_PARSER_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "src/stablehlo/read_syntax.h"

namespace seam::stablehlo::syntax {

class Parser {
 public:
  Parser(std::string_view text, Pos start, Strings* strings)
      : lexer_(text, start, strings), strings_(strings) {}

  absl::Status Start() { return Advance(); }
  absl::StatusOr<Module> ParseModuleText();

  // Attribute values and types, also used on the inside of angled tokens.
  absl::StatusOr<Attr> ParseAttrValue();
  absl::StatusOr<Attr> ParseAttrValueInner();
  absl::Status ParseAttrDict(AttrMap* attrs);
  absl::StatusOr<Type> ParseType();
  bool AtEnd() const { return tok_.kind == Tok::kEnd; }
  const Token& tok() const { return tok_; }

 private:
  absl::Status Advance();
  absl::Status Unexpected(std::string_view expected) const;
  bool AtPunct(char c) const { return tok_.kind == Tok::kPunct && tok_.text[0] == c; }
  bool AtIdent(std::string_view word) const {
    return tok_.kind == Tok::kIdent && tok_.text == word;
  }
  // `where` (and `what` below) is only read to build an error.
  absl::Status Expect(char c, std::string_view where);
  absl::Status ExpectIdent(std::string_view word, std::string_view where);
  absl::StatusOr<int64_t> ParseInt(std::string_view what, std::string_view of = {});
  absl::StatusOr<std::vector<int64_t>> ParseIntList(std::string_view what);  // [1, 2]

  absl::Status ParseFunction(Module* module);
  absl::Status ParseBlockBody(Block* block, Pos open);
  absl::Status ParseOp(Op* op);
  absl::Status ParseGenericOp(Op* op);
  absl::Status ParseRegions(Op* op);
  absl::Status ParseRegionList(Op* op);
  absl::Status ParseOperandList(Op* op, char close);
  absl::StatusOr<ValueUse> ParseValueUse();
  absl::Status ParseSignature(Op* op);
  absl::Status ParseTypeList(std::vector<Type>* types);
  absl::Status SkipLocation();

  // Angled attributes.
  absl::StatusOr<Attr> ParseAngledAttr();
  absl::Status ParseDense(Attr* attr);
  absl::Status ParseStructFields(Attr* attr);
  absl::Status ParseConvDims(Attr* attr);

  // Pretty forms (read_pretty.cc).
  absl::Status ParsePrettyOp(Op* op);
  absl::Status ParseReturn(Op* op);
  absl::Status ParsePrettyReduce(Op* op);
  absl::Status ParsePrettyDot(Op* op);
  absl::Status ParsePrettyCompare(Op* op);
  absl::Status ParsePrettyOperands(Op* op);

  Lexer lexer_;
  Strings* strings_;
  Token tok_;
  Token prev_;
  // Nesting of regions and of attribute values, bounded so that hostile input cannot
  // exhaust the stack (kMaxNesting).
  int region_depth_ = 0;
  int attr_depth_ = 0;
};

}  // namespace seam::stablehlo::syntax

#endif  // SEAM_STABLEHLO_READ_PARSER_H_
