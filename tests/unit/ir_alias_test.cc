// Input/output aliases (buffer donation): text form, verifier and hash.
#include <string>

#include "gtest/gtest.h"
#include "src/ir/hash.h"
#include "src/ir/text.h"
#include "src/ir/verifier.h"

namespace seam::ir {
namespace {

constexpr char kAliased[] =
    "program @step replicas=1 {\n"
    "  %0 = parameter(0) : f32[2,3]\n"
    "  %1 = parameter(1) : f32[2,3]\n"
    "  %2 = add(%0, %1) : f32[2,3]\n"
    "  %3 = reduce_sum(%2), axes={1} : f32[2]\n"
    "  alias output 1 = parameter 0\n"
    "  return (%3, %2)\n"
    "}\n";

Program Parse(const std::string& text) {
  absl::StatusOr<Program> program = ParseProgram(text);
  EXPECT_TRUE(program.ok()) << program.status();
  return program.ok() ? *program : Program{};
}

TEST(IrAliasTest, ParsesAndRoundTrips) {
  Program program = Parse(kAliased);
  ASSERT_EQ(program.aliases.size(), 1u);
  EXPECT_EQ(program.aliases[0], (Alias{1, 0}));
  EXPECT_EQ(PrintProgram(program), kAliased);
  EXPECT_EQ(Parse(PrintProgram(program)), program);
}

TEST(IrAliasTest, PrintsInOrderBeforeReturn) {
  Program program = Parse(kAliased);
  program.aliases = {{1, 1}, {0, 0}};
  program.results = {2, 2};
  program.instructions.pop_back();
  std::string text = PrintProgram(program);
  EXPECT_NE(text.find("  alias output 1 = parameter 1\n  alias output 0 = parameter 0\n"
                      "  return (%2, %2)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(Parse(text), program);
}

TEST(IrAliasTest, HashCoversAliases) {
  Program program = Parse(kAliased);
  Program plain = program;
  plain.aliases.clear();
  Program other = program;
  other.aliases[0].parameter_index = 1;
  EXPECT_NE(HashProgram(program), HashProgram(plain));
  EXPECT_NE(HashProgram(program), HashProgram(other));
  EXPECT_EQ(HashProgram(Parse(PrintProgram(program))), HashProgram(program));
}

void ExpectInvalid(std::vector<Alias> aliases, const std::string& message) {
  Program program = Parse(kAliased);
  program.aliases = std::move(aliases);
  int bad = 0;
  absl::Status status = VerifyAliases(program, &bad);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), message);
  EXPECT_EQ(VerifyProgram(program).message(), message);
  EXPECT_EQ(bad, static_cast<int>(program.aliases.size()) - 1);
}

TEST(IrAliasTest, VerifierNamesTheAliasAndTheProblem) {
  ExpectInvalid({{0, 3}}, "alias output 0 = parameter 3: the program has 2 parameters");
  ExpectInvalid({{2, 0}}, "alias output 2 = parameter 0: the program has 2 outputs");
  ExpectInvalid({{-1, 0}}, "alias output -1 = parameter 0: the program has 2 outputs");
  ExpectInvalid({{0, 0}},
                "alias output 0 = parameter 0: output 0 is f32[2], parameter 0 is f32[2,3]");
  ExpectInvalid({{1, 0}, {1, 1}},
                "alias output 1 = parameter 1: output 1 is already aliased (to parameter 0)");
}

TEST(IrAliasTest, EachParameterAliasedOnce) {
  Program program = Parse(kAliased);
  program.results = {2, 2};
  program.instructions.pop_back();
  program.aliases = {{0, 0}, {1, 0}};
  EXPECT_EQ(VerifyProgram(program).message(),
            "alias output 1 = parameter 0: parameter 0 is already aliased (to output 0)");
}

TEST(IrAliasTest, DTypeMustMatch) {
  absl::StatusOr<Program> program = ParseProgram(
      "program @p {\n"
      "  %0 = parameter(0) : s32[2]\n"
      "  %1 = convert(%0) : f32[2]\n"
      "  alias output 0 = parameter 0\n"
      "  return (%1)\n"
      "}\n");
  ASSERT_FALSE(program.ok());
  EXPECT_EQ(program.status().message(),
            "line 4: alias output 0 = parameter 0: output 0 is f32[2], parameter 0 is s32[2]");
}

TEST(IrAliasTest, ParserErrorsNameTheLine) {
  absl::StatusOr<Program> program = ParseProgram(
      "program @p {\n"
      "  %0 = parameter(0) : f32[2]\n"
      "  alias output 0 = parameter 7\n"
      "  return (%0)\n"
      "}\n");
  ASSERT_FALSE(program.ok());
  EXPECT_EQ(program.status().message(),
            "line 3: alias output 0 = parameter 7: the program has 1 parameters");
  program = ParseProgram(
      "program @p {\n"
      "  %0 = parameter(0) : f32[2]\n"
      "  alias input 0 = parameter 0\n"
      "  return (%0)\n"
      "}\n");
  ASSERT_FALSE(program.ok());
  EXPECT_EQ(program.status().message(), "line 3: expected 'output' after 'alias', found 'input'");
  program = ParseProgram(
      "program @p {\n"
      "  %0 = parameter(0) : f32[2]\n"
      "  alias output 0 parameter 0\n"
      "  return (%0)\n"
      "}\n");
  ASSERT_FALSE(program.ok());
  EXPECT_EQ(program.status().message(),
            "line 3: expected '=' after the alias's output index, found 'parameter'");
}

}  // namespace
}  // namespace seam::ir
