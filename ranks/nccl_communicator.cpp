#include "nccl_communicator.hpp"

#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <thread>

#include "collective_encoding.hpp"

namespace accel::ranks {
namespace {

using Clock = std::chrono::steady_clock;

const std::string kUniqueIdKey = "accel/nccl/unique_id";

std::string cuda_text(cudaError_t e) { return std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")"; }

void check_cuda(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess) throw std::runtime_error(what + ": " + cuda_text(e));
}

}  // namespace

struct NcclCommunicator::Impl {
  PeerMonitor& monitor;
  std::int64_t rank = 0;
  std::int64_t world = 1;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  std::int64_t* device = nullptr;  // one growing device buffer for every message
  std::size_t capacity = 0;        // in int64 values
  std::optional<std::string> error;

  explicit Impl(PeerMonitor& m) : monitor(m) {}

  ~Impl() {
    // Abort, not finalize: finalizing waits for peers that may be gone.
    if (comm) ncclCommAbort(comm);
    if (device) cudaFree(device);
    if (stream) cudaStreamDestroy(stream);
  }

  void abort() {
    if (comm) ncclCommAbort(comm);
    comm = nullptr;
  }

  std::int64_t* buffer(std::size_t count) {
    count = std::max<std::size_t>(count, 1);
    if (count > capacity) {
      if (device) cudaFree(device);
      device = nullptr;
      check_cuda(cudaMalloc(reinterpret_cast<void**>(&device), count * sizeof(std::int64_t)), "cudaMalloc");
      capacity = count;
    }
    return device;
  }

