// The torch releases accel-sim accepts (--torch-version, config.torch_version), as data: each with the shuffle rule
// it follows. A version is accepted only when listed; anything else is refused naming the nearest recorded ones.
#pragma once

#include <optional>
#include <string>

#include "randperm.hpp"

namespace accel {

struct TorchReleaseEntry {
  const char* name;    // "X.Y"
  TorchVersion rules;  // whose torch.randperm it draws
  bool recorded;       // a golden set was recorded on it (false: the name of a rule, kept for configs that use it)
};
// 1.13: Debian's LibTorch / python3-torch (golden/cases, cases-releases on torch 1.13). 2.6: the first release of the
// inside-out randperm (pytorch#144735), the rule's name in every torch-2 config. 2.15: the torch golden/cases-torch2,
// cases-releases on torch 2 and the Trainer sets are recorded on.
inline constexpr TorchReleaseEntry kTorchReleases[] = {
    {"1.13", TorchVersion::v1_13, true},
    {"2.6", TorchVersion::v2_6, false},
    {"2.15", TorchVersion::v2_6, true},
};

// The rule a listed release follows; nullopt for any other text.
std::optional<TorchVersion> torch_release_rules(const std::string& name);
// Why `name` is refused: the accepted releases and the nearest recorded ones.
std::string torch_refusal(const std::string& name);

}  // namespace accel
