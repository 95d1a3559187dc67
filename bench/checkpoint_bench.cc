// Checkpoint save and load (issue 19's performance goals; BENCHMARKS.md, "Checkpoints"):
// the state of a large MLP with Adam's moments (about 1 GiB; --sizes to change the MLP)
// saved with seam::checkpoint::save_file and loaded with load_file (in a fresh process),
// beside a plain write(2)+fsync and a plain read(2) into newly allocated memory of the same
// number of bytes in the same run, both reads with memory in the same state (just freed,
// or idle for 2 s); and the peak anonymous memory (RssAnon, sampled every millisecond)
// while loading, above the loaded state itself, against the largest tensor. Last, how
// fast this machine pages in fresh memory the three ways the CPU plugin's blocks can be
// (docs/cpu-plugin.md, "Huge pages"), after the same two preparations: the reason uploads,
// the load's among them, do not take huge pages.
//
//   checkpoint_bench [--dir DIR] [--sizes 4096,6144,6144,4096] [--rounds 3]
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
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

// How memory stands right before a timed read or load. This VM hands pages freed more
// than about a second ago back to its host (virtio-balloon free page reporting), and the
// first touch of such a page costs about ten times a touch of one freed just now (BENCHMARKS.md,
// table 15: 0.2-0.4 against 2.5-3.5 GiB/s for 1 GiB), so a read into fresh memory is timed
// with memory in the same state as the load it is set against.
enum class Memory { kWarm, kCold };

const char* MemoryName(Memory memory) {
  return memory == Memory::kWarm ? "just freed" : "idle 2 s";
}

// kWarm: touches and frees `bytes` of anonymous memory (the next allocation gets those
// pages back while the host still backs them); kCold: waits 2 s with nothing freed.
void PrepareMemory(Memory memory, size_t bytes) {
  if (memory == Memory::kCold) {
    std::this_thread::sleep_for(std::chrono::seconds(2));
    return;
  }
  void* map = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) return;
  auto* data = static_cast<volatile char*>(map);
  for (size_t i = 0; i < bytes; i += 4096) data[i] = 1;
  munmap(map, bytes);
}

// Fresh anonymous memory paged in, as the CPU plugin's blocks of 2 MiB and more are.
enum class Paging { kHugeAdvised, kSmallPages, kSmallPopulated };

const char* PagingName(Paging paging) {
  switch (paging) {
    case Paging::kHugeAdvised:
      return "advised for huge pages";
    case Paging::kSmallPages:
      return "4 KiB pages";
    case Paging::kSmallPopulated:
      return "4 KiB pages populated in one call";
  }
  return "";
}

// GiB/s of mapping `bytes` on a 2 MiB boundary, paging it in as `paging` says and writing
// every byte once (what an upload does to a new block). 0 when the mapping fails.
double FirstTouchRate(Paging paging, size_t bytes) {
  constexpr size_t kHuge = size_t{2} << 20;
  const Clock::time_point start = Clock::now();
  void* map =
      mmap(nullptr, bytes + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) return 0;
  const auto base = reinterpret_cast<uintptr_t>(map);
  auto* data = reinterpret_cast<char*>((base + kHuge - 1) & ~(kHuge - 1));  // NOLINT
  if (paging == Paging::kHugeAdvised) madvise(data, bytes, MADV_HUGEPAGE);
  if (paging == Paging::kSmallPopulated) madvise(data, bytes, 23 /* MADV_POPULATE_WRITE */);
  std::memset(data, 1, bytes);
  const double seconds = Seconds(start);
  munmap(map, bytes + kHuge);
  return static_cast<double>(bytes) / seconds / (1 << 30);
}

void ReportFirstTouch() {
  constexpr size_t kBytes = size_t{256} << 20;
  for (Memory memory : {Memory::kWarm, Memory::kCold}) {
    std::printf("first touch of 256 MiB, memory %s:", MemoryName(memory));
    for (Paging paging : {Paging::kHugeAdvised, Paging::kSmallPages, Paging::kSmallPopulated}) {
      PrepareMemory(memory, size_t{1} << 30);
      std::printf(" %s %.2f GiB/s%s", PagingName(paging), FirstTouchRate(paging, kBytes),
                  paging == Paging::kSmallPopulated ? "\n" : ",");
    }
  }
}

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

// Plain write + fsync of `bytes` bytes into `path` (left in place for the reads).
double PlainWrite(const std::string& path, size_t bytes) {
  std::vector<char> buffer(bytes, 1);
  const auto start = Clock::now();
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  for (size_t done = 0; done < bytes;)
    done += static_cast<size_t>(write(fd, buffer.data() + done, bytes - done));
  fsync(fd);
  close(fd);
  return Seconds(start);
}

