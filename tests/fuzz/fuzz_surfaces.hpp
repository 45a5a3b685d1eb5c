// Issue 51: the surfaces fuzz_cli generates whole, valid jobs around, each with one value a refusal rule covers in
// about half of its cases: the Trainer (--api trainer), HuggingFace datasets, DataLoader workers, device meshes,
// Accelerate releases (--accelerate-version, upgrade, check --accelerate-versions), recorded runs (check/diff
// --recorded over rank files written here) and `accelerate config` files. The generic surface ("flags", fuzz_cli.cpp)
// draws each flag alone; these draw the job a flag belongs to, so that the rules between flags are reached.
//
// A surface writes what it needs (rank files, YAML) under `dir`, returns the command line, and says whether the case
// holds a value a rule must refuse (exit 2) and which exit codes a valid case may end with.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace fuzz {

using Rng = std::mt19937_64;

struct SurfaceCase {
  std::vector<std::string> args;
  bool refused = false;
  int max_valid_exit = 2;  // 3: the command reports "not compared" / "not simulated" with exit 3
};

// The surfaces by name, in the order `--surface all` cycles them.
const std::vector<std::string>& surface_names();

// One case of surface `name` (one of surface_names()); files go under `dir` (a scratch folder per run).
SurfaceCase make_surface_case(const std::string& name, const std::string& dir, Rng& rng);

}  // namespace fuzz
