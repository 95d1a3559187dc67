// A child for the `seam launch` tests: each mode does one thing a test checks.
//   launch_probe env                          print the variables launch sets, one a line
//   launch_probe lines N                      N lines to stdout and stderr, a line written in
//                                             two pieces, and an unfinished last line
//   launch_probe fail RANK CODE DIR [ignore-term]
//   launch_probe kill RANK SIGNAL DIR         every rank writes DIR/pid.<rank>; once all
//                                             have, rank RANK exits with CODE (or raises
//                                             SIGNAL); the others wait (at most 60 s)
//   launch_probe wait-signal DIR [stay]       write DIR/pid.<rank>, print "ready" (and
//                                             whether SIGHUP is ignored), wait for SIGINT
//                                             or SIGTERM (at most 60 s), say so and exit
//                                             with 128 + its number (stay: go on waiting)
//   launch_probe default-signals PROG ARGS... run PROG with SIGINT, SIGTERM, SIGHUP and
//                                             SIGQUIT at their defaults (a shell starts a
//                                             background job with SIGINT ignored)
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace {

volatile std::sig_atomic_t g_signal = 0;

void OnSignal(int signal) { g_signal = signal; }

int EnvInt(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? -1 : std::atoi(value);
}

void Say(const std::string& line) {
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

void WritePid(const std::string& dir, int rank) {
  const std::string path = dir + "/pid." + std::to_string(rank);
  {
    std::ofstream out(path + ".tmp");
    out << getpid() << "\n";
  }
  std::filesystem::rename(path + ".tmp", path);
}

bool AllPidsWritten(const std::string& dir, int count) {
  for (int i = 0; i < 600; ++i) {
    int found = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().filename().string().rfind("pid.", 0) == 0 &&
          entry.path().extension() != ".tmp") {
        ++found;
      }
    }
    if (found >= count) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

// Sleeps up to 60 s, waking early when a handled signal arrives; returns it (0: none).
int WaitForSignal() {
  for (int i = 0; i < 6000 && g_signal == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return g_signal;
}

int Env() {
  for (const char* name : {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE",
                           "PJRT_LOCAL_PROCESS_RANK", "PJRT_LOCAL_PROCESS_COUNT", "MASTER_ADDR",
                           "MASTER_PORT", "XLA_COORDINATOR_PORT", "CPU_NUM_DEVICES"}) {
    const char* value = std::getenv(name);
    Say(std::string(name) + (value == nullptr ? " unset" : std::string("=") + value));
  }
  return 0;
}

int Lines(int count) {
  const int rank = EnvInt("RANK");
  for (int i = 0; i < count; ++i) {
    std::printf("out %d of rank %d\n", i, rank);
    std::fflush(stdout);
    std::fprintf(stderr, "err %d of rank %d\n", i, rank);
  }
  std::printf("split line ");
  std::fflush(stdout);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::printf("of rank %d\n", rank);
  std::printf("tail of rank %d", rank);
  std::fflush(stdout);
  return 0;
}

// fail and kill: rank `failing` ends once every rank runs; the others wait.
int Fail(int failing, bool by_signal, int value, const std::string& dir, bool ignore_term) {
  const int rank = EnvInt("RANK");
  if (ignore_term) std::signal(SIGTERM, SIG_IGN);
  WritePid(dir, rank);
  if (rank == failing) {
    if (!AllPidsWritten(dir, EnvInt("LOCAL_WORLD_SIZE"))) Say("not every rank started");
    Say("rank " + std::to_string(rank) + " ends now");
    if (by_signal) kill(getpid(), value);
    return value;
  }
  Say("rank " + std::to_string(rank) + " ready");
  std::this_thread::sleep_for(std::chrono::seconds(60));
  Say("rank " + std::to_string(rank) + " was not stopped");
  return 0;
}

int WaitSignal(const std::string& dir, bool stay) {
  const int rank = EnvInt("RANK");
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  WritePid(dir, rank);
  struct sigaction hup {};
  sigaction(SIGHUP, nullptr, &hup);
  Say("rank " + std::to_string(rank) + " ready" +
      (hup.sa_handler == SIG_IGN ? ", SIGHUP ignored" : ""));
  while (true) {
    const int signal = WaitForSignal();
    if (signal == 0) {
      Say("rank " + std::to_string(rank) + " got no signal");
      return 0;
    }
    Say("rank " + std::to_string(rank) + " got " + (signal == SIGINT ? "SIGINT" : "SIGTERM"));
    if (!stay) return 128 + signal;
    g_signal = 0;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "env") return Env();
  if (mode == "default-signals" && argc > 2) {
    for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) std::signal(signal, SIG_DFL);
    execvp(argv[2], argv + 2);
    std::perror("launch_probe: execvp");
    return 127;
  }
  if (mode == "lines" && argc == 3) return Lines(std::atoi(argv[2]));
  if ((mode == "fail" || mode == "kill") && argc >= 5) {
    return Fail(std::atoi(argv[2]), mode == "kill", std::atoi(argv[3]), argv[4],
                argc > 5 && std::string(argv[5]) == "ignore-term");
  }
  if (mode == "wait-signal" && argc >= 3) {
    return WaitSignal(argv[2], argc > 3 && std::string(argv[3]) == "stay");
  }
  std::fprintf(stderr, "launch_probe: unknown mode (see the comment at the top)\n");
  return 2;
}
