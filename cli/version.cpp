#include "version.hpp"

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <iostream>

#include "core/accelerate_release.hpp"
#include "core/randperm.hpp"

#ifndef ACCEL_SIM_VERSION
#error "ACCEL_SIM_VERSION comes from CMake's project(VERSION); build through CMakeLists.txt"
#endif

namespace accel::cli {

std::string version_text() {
  // The threshold is read from the core, so this line cannot drift from the loop it describes.
  return std::string("accel-sim ") + ACCEL_SIM_VERSION + "\n" + "models HuggingFace Accelerate " + kAccelerateVersion +
         " (Accelerator.prepare and its defaults, prepare_data_loader, skip_first_batches, the optimizer/scheduler "
         "wrappers)\n" +
         "other releases with --accelerate-version X (config accelerate_version): " + kAccelerateReleasesModelled +
         ", their data-path rules as golden/releases.md bisects them\n" +
         "torch shuffle (randperm) reproduced for torch 2.6 (default; inside-out loop for n >= " +
         std::to_string(kRandpermInsideOutThreshold) +
         "; torch 2.15 follows it) and torch 1.13 (--torch-version 1.13; " + "there Accelerate " + kBaselineVersion +
         " by default, as 1.16.0 requires torch >= 2.6)\n";
}

std::string accel_sim_version() { return ACCEL_SIM_VERSION; }

void add_version(CLI::App& app) {
  // Exiting from the callback keeps main's parse/exit-code handling unchanged: --version is not an error.
  const auto print_and_exit = [] {
    std::cout << version_text() << std::flush;
    // `accel-sim --version > /dev/full` lost its one line: not a success.
    if (!std::cout) {
      std::cerr << "accel-sim: writing the version to stdout failed\n";
      std::exit(2);
    }
    std::exit(0);
  };
  app.add_flag_callback("--version", print_and_exit, "print accel-sim's version and what it models, then exit");
  app.add_subcommand("version", "print accel-sim's version and what it models")->callback(print_and_exit);
}

}  // namespace accel::cli
