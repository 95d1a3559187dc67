// Trains a small causal transformer language model on the English fortunes of Debian's
// `fortunes` package, one character (byte) per token, lazily: each step records forward,
// backward and the AdamW update, and one sync runs them as one program. Prints the
// validation loss in bits per character every --eval-every steps and, at the end, a sampled
// continuation of a prompt. bench/char_transformer_twin.cc is the same model in libtorch:
// with --init-weights FILE here and --load-weights FILE there, both start from the same
// weights, draw the same batches (corpus.h) and print comparable validation losses.
//
//   PJRT_DEVICE=CPU ./char_transformer [--steps N] [--data DIR] [--init-weights FILE] ...
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "examples/char_transformer/corpus.h"
#include "examples/char_transformer/model.h"
#include "seam/checkpoint.h"
#include "seam/metrics.h"
#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"

namespace char_transformer {
namespace {

using seam::Tensor;

struct Options {
  std::string data = kFortunesDir;
  ModelConfig model;
  int64_t steps = 2000;
  int64_t batch = 32;
  float lr = 2e-3f;
  float weight_decay = 0.01f;
  int64_t eval_every = 250;
  int64_t val_windows = 256;
  uint64_t seed = 1;       // initial weights
  uint64_t data_seed = 2;  // batch order (corpus.h)
  std::string init_weights, load_weights, save;
  std::string prompt = "The ";
  int64_t sample_length = 200;
  double temperature = 0.8;
  uint64_t sample_seed = 3;
};

// Steps left out of the steady-state figure printed at the end (as bench/'s step benches
// warm up): the first compiles the step and touches its memory for the first time.
constexpr int64_t kWarmupSteps = 3;

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// The mean cross-entropy (nats) over the validation windows, all in one forward pass.
double ValidationLoss(const CharTransformer& model, const Corpus& corpus, int64_t windows) {
  const int64_t context = model.config.context;
  std::vector<int32_t> inputs, targets;
  ValidationWindows(corpus, windows, context, &inputs, &targets);
  Tensor x = Tensor::from_vector(inputs, {windows, context});
  Tensor y = Tensor::from_vector(targets, {windows * context});
  Tensor logits = model.forward(x).reshape({windows * context, model.config.vocab});
  return static_cast<double>(seam::nn::cross_entropy(logits, y).item<float>());
}

void PrintValidation(int64_t step, double nats) {
  std::printf("step %lld  val %.4f bits/char  (%.4f nats)\n", static_cast<long long>(step),
              nats / std::log(2.0), nats);
  std::fflush(stdout);
}

// The prompt continued by `length` tokens, each drawn from the model's distribution at the
// last position of a window of the last `context` tokens (a shorter text is padded at the
// end; causal attention keeps the padding out of earlier positions). One program shape.
std::string Sample(const CharTransformer& model, const Corpus& corpus, const Options& options) {
  const int64_t context = model.config.context, vocab = model.config.vocab;
  std::vector<int32_t> text = Encode(corpus, options.prompt);
  BatchSampler random(corpus, 1, context, options.sample_seed);  // its generator only
  std::vector<int32_t> window(static_cast<size_t>(context));
  for (int64_t i = 0; i < options.sample_length; ++i) {
    const auto have = static_cast<int64_t>(text.size());
    const int64_t first = have > context ? have - context : 0;
    const int64_t used = have - first;
    for (int64_t j = 0; j < context; ++j) {
      window[static_cast<size_t>(j)] = j < used ? text[static_cast<size_t>(first + j)] : 0;
    }
    std::vector<float> logits =
        model.forward(Tensor::from_vector(window, {1, context})).to_vector<float>();
    std::vector<float> last(logits.begin() + (used - 1) * vocab, logits.begin() + used * vocab);
    text.push_back(SampleToken(last, options.temperature, random.NextRandom()));
  }
  return Decode(corpus, text);
}

// Starting weights: drawn from --seed, or read from --load-weights; written to
// --init-weights when asked.
void PrepareWeights(CharTransformer& model, const Options& options) {
  if (!options.load_weights.empty()) {
    model.load_state_dict(seam::checkpoint::load_file(options.load_weights).tensors);
    std::printf("initial weights read from %s\n", options.load_weights.c_str());
  }
  if (!options.init_weights.empty()) {
    seam::checkpoint::save_file(options.init_weights, model.state_dict(),
                                {{"vocab", std::to_string(model.config.vocab)},
                                 {"width", std::to_string(model.config.width)},
                                 {"layers", std::to_string(model.config.layers)},
                                 {"heads", std::to_string(model.config.heads)},
                                 {"context", std::to_string(model.config.context)}});
    std::printf("initial weights written to %s\n", options.init_weights.c_str());
  }
}

int Run(Options options) {
  const int64_t context = options.model.context, batch = options.batch;
  Corpus corpus = LoadCorpus(options.data, context);
  options.model.vocab = static_cast<int64_t>(corpus.vocabulary.size());
  std::printf(
      "fortunes: %zu files, %lld bytes, vocabulary %lld, %zu training and %zu "
      "validation tokens\n",
      corpus.files.size(), static_cast<long long>(corpus.bytes),
      static_cast<long long>(options.model.vocab), corpus.train.size(), corpus.validation.size());
  CharTransformer model(options.model, options.seed);
  std::printf("model: %lld layers, width %lld, %lld heads, context %lld, %lld parameters\n",
              static_cast<long long>(options.model.layers),
              static_cast<long long>(options.model.width),
              static_cast<long long>(options.model.heads), static_cast<long long>(context),
              static_cast<long long>(model.parameter_count()));
  PrepareWeights(model, options);
  seam::optim::AdamW optimizer(model, options.lr, 0.9f, 0.999f, 1e-8f, options.weight_decay);
  BatchSampler sampler(corpus, batch, context, options.data_seed);
  const bool tty = isatty(STDOUT_FILENO) != 0;
  PrintValidation(0, ValidationLoss(model, corpus, options.val_windows));

  std::vector<int32_t> inputs, targets;
  Tensor loss_sum = Tensor::zeros({});
  int64_t since_print = 0;
  double train_seconds = 0, cpu_seconds = 0;
  // Training time up to the end of step kWarmupSteps (compiles, the first touch of the
  // step's memory), so that the steady step can be reported beside the average.
  double warm_seconds = 0, warm_cpu_seconds = 0;
  auto start = std::chrono::steady_clock::now();
  std::clock_t cpu_start = std::clock();
  for (int64_t step = 1; step <= options.steps; ++step) {
    sampler.Next(&inputs, &targets);
    Tensor x = Tensor::from_vector(inputs, {batch, context});
    Tensor y = Tensor::from_vector(targets, {batch * context});
    Tensor loss = seam::nn::cross_entropy(
        model.forward(x).reshape({batch * context, options.model.vocab}), y);
    optimizer.step(loss);
    loss_sum.assign(loss_sum + loss);
    seam::sync();  // forward + backward + update + running loss: one program
    ++since_print;
    if (step == kWarmupSteps && options.steps > kWarmupSteps) {
      (void)loss.item<float>();  // waits for the step: its work counts as warm-up
      warm_seconds = train_seconds + Seconds(start);
      warm_cpu_seconds =
          cpu_seconds + static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
    }
    const bool eval = step % options.eval_every == 0 || step == options.steps;
    if (eval || (tty && step % 10 == 0)) {
      const double mean = loss_sum.item<float>() / static_cast<double>(since_print);
      const double elapsed = Seconds(start);
      std::printf("%sstep %lld/%lld  loss %.4f  %.0f chars/s  %.1f ms/step%s",
                  tty ? "\r\033[K" : "", static_cast<long long>(step),
                  static_cast<long long>(options.steps), mean,
                  static_cast<double>(since_print * batch * context) / elapsed,
                  1e3 * elapsed / static_cast<double>(since_print), eval || !tty ? "\n" : "");
      std::fflush(stdout);
      if (eval) {
        train_seconds += elapsed;
        cpu_seconds += static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
        loss_sum.assign(Tensor::zeros({}));
        since_print = 0;
        PrintValidation(step, ValidationLoss(model, corpus, options.val_windows));
        start = std::chrono::steady_clock::now();
        cpu_start = std::clock();
      }
    }
  }
  std::printf(
      "trained %lld steps in %.1f s (%.1f ms/step, %.1f ms/step of process CPU time; "
      "evaluation excluded)\n",
      static_cast<long long>(options.steps), train_seconds,
      1e3 * train_seconds / static_cast<double>(options.steps),
      1e3 * cpu_seconds / static_cast<double>(options.steps));
  if (options.steps > kWarmupSteps) {
    const auto steady = static_cast<double>(options.steps - kWarmupSteps);
    std::printf("after the first %lld steps: %.1f ms/step, %.1f ms/step of process CPU time\n",
                static_cast<long long>(kWarmupSteps), 1e3 * (train_seconds - warm_seconds) / steady,
                1e3 * (cpu_seconds - warm_cpu_seconds) / steady);
  }
  if (!options.save.empty()) {
    seam::checkpoint::save_file(options.save, model.state_dict());
    std::printf("weights written to %s\n", options.save.c_str());
  }
  if (options.sample_length > 0) {
    std::printf("sample (temperature %.2f, seed %llu):\n%s\n\n", options.temperature,
                static_cast<unsigned long long>(options.sample_seed),
                Sample(model, corpus, options).c_str());
  }
  std::printf("%s", seam::metrics::CreateMetricReport().c_str());
  return 0;
}

int Main(int argc, char** argv) {
  CLI::App app{
      "Trains a character-level causal transformer on Debian's English fortunes with "
      "seam's lazy tensors"};
  Options o;
  const auto positive = CLI::Range(int64_t{1}, int64_t{1} << 40);
  app.add_option("--data", o.data, "Folder of fortune files (default: " + o.data + ")");
  app.add_option("--steps", o.steps, "Training steps (default 2000)")->check(positive);
  app.add_option("--batch", o.batch, "Windows per batch (default 32)")->check(positive);
  app.add_option("--context", o.model.context, "Tokens per window (default 64)")->check(positive);
  app.add_option("--width", o.model.width, "Model width (default 128)")->check(positive);
  app.add_option("--layers", o.model.layers, "Transformer blocks (default 4)")->check(positive);
  app.add_option("--heads", o.model.heads, "Attention heads; divides --width (default 4)")
      ->check(positive);
  app.add_option("--lr", o.lr, "AdamW learning rate (default 2e-3)")->check(CLI::Range(0.0f, 1.0f));
  app.add_option("--weight-decay", o.weight_decay, "AdamW weight decay (default 0.01)")
      ->check(CLI::Range(0.0f, 1.0f));
  app.add_option("--eval-every", o.eval_every, "Steps between validation losses (default 250)")
      ->check(positive);
  app.add_option("--val-windows", o.val_windows, "Validation windows (default 256)")
      ->check(positive);
  app.add_option("--seed", o.seed, "Seed of the initial weights (default 1)");
  app.add_option("--data-seed", o.data_seed, "Seed of the batch order (default 2)");
  app.add_option("--init-weights", o.init_weights,
                 "Write the initial weights to FILE (safetensors, PyTorch names and layouts)");
  app.add_option("--load-weights", o.load_weights,
                 "Start from the weights in FILE (safetensors) instead of drawing them");
  app.add_option("--save", o.save, "Write the trained weights to FILE (safetensors)");
  app.add_option("--prompt", o.prompt, "Text the sample continues (default \"The \")");
  app.add_option("--sample-length", o.sample_length, "Characters to sample; 0: none (default 200)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 20));
  app.add_option("--temperature", o.temperature, "Sampling temperature (default 0.8)")
      ->check(CLI::Range(1e-3, 100.0));
  app.add_option("--sample-seed", o.sample_seed, "Seed of the sample (default 3)");
  CLI11_PARSE(app, argc, argv);
  if (o.model.width % o.model.heads != 0) {
    throw std::invalid_argument("--width " + std::to_string(o.model.width) +
                                " is not a multiple of --heads " + std::to_string(o.model.heads));
  }
  if (o.prompt.empty() && o.sample_length > 0) {
    throw std::invalid_argument("--prompt is empty: the sample needs at least one character");
  }
  return Run(o);
}

}  // namespace
}  // namespace char_transformer

int main(int argc, char** argv) {
  try {
    return char_transformer::Main(argc, argv);
  } catch (const seam::Error& error) {
    std::fprintf(stderr, "char_transformer: %s\n", error.what());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "char_transformer: %s\n", error.what());
  }
  return 1;
}
