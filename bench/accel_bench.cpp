// accel-sim's hot paths under Google Benchmark: ids per second (sequential orders, torch-exact shuffles),
// a full R=64 x N=1e6 simulation and what-if, the trace of each loader family at R=1024 x N=1e5, the
// R=4096 x N=1e9 coverage audit (time and peak RSS, each in its own child process so one audit's memory
// does not hide another's), and skip_first_batches of 500k batches. Run with bench/run.sh; timings depend on
// the machine and on what else runs on it.
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <ostream>
#include <streambuf>
#include <vector>

#include "analysis/recorded_judgement.hpp"
#include "analysis/release_upgrade.hpp"
#include "analysis/what_if.hpp"
#include "core/batch_sampler_shard.hpp"
#include "core/hf_iterable_dataset.hpp"
#include "core/id_allocator.hpp"
#include "core/prepare_data_loader.hpp"
#include "core/randperm.hpp"
#include "sim/simulator.hpp"
#include "trace/trace_json.hpp"

namespace {

using namespace accel;

trace::LoaderCase job(std::int64_t ranks, std::int64_t n, std::int64_t batch, bool shuffle) {
  trace::LoaderCase c;
  c.loader.dataset_len = n;
  c.loader.batch_size = batch;
  c.loader.shuffle = shuffle;
  c.prepare.num_processes = ranks;
  c.prepare.use_seedable_sampler = shuffle;
  if (shuffle) c.prepare.data_seed = 1;
  c.schedule = {trace::LoaderRole::Prepared};
  return c;
}

// The what-if with every shuffle drawn (--draw-ids): what the audits below measure is the drawn order.
analysis::WhatIfOptions drawn() {
  analysis::WhatIfOptions o;
  o.drawn_shuffle_limit = std::numeric_limits<std::int64_t>::max();
  return o;
}

// Every rank's epoch, batch by batch, written into one reused buffer: the cost of producing ids once the
// order exists (O(batch) per batch, no replay).
void rank_epochs(benchmark::State& state, const SampleOrder& order, std::int64_t ranks, std::int64_t batch) {
  std::vector<BatchSamplerShard> shards;
  for (std::int64_t r = 0; r < ranks; ++r) {
    shards.emplace_back(BatchSampler{batch, false}, order.size(), ShardOptions{ranks, r, false, true});
  }
  std::vector<SampleId> buffer(static_cast<std::size_t>(batch));
  std::int64_t ids = 0;
  for (auto _ : state) {
    for (const auto& shard : shards) {
      const std::int64_t count = shard.num_batches();
      for (std::int64_t j = 0; j < count; ++j) {
        const PositionRange range = shard.batch(j);
        order.copy_padded(range.begin, range.end, shard.pad_period(), buffer.data());
        benchmark::DoNotOptimize(buffer.data());
        ids += range.size();
      }
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(ids);
}

void BM_SequentialIds(benchmark::State& state) {
  rank_epochs(state, SampleOrder::sequential(state.range(0)), 64, 32);
}
BENCHMARK(BM_SequentialIds)->Arg(10'000'000)->Unit(benchmark::kMillisecond);

// Reading ranks' batches out of a drawn shuffle (4-byte storage); the draw itself is BM_TorchRandperm.
void BM_ShuffledIdsFromDrawnOrder(benchmark::State& state) {
  TorchGenerator gen(1);
  const SampleOrder order = randperm_order(state.range(0), gen);
  rank_epochs(state, order, 64, 32);
}
BENCHMARK(BM_ShuffledIdsFromDrawnOrder)->Arg(10'000'000)->Unit(benchmark::kMillisecond);

// torch.randperm(n) bit for bit, into the 4-byte storage the samplers use: shuffled ids per second.
void BM_TorchRandperm(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const auto version = state.range(1) == 113 ? TorchVersion::v1_13 : TorchVersion::v2_6;
  for (auto _ : state) {
    TorchGenerator gen(42);
    const SampleOrder order = randperm_order(n, gen, version);
    benchmark::DoNotOptimize(order[n / 2]);
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_TorchRandperm)
    ->ArgNames({"n", "torch"})
    ->Args({1'000'000, 26})
    ->Args({10'000'000, 26})
    ->Args({100'000'000, 26})
    ->Unit(benchmark::kMillisecond);
// Just above 214,748,364 PyTorch 2.6 switches to the inside-out loop (two draws and a 64-bit modulo per id).
BENCHMARK(BM_TorchRandperm)->ArgNames({"n", "torch"})->Args({250'000'000, 26})->Args({250'000'000, 113})
    ->Iterations(1)->Unit(benchmark::kMillisecond);

// The same shuffles into a buffer allocated and faulted in once, outside the timing: the loop itself,
// without the page-fault cost of fresh memory (which varies a lot on a VM).
void BM_TorchRandpermInto(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto loop = state.range(1) == 1 ? RandpermLoop::InsideOut : RandpermLoop::Forward;
  IdVector32 ids(n);
  for (auto _ : state) {
    TorchGenerator gen(42);
    randperm_loop_into(std::span<std::uint32_t>(ids), gen, loop);
    benchmark::DoNotOptimize(ids[n / 2]);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}
BENCHMARK(BM_TorchRandpermInto)->ArgNames({"n", "inside_out"})->Args({100'000'000, 0})->Args({250'000'000, 0})
    ->Args({250'000'000, 1})->Iterations(2)->Unit(benchmark::kMillisecond);

// The floor of anything that names the ids of a shuffled 10^9-sample epoch (issue 25): torch.randperm(10^9) itself,
// taken apart. PyTorch >= 2.6 draws it with the inside-out loop: 2 x 10^9 generator words, 10^9 64-bit modulos
// and 10^9 random read-writes into a 4 GB array of 4-byte ids that must first be faulted in.
//   part 0: the generator words alone (MT19937, in blocks)
//   part 1: the words and the modulo that turns them into swap targets (no array)
//   part 2: a fresh 4 GB id array faulted in (IdAllocator: huge pages, no value-initialisation): the kernel
//           zeroes it; on this VM that costs ~0.1 s/GB when the guest already holds the memory and 2-3 s/GB when
//           it must get it back from its host, so this part varies from ~0.3 s to ~10 s between runs
//   part 3: the loop into an array already faulted in (random access: memory-bound once it outgrows the caches)
//   part 4: randperm_order(10^9) whole, as a sampler draws it = parts 2 + 3: one permutation's cost, the floor
// A what-if that shows ids draws one such permutation and reads only the positions it shows (the counts need
// none): BM_WhatIfIssue25 below is that floor plus well under a second; `accel-sim check` of the job too.
void BM_RandpermFloor(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const std::int64_t part = state.range(1);
  constexpr std::size_t kBlock = 1024;
  std::vector<std::uint32_t> draws(2 * kBlock);
  std::unique_ptr<IdVector32> faulted;
  if (part == 3) faulted = std::make_unique<IdVector32>(static_cast<std::size_t>(n));
  for (auto _ : state) {
    TorchGenerator gen(42);
    if (part == 0 || part == 1) {
      std::uint64_t sink = 0;
      for (std::int64_t base = 0; base < n; base += static_cast<std::int64_t>(kBlock)) {
        gen.fill(draws.data(), draws.size());
        if (part == 0) {
          sink += draws[0];
          continue;
        }
        for (std::size_t k = 0; k < kBlock; ++k) {
          const std::uint64_t x = (std::uint64_t{draws[2 * k]} << 32) | draws[2 * k + 1];
          sink += x % static_cast<std::uint64_t>(base + static_cast<std::int64_t>(k) + 1);
        }
      }
      benchmark::DoNotOptimize(sink);
    } else if (part == 2) {
      IdVector32 ids(static_cast<std::size_t>(n));
      benchmark::DoNotOptimize(ids.data());
    } else if (part == 3) {
      randperm_loop_into(std::span<std::uint32_t>(*faulted), gen, RandpermLoop::InsideOut);
      benchmark::DoNotOptimize((*faulted)[static_cast<std::size_t>(n / 2)]);
    } else {
      const SampleOrder order = randperm_order(n, gen);
      benchmark::DoNotOptimize(order[n / 2]);
    }
  }
  state.SetItemsProcessed(state.iterations() * n);
  state.SetLabel(part == 0   ? "generator words (2 per id)"
                 : part == 1 ? "words + modulo (swap targets)"
                 : part == 2 ? "fault in a fresh 4-byte id array"
                 : part == 3 ? "inside-out loop, array already faulted in"
                             : "randperm_order: one permutation (the floor)");
}
BENCHMARK(BM_RandpermFloor)
    ->ArgNames({"n", "part"})
    ->ArgsProduct({{1'000'000'000}, {0, 1, 2, 3, 4}})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

// The simulator: every rank's loader replayed as Accelerate runs it, every batch materialised in a trace.
void BM_Simulate(benchmark::State& state) {
  const trace::LoaderCase c = job(64, 1'000'000, 8, state.range(0) != 0);
  for (auto _ : state) benchmark::DoNotOptimize(sim::simulate(c));
  state.SetItemsProcessed(state.iterations() * 1'000'000);
}
BENCHMARK(BM_Simulate)->ArgName("shuffle")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// The what-if the CLI prints (as configured + even_batches / drop_last / split_batches variants).
void BM_WhatIf(benchmark::State& state) {
  const trace::LoaderCase c = job(64, 1'000'000, 8, state.range(0) != 0);
  for (auto _ : state) benchmark::DoNotOptimize(analysis::what_if(c));
}
BENCHMARK(BM_WhatIf)->ArgName("shuffle")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// The what-if of an iterable dataset read by 8 DataLoader workers that split the stream (islice by worker id), over
// 64 ranks, batch 1, with and without a dispatcher (issue 48): from the workers' streams, whatever N. Before
// core/worker_epoch_plan every rank's every worker was replayed (N = 1e8: > 60 s, 6.5 GB).
void BM_WhatIfWorkers(benchmark::State& state) {
  trace::LoaderCase c = job(64, state.range(0), 1, false);
  c.loader.dataset_kind = DatasetKind::Iterable;
  c.loader.workers.num_workers = 8;
  c.loader.workers.split = WorkerSplit::Strided;
  c.prepare.dispatch_batches = state.range(1) != 0;
  c.prepare.put_on_device = state.range(1) != 0;
  for (auto _ : state) benchmark::DoNotOptimize(analysis::what_if(c));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_WhatIfWorkers)
    ->ArgNames({"n", "dispatch"})
    ->ArgsProduct({{1'000, 1'000'000, 100'000'000}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

// The what-if of an unshuffled datasets.IterableDataset of 1024 equal shards read by 4 workers, R ranks, batch 1:
// from the shard lists (core/hf_stream_plan), on the dispatcher's path (the Accelerator's default) and on .shard()'s.
void BM_WhatIfHfStream(benchmark::State& state) {
  const std::int64_t n = state.range(0), ranks = state.range(1);
  trace::LoaderCase c = job(ranks, n, 1, false);
  c.loader.dataset_kind = DatasetKind::Iterable;
  std::vector<std::int64_t> sizes;
  for (std::int64_t s = 0; s < 1024; ++s) sizes.push_back(n / 1024 + (s < n % 1024 ? 1 : 0));
  c.loader.hf_dataset = HfIterableDataset::from_shards(sizes);
  c.loader.workers.num_workers = 4;
  c.prepare.dispatch_batches = state.range(2) != 0;
  c.prepare.put_on_device = state.range(2) != 0;
  for (auto _ : state) benchmark::DoNotOptimize(analysis::what_if(c));
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_WhatIfHfStream)
    ->ArgNames({"n", "ranks", "dispatch"})
    ->ArgsProduct({{1'000'000, 1'000'000'000}, {2, 256, 1024}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

// `accel-sim trace` of each family at R=1024 x N=1e5, batch 8 (simulation and the streamed JSON, written
// to a stream that discards it): the dispatcher (map-style, seedable shuffle: rank 0 draws, every rank
// slices one shared broadcast batch), BatchSamplerShard (map-style, seedable shuffle: one draw shared by
// every rank), IterableDatasetShard (a dataset generator's randperm) and the dispatched iterable dataset
// (the Accelerator's default for iterable datasets). items_per_second counts samples of the dataset.
enum class Family { Dispatcher, MapShard, IterableShard, IterableDispatched };

trace::LoaderCase family_job(Family f, std::int64_t ranks, std::int64_t n) {
  trace::LoaderCase c = job(ranks, n, 8, f == Family::Dispatcher || f == Family::MapShard);
  if (f == Family::Dispatcher || f == Family::IterableDispatched) {
    c.prepare.dispatch_batches = true;
    c.prepare.put_on_device = true;
  }
  if (f == Family::IterableShard || f == Family::IterableDispatched) c.loader.dataset_kind = DatasetKind::Iterable;
  if (f == Family::IterableShard) c.loader.dataset_generator_seed = 0;
  return c;
}

struct Discard : std::streambuf {
  int overflow(int c) override { return c; }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

void BM_Trace(benchmark::State& state) {
  const auto family = static_cast<Family>(state.range(0));
  const trace::LoaderCase c = family_job(family, 1024, 100'000);
  const trace::Json config = {{"api", "prepare_data_loader"}};
  Discard sink;
  std::ostream out(&sink);
  for (auto _ : state) {
    const trace::Trace t = sim::simulate(c);
    trace::write_trace(out, "bench", config, t);
  }
  state.SetItemsProcessed(state.iterations() * 100'000);
  state.SetLabel(family == Family::Dispatcher      ? "DataLoaderDispatcher (map, seedable shuffle)"
                 : family == Family::MapShard      ? "BatchSamplerShard (seedable shuffle)"
                 : family == Family::IterableShard ? "IterableDatasetShard (dataset generator)"
                                                   : "DataLoaderDispatcher (iterable)");
}
BENCHMARK(BM_Trace)->ArgName("family")->DenseRange(0, 3)->Unit(benchmark::kMillisecond);

// Issue 48, one benchmark per family over N = 1e3-1e9 and R = 2-65,536 (batch 1), each as the CLI runs it.
// The what-if: the configuration and every option it compares, sequential or shuffled (a seedable sampler; past
// 10^8 samples the shuffle is counted, not drawn).
void BM_ScaleWhatIf(benchmark::State& state) {
  const trace::LoaderCase c = job(state.range(1), state.range(0), 1, state.range(2) != 0);
  for (auto _ : state) benchmark::DoNotOptimize(analysis::what_if(c));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ScaleWhatIf)
    ->ArgNames({"n", "ranks", "shuffle"})
    ->ArgsProduct({{1'000, 1'000'000, 1'000'000'000}, {2, 256, 65'536}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

// `trace`: every rank's ids, simulated and written as JSON (to a sink). Its output is N ids, so N stops at 1e7.
void BM_ScaleTrace(benchmark::State& state) {
  const trace::LoaderCase c = job(state.range(1), state.range(0), 1, true);
  const trace::Json config = {{"api", "prepare_data_loader"}};
  Discard sink;
  std::ostream out(&sink);
  for (auto _ : state) trace::write_trace(out, "bench", config, sim::simulate(c));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ScaleTrace)
    ->ArgNames({"n", "ranks"})
    ->ArgsProduct({{1'000, 100'000, 10'000'000}, {2, 256, 65'536}})
    ->Unit(benchmark::kMillisecond);

// `check --recorded`: a recording of 4 batches of 2 ids per rank (one epoch) judged against a dataset of N samples:
// the cost follows the recording, not N.
void BM_ScaleCheckRecorded(benchmark::State& state) {
  const std::int64_t n = state.range(0), ranks = state.range(1);
  trace::RecordedRun run;
  run.name = "bench";
  run.num_processes = ranks;
  run.dataset_len = n;
  for (std::int64_t r = 0; r < ranks; ++r) {
    trace::RecordedRank rank;
    rank.rank = r;
    rank.loader_class = "DataLoaderShard";
    rank.len = 4;
    trace::RecordedPass pass;
    for (std::int64_t j = 0; j < 4; ++j) pass.batches.push_back({(r * 8 + 2 * j) % n, (r * 8 + 2 * j + 1) % n});
    rank.passes.push_back(std::move(pass));
    run.ranks.push_back(std::move(rank));
  }
  const std::vector<std::string> requirements = {"no-duplicates", "no-drops", "lockstep", "len-consistent"};
  for (auto _ : state) benchmark::DoNotOptimize(analysis::judge_recorded(run, requirements));
  state.SetItemsProcessed(state.iterations() * ranks * 8);
}
BENCHMARK(BM_ScaleCheckRecorded)
    ->ArgNames({"n", "ranks"})
    ->ArgsProduct({{1'000, 1'000'000, 1'000'000'000}, {2, 256, 65'536}})
    ->Unit(benchmark::kMillisecond);

// `upgrade --from 0.14.0 --to 1.15.0` of a shuffled job, 3 epochs: replayed id by id up to 2^22 positions (epochs x
// N), compared by its structure past them (the CLI's choice, made here the same way). No resume or evaluation.
void BM_ScaleUpgrade(benchmark::State& state) {
  trace::LoaderCase c = job(state.range(1), state.range(0), 1, true);
  c.prepare.use_seedable_sampler = false;
  c.torch_manual_seed = 1;
  c.epochs = 3;
  c.schedule.assign(3, trace::LoaderRole::Prepared);
  analysis::UpgradeSide from{c, std::nullopt, std::nullopt}, to = from;
  from.loader.prepare.release = {0, 14, 0};
  to.loader.prepare.release = {1, 15, 0};
  const bool replay = analysis::upgrade_replay_positions(c) <= analysis::kUpgradeReplayLimit;
  for (auto _ : state) {
    benchmark::DoNotOptimize(replay ? analysis::upgrade_report(from, to)
                                    : analysis::upgrade_structure(from, to, {}, ""));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetLabel(replay ? "replayed" : "structure");
}
BENCHMARK(BM_ScaleUpgrade)
    ->ArgNames({"n", "ranks"})
    ->ArgsProduct({{1'000, 100'000, 1'000'000, 1'000'000'000}, {2, 64, 65'536}})
    ->Unit(benchmark::kMillisecond);

// The R=4096 x N=1e9, batch 32 what-if (its full coverage audit) in a child process: wall time and the
// child's own peak RSS (wait4's rusage).
void BM_Audit4096x1e9(benchmark::State& state) {
  const trace::LoaderCase c = job(4096, 1'000'000'000, 32, state.range(0) != 0);
  double peak_gib = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const pid_t child = fork();
    if (child == 0) {
      const auto report = analysis::what_if(c, drawn());
      _exit(report.scenarios.front().coverage.counts.duplicated == 79'360 ? 0 : 3);
    }
    int status = 0;
    rusage usage{};
    wait4(child, &status, 0, &usage);
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) state.SkipWithError("audit child failed or counted wrong");
    peak_gib = static_cast<double>(usage.ru_maxrss) / (1024.0 * 1024.0);  // ru_maxrss is in KiB
  }
  state.counters["peak_rss_GiB"] = peak_gib;
}
BENCHMARK(BM_Audit4096x1e9)->ArgName("shuffle")->Arg(0)->Arg(1)->UseManualTime()->Iterations(1)->Unit(benchmark::kSecond);

// Issue 25's job, `accel-sim --ranks 4096 --dataset-len 1000000000 --shuffle --seed 7`: an Accelerator's
// RandomSampler (batch 1) with a data_seed it ignores, whose fix (the seedable sampler) the report simulates. One
// permutation is drawn (the ids shown); the fix's counts and every alternative's come from the loaders' structure.
// Compare with BM_RandpermFloor part 4 (and its part 2, the page faults, which vary between runs on a VM).
void BM_WhatIfIssue25(benchmark::State& state) {
  // The config the CLI builds from those flags (`accel-sim trace --ranks 4096 ... --shuffle --seed 7` prints it).
  const trace::Json config = trace::Json::parse(R"({"api": "accelerator", "dataset_kind": "map",
      "dataset_len": 1000000000, "batch_size": 1, "num_processes": 4096, "drop_last": false, "shuffle": true,
      "dataset_generator": false, "accelerator": {"device_placement": true, "rng_types": ["generator"],
      "split_batches": false, "dispatch_batches": null, "even_batches": true, "use_seedable_sampler": false,
      "data_seed": 7, "non_blocking": false, "use_stateful_dataloader": false}, "set_seed": null,
      "set_seed_device_specific": false, "multiprocess": true, "epochs": 1, "schedule": ["prepared"],
      "set_epoch": null, "skip_first_batches": null, "torch_version": "2.6"})");
  const trace::LoaderCase c = std::get<trace::LoaderCase>(trace::parse_config(config));
  double peak_gib = 0, user_s = 0, sys_s = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const pid_t child = fork();
    if (child == 0) {
      const auto report = analysis::what_if(c, drawn());
      _exit(report.scenarios.front().coverage.counts.duplicated == 1536 ? 0 : 3);
    }
    int status = 0;
    rusage usage{};
    wait4(child, &status, 0, &usage);
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) state.SkipWithError("what-if child failed or counted wrong");
    peak_gib = static_cast<double>(usage.ru_maxrss) / (1024.0 * 1024.0);
    // The child's CPU, which the parent's CPU column does not include: user is the shuffle, sys the page faults.
    user_s = static_cast<double>(usage.ru_utime.tv_sec) + static_cast<double>(usage.ru_utime.tv_usec) * 1e-6;
    sys_s = static_cast<double>(usage.ru_stime.tv_sec) + static_cast<double>(usage.ru_stime.tv_usec) * 1e-6;
  }
  state.counters["peak_rss_GiB"] = peak_gib;
  state.counters["user_s"] = user_s;
  state.counters["sys_s"] = sys_s;
}
BENCHMARK(BM_WhatIfIssue25)->UseManualTime()->Iterations(1)->Unit(benchmark::kSecond);

// skip_first_batches(loader, 500000) and the first batch after it: O(1), not 500k batches iterated.
void BM_SkipFirstBatches500k(benchmark::State& state) {
  DataLoaderArgs loader;
  loader.dataset_len = 1'000'000'000;
  loader.batch_size = 8;
  PrepareOptions options;
  options.num_processes = 64;
  options.process_index = 5;
  const DataLoaderShard prepared = std::get<DataLoaderShard>(prepare_data_loader(loader, options));
  for (auto _ : state) {
    DataLoaderShard skipped = prepared.skip_first_batches(500'000);
    const LoaderPass pass = skipped.iterate();
    benchmark::DoNotOptimize(pass.batch(0));
  }
}
BENCHMARK(BM_SkipFirstBatches500k)->Unit(benchmark::kNanosecond);

}  // namespace

BENCHMARK_MAIN();