  // Whether the communicator's queued work (and the stream) finished within `slice`; an error
  // finishes it too, recorded in `error`.
  bool poll(std::chrono::milliseconds slice) {
    const auto deadline = Clock::now() + slice;
    while (true) {
      ncclResult_t state = ncclSuccess;
      ncclCommGetAsyncError(comm, &state);
      if (state != ncclSuccess && state != ncclInProgress) {
        error = std::string("nccl: ") + ncclGetErrorString(state) + ": " + ncclGetLastError(comm);
        return true;
      }
      if (state == ncclSuccess) {
        const cudaError_t q = cudaStreamQuery(stream);
        if (q == cudaSuccess) return true;
        if (q != cudaErrorNotReady) {
          error = "cuda: " + cuda_text(q);
          return true;
        }
      }
      if (Clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  // Copies `host` in, runs `collective` on the device buffer, waits under the monitor, copies `out_count` values out.
  std::vector<std::int64_t> run(std::int64_t index, const std::string& op, const std::vector<std::int64_t>& host,
                                std::size_t in_count, std::size_t out_count,
                                const std::function<ncclResult_t(std::int64_t*)>& collective) {
    if (!comm) {
      throw CollectiveError("collective #" + std::to_string(index) + " (" + op + "): the NCCL communicator was aborted",
                            {}, index);
    }
    std::int64_t* buf = buffer(std::max(in_count, out_count));
    std::vector<std::int64_t> staged(std::max<std::size_t>(in_count, 1), 0);
    std::copy_n(host.begin(), std::min(host.size(), in_count), staged.begin());
    check_cuda(cudaMemcpyAsync(buf, staged.data(), staged.size() * sizeof(std::int64_t), cudaMemcpyHostToDevice, stream),
               "cudaMemcpyAsync to the device");
    const ncclResult_t launched = collective(buf);
    if (launched != ncclSuccess && launched != ncclInProgress) {
      error = std::string("nccl: ") + ncclGetErrorString(launched) + ": " + ncclGetLastError(comm);
    }
    if (!error) {
      try {
        monitor.await(index, op, [&](std::chrono::milliseconds slice) { return poll(slice); });
      } catch (...) {
        abort();  // the kernel may wait for the missing ranks forever
        throw;
      }
    }
    if (error) {
      const std::string what = *error;
      error.reset();
      abort();
      monitor.transport_failed(index, op, what);
    }
    std::vector<std::int64_t> out(std::max<std::size_t>(out_count, 1), 0);
    check_cuda(cudaMemcpyAsync(out.data(), buf, out.size() * sizeof(std::int64_t), cudaMemcpyDeviceToHost, stream),
               "cudaMemcpyAsync from the device");
    check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    out.resize(out_count);
    return out;
  }

  std::vector<std::int64_t> broadcast(std::int64_t index, const std::string& op, const std::vector<std::int64_t>& v,
                                      std::size_t count, std::int64_t root) {
    return run(index, op, v, count, count, [&](std::int64_t* buf) {
      return ncclBroadcast(buf, buf, std::max<std::size_t>(count, 1), ncclInt64, static_cast<int>(root), comm, stream);
    });
  }

  // Every rank's `count` values, rank after rank.
  std::vector<std::int64_t> all_gather(std::int64_t index, const std::string& op, const std::vector<std::int64_t>& v,
                                       std::size_t count) {
    const std::size_t n = std::max<std::size_t>(count, 1);
    const auto world_n = static_cast<std::size_t>(world) * n;
    auto all = run(index, op, v, n, world_n, [&](std::int64_t* buf) {
      // In place: rank r's values sit at offset r * n of the receive buffer.
      std::int64_t* mine = buf + static_cast<std::size_t>(rank) * n;
      if (rank != 0) cudaMemcpyAsync(mine, buf, n * sizeof(std::int64_t), cudaMemcpyDeviceToDevice, stream);
      return ncclAllGather(mine, buf, n, ncclInt64, comm, stream);
    });
    if (count == 0) all.assign(static_cast<std::size_t>(world), 0);
    return all;
  }
};

NcclCommunicator::NcclCommunicator(Rendezvous& rendezvous, PeerMonitor& monitor)
    : impl_(std::make_unique<Impl>(monitor)) {
  const RankEnv& env = rendezvous.env();
  impl_->rank = env.rank;
  impl_->world = env.world_size;
  int devices = 0;
  const cudaError_t counted = cudaGetDeviceCount(&devices);
  if (counted != cudaSuccess || devices == 0) {
    throw DeviceUnavailable("--backend nccl needs a GPU per rank, and none is usable here (cudaGetDeviceCount: " +
                            (counted == cudaSuccess ? std::string("0 devices") : cuda_text(counted)) + ")");
  }
  if (env.local_rank >= devices) {
    throw DeviceUnavailable("LOCAL_RANK=" + std::to_string(env.local_rank) + " but this machine has only " +
                            std::to_string(devices) + " GPU(s): run at most one rank per GPU");
  }
  check_cuda(cudaSetDevice(static_cast<int>(env.local_rank)), "cudaSetDevice(LOCAL_RANK)");
  check_cuda(cudaStreamCreateWithFlags(&impl_->stream, cudaStreamNonBlocking), "cudaStreamCreate");

  ncclUniqueId id;
  if (env.rank == 0) {
    if (ncclGetUniqueId(&id) != ncclSuccess) throw RendezvousError("ncclGetUniqueId failed");
    rendezvous.store().set(kUniqueIdKey, std::string(reinterpret_cast<const char*>(&id), sizeof id));
  } else {
    std::optional<std::string> text;
    monitor.await_ranks("rank 0's NCCL unique id", [&] {
      text = rendezvous.store().try_get(kUniqueIdKey);
      return text ? std::vector<std::int64_t>{} : std::vector<std::int64_t>{0};
    });
    if (text->size() != sizeof id) throw RendezvousError("rank 0 published a malformed NCCL unique id");
    std::memcpy(&id, text->data(), sizeof id);
  }

  // Non-blocking, so a peer that never joins is a timeout here rather than a hang.
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  ncclResult_t state = ncclCommInitRankConfig(&impl_->comm, static_cast<int>(env.world_size), id,
                                              static_cast<int>(env.rank), &config);
  const auto deadline = Clock::now() + rendezvous.timeout();
  while (state == ncclInProgress && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ncclCommGetAsyncError(impl_->comm, &state);
  }
  if (state != ncclSuccess) {
    const std::string why = state == ncclInProgress ? "timed out after " + std::to_string(rendezvous.timeout().count()) +
                                                          " ms (a rank did not join)"
                                                    : std::string(ncclGetErrorString(state)) + ": " +
                                                          ncclGetLastError(impl_->comm);
    impl_->abort();
    throw RendezvousError("rank " + std::to_string(env.rank) + ": ncclCommInitRankConfig " + why);
  }
}

NcclCommunicator::~NcclCommunicator() = default;

std::int64_t NcclCommunicator::rank() const { return impl_->rank; }
std::int64_t NcclCommunicator::world_size() const { return impl_->world; }

std::vector<std::int64_t> NcclCommunicator::broadcast_object(std::vector<std::int64_t> object, std::int64_t root) {
  const std::int64_t index = impl_->monitor.enter();
  const std::string op = "broadcast_object_list";
  const auto head = impl_->broadcast(index, op, object_head(object), kObjectSlots, root);
  const std::int64_t length = object_length(head);
  if (length <= kObjectSlots - 1) return object_from(head, {});
  const std::vector<std::int64_t> rest_in =
      impl_->rank == root ? std::vector<std::int64_t>(object.begin() + (kObjectSlots - 1), object.end())
                          : std::vector<std::int64_t>();
  const auto rest_size = static_cast<std::size_t>(length - (kObjectSlots - 1));
  return object_from(head, impl_->broadcast(index, op, rest_in, rest_size, root));
}

Batch NcclCommunicator::broadcast(Batch batch, std::int64_t root) {
  const std::int64_t index = impl_->monitor.enter();
  return impl_->broadcast(index, "broadcast", batch, batch.size(), root);
}

std::vector<Batch> NcclCommunicator::all_gather(const Batch& batch) {
  const std::int64_t index = impl_->monitor.enter();
  const std::string op = "all_gather";
  const auto sizes = impl_->all_gather(index, op, {static_cast<std::int64_t>(batch.size())}, 1);
  const auto longest = static_cast<std::size_t>(*std::max_element(sizes.begin(), sizes.end()));
  const auto all = impl_->all_gather(index, op, batch, longest);
  const std::size_t stride = std::max<std::size_t>(longest, 1);
  std::vector<Batch> out;
  for (std::size_t r = 0; r < sizes.size(); ++r) {
    out.emplace_back(all.begin() + static_cast<std::ptrdiff_t>(r * stride),
                     all.begin() + static_cast<std::ptrdiff_t>(r * stride + static_cast<std::size_t>(sizes[r])));
  }
  return out;
}

void NcclCommunicator::barrier() {
  const std::int64_t index = impl_->monitor.enter();
  impl_->run(index, "barrier", {1}, 1, 1, [&](std::int64_t* buf) {
    return ncclAllReduce(buf, buf, 1, ncclInt64, ncclSum, impl_->comm, impl_->stream);
  });
}

}  // namespace accel::ranks
