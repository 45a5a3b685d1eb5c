// trace_batches TRACE RANK: one rank's batches from a trace JSON (golden schema, e.g. `accel-sim trace`), one
// line per batch as "epoch E batch J: id id ...". The install and LibTorch tests print what the examples
// consumed in the same form, so a plain diff compares them with the simulator's trace.
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: trace_batches TRACE.json RANK\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << "trace_batches: cannot read " << argv[1] << "\n";
    return 2;
  }
  const nlohmann::json trace = nlohmann::json::parse(in);
  const long rank = std::stol(argv[2]);
  if (!trace.value("error", nlohmann::json()).is_null()) {
    std::cerr << "trace_batches: the trace records an error: " << trace["error"].dump() << "\n";
    return 1;
  }
  for (const auto& r : trace.at("ranks")) {
    if (r.at("rank").get<long>() != rank) continue;
    for (const auto& pass : r.at("epochs")) {
      long j = 0;
      for (const auto& batch : pass.at("batches")) {
        std::cout << "epoch " << pass.at("epoch").get<long>() << " batch " << j++ << ":";
        for (const auto& id : batch) std::cout << " " << id.get<long>();
        std::cout << "\n";
      }
    }
    return 0;
  }
  std::cerr << "trace_batches: no rank " << rank << " in " << argv[1] << "\n";
  return 1;
}
