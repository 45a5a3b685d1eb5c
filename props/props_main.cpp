// Property suite entry point. `props --cases N` runs N cases per property (default 1000); any other
// argument goes to GoogleTest. RapidCheck prints its seed; replay a failure with RC_PARAMS="seed=...".
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  std::string cases = "1000";
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--cases") == 0 && i + 1 < argc) {
      cases = argv[++i];
    } else {
      rest.push_back(argv[i]);
    }
  }
  std::string params = std::getenv("RC_PARAMS") ? std::getenv("RC_PARAMS") : "";
  if (params.find("max_success") == std::string::npos) {
    params += (params.empty() ? "" : " ") + std::string("max_success=") + cases;
  }
  setenv("RC_PARAMS", params.c_str(), 1);
  std::cout << "props: RC_PARAMS=\"" << params << "\" (add seed=N to replay a failure)\n";
  int n = static_cast<int>(rest.size());
  testing::InitGoogleTest(&n, rest.data());
  return RUN_ALL_TESTS();
}
