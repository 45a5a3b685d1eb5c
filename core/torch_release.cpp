#include "torch_release.hpp"

#include "major_minor.hpp"

namespace accel {

std::optional<TorchVersion> torch_release_rules(const std::string& name) {
  for (const auto& e : kTorchReleases) {
    if (name == e.name) return e.rules;
  }
  return std::nullopt;
}

std::string torch_refusal(const std::string& name) {
  const std::string accepted = "1.13, 2.6 (the rule of torch >= 2.6) or 2.15";
  const auto wanted = major_minor(name);
  if (!wanted) return "must be a torch release \"X.Y\": " + accepted + ", got \"" + name + "\"";
  const TorchReleaseEntry* below = nullptr;
  const TorchReleaseEntry* above = nullptr;
  for (const auto& e : kTorchReleases) {
    if (!e.recorded) continue;
    const auto at = *major_minor(e.name);
    if (at < *wanted) below = &e;
    if (at > *wanted && !above) above = &e;
  }
  const std::string nearest = below && above
                                  ? std::string("the nearest recorded are ") + below->name + " and " + above->name
                                  : std::string("the nearest recorded is ") + (below ? below : above)->name;
  return "torch " + name + " is not modelled: accepted are " + accepted + "; " + nearest +
         " (a release not recorded is not assumed to shuffle as either)";
}

}  // namespace accel