// A plain read of `path` into newly allocated memory, as a load must fill new tensors.
double PlainReadFresh(const std::string& path, size_t bytes) {
  const auto start = Clock::now();
  std::unique_ptr<char[]> fresh(new char[bytes]);  // not touched before the read
  ReadAll(path, fresh.get(), bytes);
  return Seconds(start);
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

// The child's part: a load in a fresh process (its memory comes from the kernel, as a real
// load's does: this process's allocator would hand back the device buffers of earlier
// rounds), right after preparing memory as the plain read's is. Prints the load's seconds and
// RssAnon once the client exists and at its peak.
int MeasureLoad(const std::string& file, Memory memory) {
  seam::Tensor warm = seam::Tensor::zeros({1}) + 1.0F;
  warm.item<float>();  // the client and its threads exist now
  const int64_t before = RssAnonBytes();
  struct stat st {};
  if (stat(file.c_str(), &st) != 0) return 1;
  PrepareMemory(memory, static_cast<size_t>(st.st_size));
  PeakSampler sampler;
  const auto start = Clock::now();
  { seam::checkpoint::Loaded loaded = seam::checkpoint::load_file(file); }
  const double seconds = Seconds(start);
  std::printf("load_s %.6f rss_before %lld rss_peak %lld\n", seconds,
              static_cast<long long>(before), static_cast<long long>(sampler.Stop()));
  return 0;
}

namespace {

struct ChildLoad {
  double seconds = -1;
  int64_t rss_before = 0;
  int64_t rss_peak = 0;
};

// Runs `self --measure-load file` and reads its one line back.
ChildLoad LoadInChild(const std::string& self, const std::string& file, Memory memory) {
  ChildLoad load;
  const char* mode = memory == Memory::kWarm ? " warm" : " cold";
  FILE* child = popen((self + " --measure-load " + file + mode).c_str(), "r");
  if (child == nullptr) return load;
  long long before = 0, peak = 0;
  if (std::fscanf(child, "load_s %lf rss_before %lld rss_peak %lld", &load.seconds, &before,
                  &peak) != 3) {
    load.seconds = -1;
  }
  load.rss_before = before;
  load.rss_peak = peak;
  if (pclose(child) != 0) load.seconds = -1;
  return load;
}

struct Ratios {
  std::vector<double> save;
  std::vector<double> load[2];  // by Memory
};

// One round: the save and the plain write take turns going first (the second one often
// finds memory or the disk in another state); then, for each state of memory, the plain
// read into fresh memory and the load in a fresh process, in turns, each right after the
// same preparation. Returns the largest RssAnon above the state seen while loading.
int64_t Round(int r, const std::string& self, const std::string& path,
              const seam::nn::StateDict& state, int64_t bytes, Ratios& ratios) {
  const std::string file = path + ".safetensors", plain_file = path + ".plain";
  unlink(file.c_str());  // both write a new file (freeing the old one is not timed)
  const auto size = static_cast<size_t>(bytes);
  double save_s = 0, write_s = 0;
  auto save = [&] {
    const auto begin = Clock::now();
    seam::checkpoint::save_file(file, state);
    save_s = Seconds(begin);
  };
  const bool save_first = r % 2 == 0;
  if (save_first) save();
  write_s = PlainWrite(plain_file, size);
  if (!save_first) save();
  const double gib = static_cast<double>(bytes) / (1 << 30);
  std::printf("round %d (%s first): save %.2f GiB/s, plain write+fsync %.2f GiB/s: %.2fx\n", r + 1,
              save_first ? "save" : "plain", gib / save_s, gib / write_s, write_s / save_s);
  ratios.save.push_back(write_s / save_s);
  int64_t above = 0;
  for (Memory memory : {Memory::kWarm, Memory::kCold}) {
    double read_s = 0;
    ChildLoad load;
    for (int turn = 0; turn < 2; ++turn) {
      if ((turn == 0) == save_first) {
        PrepareMemory(memory, size);
        read_s = PlainReadFresh(plain_file, size);
      } else {
        load = LoadInChild(self, file, memory);  // prepares its memory the same way
      }
    }
    if (load.seconds <= 0) throw std::runtime_error("the load in a child process failed");
    above = std::max<int64_t>(above, load.rss_peak - load.rss_before - bytes);
    std::printf("  memory %s: load %.2f GiB/s, plain read into fresh memory %.2f GiB/s: %.2fx\n",
                MemoryName(memory), gib / load.seconds, gib / read_s, read_s / load.seconds);
    ratios.load[static_cast<int>(memory)].push_back(read_s / load.seconds);
  }
  unlink(plain_file.c_str());
  return above;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "--measure-load") {
    return MeasureLoad(argv[2], std::string(argv[3]) == "warm" ? Memory::kWarm : Memory::kCold);
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
    seam::nn::Mlp model(ParseSizes(sizes_text), 1);
    seam::optim::Adam adam(model.parameters());
    seam::nn::StateDict state = model.state_dict();
    for (auto& [name, tensor] : adam.state_dict(model.named_parameters())) state[name] = tensor;
    int64_t bytes = 0, largest = 0;
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
    Ratios ratios;
    int64_t above = 0;
    for (int r = 0; r < rounds; ++r) {
      above = std::max(above, Round(r, argv[0], path, state, bytes, ratios));
    }
    std::printf(
        "median over %d rounds: save %.2fx of the plain write+fsync; load %.2fx of the plain "
        "read into fresh memory with memory just freed, %.2fx after 2 s idle\n",
        rounds, Median(ratios.save), Median(ratios.load[0]), Median(ratios.load[1]));
    std::printf(
        "peak RssAnon while loading, above the loaded state: %.1f MiB = %.2fx the largest "
        "tensor\n",
        static_cast<double>(above) / (1 << 20),
        static_cast<double>(above) / static_cast<double>(largest));
    ReportFirstTouch();
  } catch (const std::exception& e) {
    unlink((path + ".safetensors").c_str());
    unlink((path + ".plain").c_str());
    std::fprintf(stderr, "checkpoint_bench: %s\n", e.what());
    return 1;
  }
  unlink((path + ".safetensors").c_str());
  return 0;
}
