// An in-memory KeyValueStore shared by the ranks of a test (threads), optionally unreachable.
#pragma once

#include <map>
#include <memory>
#include <mutex>

#include "ranks/key_value_store.hpp"

namespace accel::ranks::testing {

struct MemoryStoreState {
  std::mutex mu;
  std::map<std::string, std::string> values;
  bool unreachable = false;
};

class MemoryStore final : public KeyValueStore {
 public:
  explicit MemoryStore(std::shared_ptr<MemoryStoreState> state) : state_(std::move(state)) {}
  void set(const std::string& key, const std::string& value) override {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (state_->unreachable) throw StoreUnreachable("Connection reset by peer");
    state_->values[key] = value;
  }
  std::optional<std::string> try_get(const std::string& key) override {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (state_->unreachable) throw StoreUnreachable("Connection reset by peer");
    auto it = state_->values.find(key);
    if (it == state_->values.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::shared_ptr<MemoryStoreState> state_;
};

}  // namespace accel::ranks::testing
