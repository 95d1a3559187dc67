// Checkpoint save and load (issue 19's performance goals; BENCHMARKS.md, "Checkpoints"):
// the state of a large MLP with Adam's moments (about 1 GiB; --sizes to change the MLP)
// saved with seam::checkpoint::save_file and loaded with load_file, beside a plain
// write(2)+fsync and read(2) of the same number of bytes in the same run (the read into
// newly allocated memory, as a load fills new tensors, and into the buffer just written
// from, whose pages are already backed); and the peak
// anonymous memory (RssAnon, sampled every millisecond) while loading, above the loaded
// state itself, against the largest tensor.
//
//   checkpoint_bench [--dir DIR] [--sizes 4096,6144,6144,4096] [--rounds 3]
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "seam/checkpoint.h"
#include "seam/nn.h"
#include "seam/optim.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

int64_t RssAnonBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("RssAnon:", 0) == 0) return std::atoll(line.c_str() + 8) * 1024;
  }
  return -1;
}

// The highest RssAnon seen while it lives.
class PeakSampler {
 public:
  PeakSampler()
      : thread_([this] {
          while (!stop_) {
            peak_ = std::max<int64_t>(peak_, RssAnonBytes());
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
          }
        }) {}
  int64_t Stop() {
    stop_ = true;
    thread_.join();
    return std::max<int64_t>(peak_, RssAnonBytes());
  }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> peak_{0};
  std::thread thread_;
};

struct PlainTimes {
  double write_s = 0;       // write + fsync
  double read_warm_s = 0;   // read into the buffer just written from (pages already backed)
  double read_fresh_s = 0;  // read into newly allocated memory, as a load must fill new tensors
};

