// An in-memory KeyValueStore shared by the ranks of a test (threads), optionally unreachable.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "ranks/key_value_store.hpp"

namespace accel::ranks::testing {

struct MemoryStoreState {
  std::mutex mu;
  std::map<std::string, std::string> values;
  bool unreachable = false;
  // Like a stopped rank 0 behind c10d's client: a request waits this long for an answer, then fails.
  std::atomic<std::chrono::milliseconds> hang_for{std::chrono::milliseconds(0)};
};

class MemoryStore final : public KeyValueStore {
 public:
  explicit MemoryStore(std::shared_ptr<MemoryStoreState> state) : state_(std::move(state)) {}
  void set(const std::string& key, const std::string& value) override {
    maybe_hang();
    std::lock_guard<std::mutex> lock(state_->mu);
    if (state_->unreachable) throw StoreUnreachable("Connection reset by peer");
    state_->values[key] = value;
  }
  std::optional<std::string> try_get(const std::string& key) override {
    maybe_hang();
    std::lock_guard<std::mutex> lock(state_->mu);
    if (state_->unreachable) throw StoreUnreachable("Connection reset by peer");
    auto it = state_->values.find(key);
    if (it == state_->values.end()) return std::nullopt;
    return it->second;
  }

 private:
  void maybe_hang() {
    const auto hang = state_->hang_for.load();
    if (hang.count() == 0) return;
    std::this_thread::sleep_for(hang);
    throw StoreUnreachable("Socket Timeout");
  }

  std::shared_ptr<MemoryStoreState> state_;
};

}  // namespace accel::ranks::testing
