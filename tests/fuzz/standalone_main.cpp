//===- standalone_main.cpp - a fuzz harness without libFuzzer -------------===//
//
// Builds a harness (LLVMFuzzerTestOneInput) into a plain program: it replays
// every file of the corpus directories given, then runs --runs inputs made
// by mutating them (or random bytes when there is no corpus) from --seed.
// No coverage guidance: this is the short run of the tests and of CI; long
// runs use libFuzzer (-DTK_FUZZ=ON, scripts/fuzz.sh).
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <csignal>
#include <fcntl.h>
#include <unistd.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/stat.h>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

// The input being run, written to ./crash-standalone when a signal ends the
// process (as libFuzzer writes crash-<sha1>): a finding becomes a file.
static const uint8_t *currentData;
static size_t currentSize;
static void saveInput(int sig) {
  int fd = open("crash-standalone", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    ssize_t ignored = write(fd, currentData, currentSize);
    (void)ignored;
    close(fd);
  }
  const char msg[] = "fuzz: a signal ended the run; its input is in ./crash-standalone\n";
  ssize_t ignored = write(2, msg, sizeof msg - 1);
  (void)ignored;
  signal(sig, SIG_DFL);
  raise(sig);
}
static int run(const std::vector<uint8_t> &in) {
  currentData = in.data(), currentSize = in.size();
  return LLVMFuzzerTestOneInput(in.data(), in.size());
}

static void readInputs(const std::string &path, std::vector<std::vector<uint8_t>> &inputs) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    std::fprintf(stderr, "fuzz: no such file or directory: %s\n", path.c_str());
    std::exit(2);
  }
  if (S_ISDIR(st.st_mode)) {
    DIR *dir = opendir(path.c_str());
    std::vector<std::string> names;
    while (dirent *e = readdir(dir))
      if (e->d_name[0] != '.')
        names.push_back(path + "/" + e->d_name);
    closedir(dir);
    std::sort(names.begin(), names.end());
    for (const auto &n : names)
      readInputs(n, inputs);
    return;
  }
  std::ifstream f(path, std::ios::binary);
  inputs.emplace_back(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

int main(int argc, char **argv) {
  long runs = 1000;
  uint64_t seed = 1;
  size_t maxLen = 256;
  std::vector<std::vector<uint8_t>> corpus;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc)
      runs = std::atol(argv[++i]);
    else if (a == "--seed" && i + 1 < argc)
      seed = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--max-len" && i + 1 < argc)
      maxLen = std::strtoul(argv[++i], nullptr, 10);
    else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "usage: %s [--runs N] [--seed S] [--max-len L] [CORPUS_DIR_OR_FILE...]\n", argv[0]);
      return 2;
    } else
      readInputs(a, corpus);
  }
  for (int sig : {SIGSEGV, SIGFPE, SIGABRT, SIGBUS, SIGILL})
    signal(sig, saveInput);
  for (const auto &in : corpus)
    run(in);
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  auto next = [&s] {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    return s;
  };
  std::vector<uint8_t> buf;
  for (long r = 0; r < runs; ++r) {
    if (!corpus.empty() && next() % 4) { // mutate a corpus entry: flip, replace, insert or cut bytes
      buf = corpus[next() % corpus.size()];
      for (int m = 1 + next() % 4; m > 0; --m) {
        size_t at = buf.empty() ? 0 : next() % buf.size();
        switch (next() % 4) {
        case 0: if (!buf.empty()) buf[at] ^= uint8_t(1u << (next() % 8)); break;
        case 1: if (!buf.empty()) buf[at] = uint8_t(next()); break;
        case 2: if (buf.size() < maxLen) buf.insert(buf.begin() + at, uint8_t(next())); break;
        default: if (!buf.empty()) buf.resize(at); break;
        }
      }
    } else {
      buf.resize(next() % (maxLen + 1));
      for (uint8_t &b : buf)
        b = uint8_t(next());
    }
    run(buf);
  }
  std::printf("%zu corpus inputs and %ld generated inputs (seed %llu): no finding\n", corpus.size(), runs,
              (unsigned long long)seed);
  return 0;
}