// Reads `bytes` bytes of `path` into `buffer`.
void ReadAll(const std::string& path, char* buffer, size_t bytes) {
  const int fd = open(path.c_str(), O_RDONLY);
  for (size_t done = 0; done < bytes;) {
    const ssize_t n = read(fd, buffer + done, bytes - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  close(fd);
}

// Plain write + fsync of `bytes` bytes, then two reads of them back.
PlainTimes PlainWriteRead(const std::string& path, size_t bytes) {
  PlainTimes times;
  std::vector<char> buffer(bytes, 1);
  auto start = Clock::now();
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  for (size_t done = 0; done < bytes;)
    done += static_cast<size_t>(write(fd, buffer.data() + done, bytes - done));
  fsync(fd);
  close(fd);
  times.write_s = Seconds(start);
  start = Clock::now();
  ReadAll(path, buffer.data(), bytes);
  times.read_warm_s = Seconds(start);
  buffer = std::vector<char>();  // freed before the fresh read, as a finished load's would be
  start = Clock::now();
  {
    std::unique_ptr<char[]> fresh(new char[bytes]);  // not touched before the read
    ReadAll(path, fresh.get(), bytes);
    times.read_fresh_s = Seconds(start);
  }
  unlink(path.c_str());
  return times;
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::vector<int64_t> ParseSizes(const std::string& text) {
  std::vector<int64_t> sizes;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) sizes.push_back(std::atoll(item.c_str()));
  return sizes;
}

}  // namespace

// The child's part: RssAnon once the client exists, then its peak while `file` loads.
int MeasureLoad(const std::string& file, int64_t bytes, int64_t largest) {
  seam::Tensor warm = seam::Tensor::zeros({1}) + 1.0F;
  warm.item<float>();  // the client and its threads exist now
  const int64_t before = RssAnonBytes();
  PeakSampler sampler;
  seam::checkpoint::Loaded loaded = seam::checkpoint::load_file(file);
  const int64_t peak = sampler.Stop();
  const int64_t above = peak - before - bytes;
  std::printf(
      "load in a fresh process: RssAnon before %.1f MiB, peak %.1f MiB; above the "
      "loaded state %.1f MiB = %.2fx the largest tensor\n",
      static_cast<double>(before) / (1 << 20), static_cast<double>(peak) / (1 << 20),
      static_cast<double>(above) / (1 << 20),
      static_cast<double>(above) / static_cast<double>(largest));
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 5 && std::string(argv[1]) == "--measure-load") {
    return MeasureLoad(argv[2], std::atoll(argv[3]), std::atoll(argv[4]));
  }
  std::string dir = "/tmp";
  std::string sizes_text = "4096,6144,6144,4096";
  int rounds = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    if (arg == "--dir")
      dir = argv[i + 1];
    else if (arg == "--sizes")
      sizes_text = argv[i + 1];
    else if (arg == "--rounds")
      rounds = std::atoi(argv[i + 1]);
  }
  const std::string path = dir + "/seam_checkpoint_bench_" + std::to_string(getpid());
  try {
    int64_t bytes = 0, largest = 0;
    {
      seam::nn::Mlp model(ParseSizes(sizes_text), 1);
      seam::optim::Adam adam(model.parameters());
      seam::nn::StateDict state = model.state_dict();
      for (auto& [name, tensor] : adam.state_dict(model.named_parameters())) state[name] = tensor;
      for (const auto& [name, tensor] : state) {
        bytes += tensor.numel() * 4;
        largest = std::max<int64_t>(largest, tensor.numel() * 4);
      }
      seam::sync();
      // The state is computed before the first save starts (sync only launches it): the
      // rounds time saving and loading, not the transposes into PyTorch's layout.
      seam::wait_device_ops();
      std::printf("state: %zu tensors, %.1f MiB, largest %.1f MiB\n", state.size(),
                  static_cast<double>(bytes) / (1 << 20), static_cast<double>(largest) / (1 << 20));
      std::vector<double> save_ratios, load_ratios, load_warm_ratios;
      for (int r = 0; r < rounds; ++r) {
        // Both writes go to a new file: the previous round's checkpoint is removed first,
        // untimed, as the plain write's file is. (Replacing it inside the save would add the
        // freeing of 1 GiB to the save's rename; on a file system mounted with `discard`
        // that is a synchronous discard, 0.2 s on the VM of table 15.) The two take turns
        // going first: on that VM the order alone moved the ratio 3x either way (the first
        // touch of memory the host has not backed lately is slow, and whoever runs right
        // after a free gets the pages just freed).
        unlink((path + ".safetensors").c_str());
        double save_s = 0;
        auto save = [&] {
          const auto begin = Clock::now();
          seam::checkpoint::save_file(path + ".safetensors", state);
          save_s = Seconds(begin);
        };
        const bool save_first = r % 2 == 0;
        if (save_first) save();
        const PlainTimes plain = PlainWriteRead(path + ".plain", static_cast<size_t>(bytes));
        if (!save_first) save();
        auto start = Clock::now();
        { seam::checkpoint::Loaded loaded = seam::checkpoint::load_file(path + ".safetensors"); }
        const double load_s = Seconds(start);
        const double gib = static_cast<double>(bytes) / (1 << 30);
        std::printf(
            "round %d (%s first): save %.2f GiB/s (plain write+fsync %.2f GiB/s, %.2fx); "
            "load %.2f GiB/s (plain read into fresh memory %.2f GiB/s, %.2fx; into the "
            "written buffer %.2f GiB/s, %.2fx)\n",
            r + 1, save_first ? "save" : "plain", gib / save_s, gib / plain.write_s,
            plain.write_s / save_s, gib / load_s, gib / plain.read_fresh_s,
            plain.read_fresh_s / load_s, gib / plain.read_warm_s, plain.read_warm_s / load_s);
        save_ratios.push_back(plain.write_s / save_s);
        load_ratios.push_back(plain.read_fresh_s / load_s);
        load_warm_ratios.push_back(plain.read_warm_s / load_s);
      }
      std::printf(
          "median over %d rounds: save %.2fx of the plain write+fsync, load %.2fx of the plain "
          "read into fresh memory (%.2fx of the read into the written buffer)\n",
          rounds, Median(save_ratios), Median(load_ratios), Median(load_warm_ratios));
    }
    // Peak memory while loading, in a fresh process: this one's allocator keeps the freed
    // device buffers of the rounds above for reuse.
    const std::string command = std::string(argv[0]) + " --measure-load " + path + ".safetensors " +
                                std::to_string(bytes) + " " + std::to_string(largest);
    std::fflush(stdout);
    const int rc = std::system(command.c_str());
    unlink((path + ".safetensors").c_str());
    if (rc != 0) return 1;
  } catch (const std::exception& e) {
    unlink((path + ".safetensors").c_str());
    std::fprintf(stderr, "checkpoint_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
