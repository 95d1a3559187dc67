// Writes the fuzzer's seed corpus: for every op of ops.def, the first conformance case
// (src/conformance/op_cases.h: the smallest rank the op allows) on each dtype the op
// accepts, as IR text of at most 4096 bytes (the fuzzer's max_len), one file each, into
// the directory given. Run by hand when ops change:
//   build-sanitize/tests/fuzz/make_ir_corpus tests/fuzz/corpus
#include <cstdio>
#include <string>

#include "src/conformance/op_cases.h"
#include "src/ir/text.h"
#include "src/ir/verifier.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_ir_corpus DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  int written = 0;
  for (int o = 0; o < seam::ir::kNumOps; ++o) {
    const auto op = static_cast<seam::ir::Op>(o);
    for (int d = 0; d < seam::ir::kNumDTypes; ++d) {
      const auto dtype = static_cast<seam::ir::DType>(d);
      std::vector<seam::conformance::OpCase> cases = seam::conformance::MakeCases(op, dtype, 1);
      for (size_t k = 0; k < cases.size() && k < 1; ++k) {
        if (!seam::ir::VerifyProgram(cases[k].program).ok()) continue;  // dtype not accepted
        const std::string text = seam::ir::PrintProgram(cases[k].program);
        if (text.size() > 4096) continue;
        const std::string path = dir + "/" + std::string(seam::ir::OpName(op)) + "_" +
                                 std::string(seam::ir::DTypeName(dtype)) + "_" + std::to_string(k) +
                                 ".txt";
        std::FILE* f = std::fopen(path.c_str(), "w");
        if (f == nullptr) {
          std::perror(path.c_str());
          return 1;
        }
        std::fwrite(text.data(), 1, text.size(), f);
        std::fclose(f);
        ++written;
      }
    }
  }
  std::printf("%d programs written to %s\n", written, dir.c_str());
  return 0;
}
