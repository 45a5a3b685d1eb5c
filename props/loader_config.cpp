// Generated loader configs and how a property runs one (loaders, simulator trace, JSON config).
#include "loader_config.hpp"

#include <algorithm>
#include <tuple>

#include "sim/simulator.hpp"

namespace accel::props {

std::ostream& operator<<(std::ostream& os, const LoaderConfig& c) {
  return os << "{kind=" << (c.iterable() ? "iterable" : "map") << " ranks=" << c.ranks << " dataset_len=" << c.len
            << " batch_size=" << c.batch << " split_batches=" << c.split << " even_batches=" << c.even
            << " drop_last=" << c.drop << " shuffle=" << c.shuffle << " dispatch_batches=" << c.dispatch
            << " seed=" << c.seed << "}";
}

rc::Gen<std::int64_t> int_in(std::int64_t min, std::int64_t max) {
  return rc::gen::shrink(rc::gen::inRange<std::int64_t>(min, max + 1), [min](std::int64_t x) {
    std::vector<std::int64_t> candidates;
    for (std::int64_t c = min + 1; c < std::min(x, min + 4); ++c) candidates.push_back(c);
    for (std::int64_t d = (x - min) / 2; d > 1; d /= 2) {
      for (std::int64_t c : {min + d - 1, min + d + 1}) {
        if (c > min + 3 && c < x) candidates.push_back(c);
      }
    }
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    return rc::seq::fromContainer(std::move(candidates));
  });
}

rc::Gen<LoaderConfig> gen_loader_config(GenSpec spec) {
  const auto ranks = rc::gen::weightedOneOf<std::int64_t>(
      {{9, int_in(1, spec.max_ranks)}, {1, int_in(1, spec.max_rare_ranks)}});
  const auto kind = spec.only_iterable ? rc::gen::just(DatasetKind::Iterable)
                    : spec.iterable   ? rc::gen::map(int_in(0, 1), [](std::int64_t k) { return k ? DatasetKind::Iterable : DatasetKind::Map; })
                                      : rc::gen::just(DatasetKind::Map);
  const auto flag = [](bool allowed) { return allowed ? rc::gen::arbitrary<bool>() : rc::gen::just(false); };
  // Dispatching cases cost the most (collectives every step): one in four where they are optional.
  const auto one_in_four = [](bool allowed) {
    return allowed ? rc::gen::map(rc::gen::inRange(0, 4), [](int x) { return x == 3; }) : rc::gen::just(false);
  };
  // Two tuples, because gen::apply takes generators of one shape per argument.
  const auto sizes = rc::gen::tuple(kind, ranks, int_in(spec.min_len, spec.max_len), int_in(1, spec.max_batch));
  const auto flags = rc::gen::tuple(rc::gen::arbitrary<bool>(), rc::gen::arbitrary<bool>(), rc::gen::arbitrary<bool>(),
                                    flag(spec.shuffle),
                                    spec.only_dispatch ? rc::gen::just(true) : one_in_four(spec.dispatch),
                                    rc::gen::inRange<std::uint64_t>(0, std::uint64_t{1} << 31));
  return rc::gen::apply(
      [spec](const std::tuple<DatasetKind, std::int64_t, std::int64_t, std::int64_t>& s,
             const std::tuple<bool, bool, bool, bool, bool, std::uint64_t>& f) {
        LoaderConfig c;
        std::tie(c.kind, c.ranks, c.len, c.batch) = s;
        std::tie(c.split, c.even, c.drop, c.shuffle, c.dispatch, c.seed) = f;
        // Folding keeps shrinking monotone: fewer ranks drawn, fewer ranks used.
        if (c.dispatch) {
          c.ranks = 1 + (c.ranks - 1) % spec.max_dispatch_ranks;
          c.len = spec.min_len + (c.len - spec.min_len) % (spec.max_dispatch_len - spec.min_len + 1);
        }
        if (c.split) c.batch = std::max<std::int64_t>(1, c.batch / c.ranks) * c.ranks;
        if (c.len == 0) c.shuffle = false;  // RandomSampler rejects num_samples=0
        return c;
      },
      sizes, flags);
}

std::ostream& operator<<(std::ostream& os, const Drawn& d) {
  return os << d.config << " {flag=" << d.choices.flag << " count=" << d.choices.count
            << " fraction=" << d.choices.fraction << "}";
}

rc::Gen<Drawn> gen_drawn(GenSpec spec, std::int64_t count_min, std::int64_t count_max) {
  return rc::gen::apply(
      [](LoaderConfig c, bool flag, std::int64_t count, std::int64_t fraction) {
        return Drawn{c, Choices{flag, count, fraction}};
      },
      gen_loader_config(spec), rc::gen::arbitrary<bool>(), int_in(count_min, count_max), int_in(0, 1000));
}

DataLoaderArgs loader_args(const LoaderConfig& c) {
  DataLoaderArgs a;
  a.dataset_kind = c.kind;
  a.dataset_len = c.len;
  a.batch_size = c.batch;
  a.drop_last = c.drop;
  a.shuffle = !c.iterable() && c.shuffle;
  if (c.iterable() && c.shuffle) a.dataset_generator_seed = c.seed;
  return a;
}

PrepareOptions prepare_options(const LoaderConfig& c, std::int64_t rank) {
  PrepareOptions o;
  o.num_processes = c.ranks;
  o.process_index = rank;
  o.split_batches = c.split;
  o.even_batches = c.even;
  o.dispatch_batches = c.dispatch;
  o.put_on_device = c.dispatch;
  if (!c.iterable() && c.shuffle) {
    o.use_seedable_sampler = true;
    o.data_seed = c.seed;
  }
  return o;
}

PreparedLoader prepare(const LoaderConfig& c, std::int64_t rank) {
  return prepare_data_loader(loader_args(c), prepare_options(c, rank));
}

trace::LoaderCase loader_case(const LoaderConfig& c, std::int64_t epochs, std::optional<std::int64_t> skip,
                              std::vector<trace::LoaderRole> schedule) {
  trace::LoaderCase lc;
  lc.api = skip ? "prepare_data_loader+skip_first_batches" : "prepare_data_loader";
  lc.loader = loader_args(c);
  lc.prepare = prepare_options(c);
  lc.dataset_generator = c.iterable() && c.shuffle;
  lc.epochs = epochs;
  lc.skip_first_batches = skip;
  if (schedule.empty()) {
    schedule.assign(static_cast<std::size_t>(epochs), skip ? trace::LoaderRole::Skipped : trace::LoaderRole::Prepared);
  }
  lc.schedule = std::move(schedule);
  lc.multiprocess = c.dispatch;
  return lc;
}

trace::Json config_json(const LoaderConfig& c, std::int64_t epochs) {
  trace::Json j;
  j["api"] = "prepare_data_loader";
  j["dataset_kind"] = c.iterable() ? "iterable" : "map";
  j["dataset_len"] = c.len;
  j["batch_size"] = c.batch;
  j["num_processes"] = c.ranks;
  j["split_batches"] = c.split;
  j["even_batches"] = c.even;
  j["drop_last"] = c.drop;
  j["shuffle"] = !c.iterable() && c.shuffle;
  j["use_seedable_sampler"] = !c.iterable() && c.shuffle;
  j["data_seed"] = !c.iterable() && c.shuffle ? trace::Json(c.seed) : trace::Json(nullptr);
  j["dispatch_batches"] = c.dispatch;
  j["dataset_generator"] = c.iterable() && c.shuffle;
  if (c.iterable() && c.shuffle) j["dataset_generator_seed"] = c.seed;
  j["epochs"] = epochs;
  j["multiprocess"] = c.dispatch;
  return j;
}

std::vector<trace::RankRecord> simulate_ranks(const trace::LoaderCase& lc) {
  trace::Trace t = sim::simulate(lc);
  if (t.error) RC_FAIL("case-level error " + t.error->type + ": " + t.error->message);
  return std::get<std::vector<trace::RankRecord>>(std::move(t.body));
}

}  // namespace accel::props
