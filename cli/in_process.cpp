#include "cli/in_process.hpp"

#include <iostream>
#include <sstream>

#include "cli/cli_main.hpp"

namespace accel::cli {
namespace {

// Points a standard stream at a string buffer until destroyed, then restores it (and its state) as it was.
class Capture {
 public:
  explicit Capture(std::ostream& stream)
      : stream_(stream), state_(stream.rdstate()), saved_(stream.rdbuf(buffer_.rdbuf())) {
    stream_.clear();
  }
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;
  ~Capture() {
    stream_.rdbuf(saved_);
    stream_.clear(state_);
  }
  std::string text() const { return buffer_.str(); }

 private:
  // In this order: the state is read before rdbuf() resets it, the buffer exists before the stream points at it.
  std::ostream& stream_;
  std::ios::iostate state_;
  std::ostringstream buffer_;
  std::streambuf* saved_;
};

// Why a command line cannot run inside the host process, or an empty string.
std::string refusal(const std::vector<std::string>& args) {
  for (const auto& a : args) {
    if (a == "--version")
      return "--version: not available in-process (it ends the process); use accelerate_sim.version()";
  }
  if (args.empty()) return "";
  const std::string& first = args.front();
  if (first == "run" || first == "launch" || first == "compare" || first == "version") {
    return first + ": not available in-process (it forks or execs, or ends the process); run the accel-sim executable";
  }
  return "";
}

}  // namespace

InProcessResult run_in_process(const std::vector<std::string>& args) {
  InProcessResult result;
  if (const std::string why = refusal(args); !why.empty()) {
    result.exit_code = 2;
    result.err = "accel-sim: " + why + "\n";
    return result;
  }
  std::vector<std::string> storage;
  storage.reserve(args.size() + 1);
  storage.emplace_back("accel-sim");
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  {
    Capture out(std::cout);
    Capture err(std::cerr);
    result.exit_code = cli_main(static_cast<int>(storage.size()), argv.data());
    std::cout.flush();
    result.out = out.text();
    result.err = err.text();
  }
  return result;
}

}  // namespace accel::cli
