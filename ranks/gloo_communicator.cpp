#include "gloo_communicator.hpp"

#include <ATen/ATen.h>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <mutex>
#include <thread>

#include "c10d_store.hpp"
#include "collective_encoding.hpp"

namespace accel::ranks {
namespace {

at::Tensor tensor_of(const std::vector<std::int64_t>& values, std::int64_t size) {
  at::Tensor t = at::zeros({std::max<std::int64_t>(size, 1)}, at::kLong);  // Gloo wants no empty tensors
  std::memcpy(t.data_ptr<std::int64_t>(), values.data(),
              sizeof(std::int64_t) * static_cast<std::size_t>(std::min<std::int64_t>(size, values.size())));
  return t;
}

std::vector<std::int64_t> values_of(const at::Tensor& t, std::int64_t size) {
  const std::int64_t* p = t.data_ptr<std::int64_t>();
  return std::vector<std::int64_t>(p, p + size);
}

std::shared_ptr<::gloo::transport::Device> device_for(const RankEnv& env) {
  // On one machine everything stays on loopback; across machines, the interface torch would pick.
  if (is_loopback(env.master_addr)) return c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1");
  if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME")) {
    return c10d::ProcessGroupGloo::createDeviceForInterface(ifname);
  }
  return c10d::ProcessGroupGloo::createDefaultDevice();
}

}  // namespace

struct GlooCommunicator::Impl {
  PeerMonitor& monitor;
  std::int64_t rank;
  std::int64_t world;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group;

  // Runs one Gloo operation of collective `index` to completion, or throws CollectiveError.
  void run(std::int64_t index, const std::string& op, const c10::intrusive_ptr<c10d::Work>& work) {
    struct Done {
      std::mutex mu;
      std::condition_variable cv;
      bool done = false;
    };
    auto done = std::make_shared<Done>();
    auto future = work->getFuture();
    future->addCallback([done](c10::ivalue::Future&) {
      std::lock_guard<std::mutex> lock(done->mu);
      done->done = true;
      done->cv.notify_all();
    });
    monitor.await(index, op, [&](std::chrono::milliseconds slice) {
      std::unique_lock<std::mutex> lock(done->mu);
      return done->cv.wait_for(lock, slice, [&] { return done->done; });
    });
    if (future->hasError()) monitor.transport_failed(index, op, "gloo: " + future->tryRetrieveErrorMessage());
  }

  at::Tensor broadcast(std::int64_t index, const std::string& op, at::Tensor t, std::int64_t root) {
    std::vector<at::Tensor> tensors{t};
    c10d::BroadcastOptions options;
    options.rootRank = root;
    run(index, op, group->broadcast(tensors, options));
    return tensors[0];
  }

  std::vector<at::Tensor> all_gather(std::int64_t index, const std::string& op, const at::Tensor& t) {
    std::vector<at::Tensor> inputs{t};
    std::vector<std::vector<at::Tensor>> outputs(1);
    for (std::int64_t r = 0; r < world; ++r) outputs[0].push_back(at::empty_like(t));
    run(index, op, group->allgather(outputs, inputs));
    return outputs[0];
  }
};

