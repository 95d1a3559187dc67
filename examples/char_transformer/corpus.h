// The character data of examples/char_transformer, shared with its libtorch twin
// (bench/char_transformer_twin.cc) so that both read the same text, build the same
// vocabulary and draw the same batches. Plain C++: no seam, no libtorch.
//
// The text: every regular file directly under the folder (Debian's `fortunes` package puts
// its English fortunes in /usr/share/games/fortunes), sorted by name, skipping the `.dat`
// index files and symbolic links (the `.u8` names are links), concatenated byte for byte.
// The vocabulary: the distinct bytes of that text in increasing order (token i is the i-th
// smallest byte). The split: the last 10% of the text (rounded down to whole bytes) is the
// validation set, the rest the training set.
#ifndef SEAM_EXAMPLES_CHAR_TRANSFORMER_CORPUS_H_
#define SEAM_EXAMPLES_CHAR_TRANSFORMER_CORPUS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace char_transformer {

inline constexpr const char* kFortunesDir = "/usr/share/games/fortunes";

struct Corpus {
  std::vector<std::string> files;          // the files read, in order
  std::vector<uint8_t> vocabulary;         // token -> byte
  std::vector<int32_t> train, validation;  // the text as tokens
  int64_t bytes = 0;                       // the whole text's size
};

// Reads and tokenizes the text under `dir`. A missing folder, a folder without a text file
// or a text too short for `context` (each split needs at least context + 1 tokens) throws
// std::runtime_error naming the folder and the problem.
Corpus LoadCorpus(const std::string& dir, int64_t context);

// The batch rule (documented in docs/examples.md): a generator seeded with `seed` (the
// 64-bit SplitMix64 sequence, so any language can reproduce it); row r of a batch starts at
// next() % (train.size() - context) and holds `context` tokens; its targets are the same
// window shifted by one token.
class BatchSampler {
 public:
  BatchSampler(const Corpus& corpus, int64_t batch, int64_t context, uint64_t seed);
  // The next batch: inputs and targets, each batch * context tokens, row-major.
  void Next(std::vector<int32_t>* inputs, std::vector<int32_t>* targets);
  uint64_t NextRandom();

 private:
  const Corpus& corpus_;
  int64_t batch_, context_;
  uint64_t state_;
};

// The validation windows: `count` windows of `context` tokens (plus one target token each)
// whose starts are spread evenly over the validation text, start k = k * stride with
// stride = (validation.size() - context - 1) / max(count - 1, 1). Inputs and targets of
// window k fill row k.
void ValidationWindows(const Corpus& corpus, int64_t count, int64_t context,
                       std::vector<int32_t>* inputs, std::vector<int32_t>* targets);

// Tokens of `text`; a byte outside the vocabulary throws std::runtime_error naming it.
std::vector<int32_t> Encode(const Corpus& corpus, const std::string& text);
std::string Decode(const Corpus& corpus, const std::vector<int32_t>& tokens);

// A token drawn from softmax(logits / temperature) by inverse transform with the uniform
// u = (random >> 11) * 2^-53 (temperature > 0).
int32_t SampleToken(const std::vector<float>& logits, double temperature, uint64_t random);

}  // namespace char_transformer

#endif  // SEAM_EXAMPLES_CHAR_TRANSFORMER_CORPUS_H_