GlooCommunicator::GlooCommunicator(Rendezvous& rendezvous, PeerMonitor& monitor) {
  const RankEnv& env = rendezvous.env();
  auto options = c10d::ProcessGroupGloo::Options::create(
      // Gloo's own deadline comes after the monitor's, whose error names the ranks.
      rendezvous.timeout() + monitor.timing().stale_after + std::chrono::seconds(5));
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
  try {
    options->devices.push_back(device_for(env));
    auto store = c10::make_intrusive<c10d::PrefixStore>("gloo", rendezvous.native().tcp_store);
    // Gloo connects its mesh in the constructor, and a connection to a peer that never answers (a process of
    // another job, a stopped rank) can take a minute whatever its timeout says: the constructor runs on a
    // thread of its own, watched by the monitor (a peer that dies or gives up is named) and bounded by the
    // ranks' arrival time (timeout plus the startup allowance). Past it the thread is abandoned; the rank
    // exits soon after without destructors (rank_main.cpp's finish).
    const int rank = static_cast<int>(env.rank), world = static_cast<int>(env.world_size);
    std::packaged_task<c10::intrusive_ptr<c10d::ProcessGroupGloo>()> connect(
        [store, rank, world, options] { return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world, options); });
    auto connected = connect.get_future();
    std::thread(std::move(connect)).detach();
    const auto bound = monitor.timing().arrival;
    const auto deadline = std::chrono::steady_clock::now() + bound;
    monitor.await_ranks("Gloo's full mesh", [&] {
      if (connected.wait_for(std::chrono::milliseconds(0)) == std::future_status::ready) return std::vector<std::int64_t>{};
      if (std::chrono::steady_clock::now() > deadline) {
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%.1f s", std::chrono::duration<double>(bound).count());
        throw RendezvousError("rank " + std::to_string(env.rank) + ": Gloo's full mesh did not connect within " + seconds +
                              " (--timeout-s plus the startup allowance)");
      }
      return std::vector<std::int64_t>{env.rank};
    });
    group = connected.get();
  } catch (const RendezvousError&) {
    throw;
  } catch (const PeerFailure&) {
    throw;
  } catch (const std::exception& e) {
    throw RendezvousError("rank " + std::to_string(env.rank) + " cannot connect Gloo's full mesh: " + torch_message(e));
  }
  impl_ = std::make_unique<Impl>(Impl{monitor, env.rank, env.world_size, group});
}

GlooCommunicator::~GlooCommunicator() = default;

std::int64_t GlooCommunicator::rank() const { return impl_->rank; }
std::int64_t GlooCommunicator::world_size() const { return impl_->world; }

std::vector<std::int64_t> GlooCommunicator::broadcast_object(std::vector<std::int64_t> object, std::int64_t root) {
  const std::int64_t index = impl_->monitor.enter();
  const std::string op = "broadcast_object_list";
  const auto head = values_of(impl_->broadcast(index, op, tensor_of(object_head(object), kObjectSlots), root), kObjectSlots);
  const std::int64_t length = object_length(head);
  if (length <= kObjectSlots - 1) return object_from(head, {});
  // Longer than the first message: the rest follows, its size now known to every rank.
  const std::vector<std::int64_t> rest_in =
      impl_->rank == root ? std::vector<std::int64_t>(object.begin() + (kObjectSlots - 1), object.end())
                          : std::vector<std::int64_t>();
  const std::int64_t rest_size = length - (kObjectSlots - 1);
  return object_from(head, values_of(impl_->broadcast(index, op, tensor_of(rest_in, rest_size), root), rest_size));
}

Batch GlooCommunicator::broadcast(Batch batch, std::int64_t root) {
  const std::int64_t index = impl_->monitor.enter();
  const auto size = static_cast<std::int64_t>(batch.size());
  return values_of(impl_->broadcast(index, "broadcast", tensor_of(batch, size), root), size);
}

std::vector<Batch> GlooCommunicator::all_gather(const Batch& batch) {
  const std::int64_t index = impl_->monitor.enter();
  const std::string op = "all_gather";
  const auto size = static_cast<std::int64_t>(batch.size());
  std::vector<std::int64_t> sizes;
  for (const at::Tensor& t : impl_->all_gather(index, op, tensor_of({size}, 1))) sizes.push_back(values_of(t, 1)[0]);
  const std::int64_t longest = *std::max_element(sizes.begin(), sizes.end());
  const auto gathered = impl_->all_gather(index, op, tensor_of(batch, longest));
  std::vector<Batch> out;
  for (std::size_t r = 0; r < gathered.size(); ++r) out.push_back(values_of(gathered[r], sizes[r]));
  return out;
}

std::vector<std::int64_t> GlooCommunicator::all_reduce(const std::vector<std::int64_t>& values) {
  const std::int64_t index = impl_->monitor.enter();
  const auto size = static_cast<std::int64_t>(values.size());
  std::vector<at::Tensor> tensors{tensor_of(values, size)};
  impl_->run(index, "all_reduce", impl_->group->allreduce(tensors));
  return values_of(tensors[0], size);
}

void GlooCommunicator::barrier() {
  const std::int64_t index = impl_->monitor.enter();
  impl_->run(index, "barrier", impl_->group->barrier());
}

}  // namespace accel::ranks
