// The what-if report as one HTML page with inline SVG charts (see html_report.hpp). It only lays out what
// the analysis computed: the timeline's rows and shown steps, the coverage bins' counts, the lr curve.
#include "html_report.hpp"
#include "analysis/counted.hpp"
#include "reports/markup_escape.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <variant>

#include "reports/resume_render.hpp"

namespace accel::reports {
namespace {

using namespace html_colour;

std::string num(double v, int precision = 2) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(precision) << v;
  return os.str();
}

std::string pct(std::int64_t part, std::int64_t whole) {
  if (whole <= 0) return "0%";
  return num(100.0 * static_cast<double>(part) / static_cast<double>(whole), 1) + "%";
}

std::string ranks_text(std::int64_t a, std::int64_t b) {
  return a == b ? "rank " + std::to_string(a) : "ranks " + std::to_string(a) + "-" + std::to_string(b);
}

std::string ids_text(const std::vector<SampleId>& ids, bool more) {
  std::string s;
  for (SampleId id : ids) s += (s.empty() ? "" : ", ") + std::to_string(id);
  if (more) s += ", ...";
  return s;
}

// An "every pass" cell: the first ids (with "..." when there are more), "-" when there are none.
std::string ids_cell(bool drawn, const IdRanges& ids, std::int64_t count) {
  if (count == 0) return "-";
  if (!drawn) return "(not drawn)";
  return escape_markup(format_id_ranges(ids, count));
}

std::string swatch(const char* colour, const std::string& label) {
  return std::string("<span class=\"sw\" style=\"background:") + colour + "\"></span>" + escape_markup(label);
}

std::string rect(double x, double y, double w, double h, const char* fill, const std::string& title = "") {
  std::ostringstream os;
  os << "<rect x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\"" << num(std::max(w, 0.0)) << "\" height=\""
     << num(std::max(h, 0.0)) << "\" fill=\"" << fill << "\"";
  if (title.empty()) {
    os << "/>";
  } else {
    os << "><title>" << escape_markup(title) << "</title></rect>";
  }
  return os.str();
}

std::string text(double x, double y, const std::string& t, int size = 11, const char* anchor = "start",
                 const char* fill = nullptr, const std::string& title = "") {
  std::ostringstream os;
  os << "<text x=\"" << num(x) << "\" y=\"" << num(y) << "\" font-size=\"" << size << "\" text-anchor=\"" << anchor
     << "\"";
  if (fill) os << " fill=\"" << fill << "\" font-weight=\"bold\"";
  os << ">" << escape_markup(t);
  if (!title.empty()) os << "<title>" << escape_markup(title) << "</title>";
  os << "</text>";
  return os.str();
}

// Whether any of ranks [first, last] is in `ranks` (ascending, as the analysis lists them).
bool any_in(const std::vector<std::int64_t>& ranks, std::int64_t first, std::int64_t last) {
  const auto it = std::lower_bound(ranks.begin(), ranks.end(), first);
  return it != ranks.end() && *it <= last;
}

// Padding, in the words of a tooltip: the duplicated samples even_batches adds.
std::string padding_words(std::int64_t samples) {
  return analysis::counted(samples, "padded sample") + " (even_batches repeats the epoch's first samples: duplicated)";
}

// Steps per rank: one bar per rank (or per group of ranks at scale, the group's fewest steps drawn and its
// missing steps up to the most on top in the "no batch" colour, at least a few pixels so a short rank shows).
// When the ranks differ by a sliver of the total (391 and 390), bars from 0 would look equal: the axis then
// starts below the fewest, as far below it as the difference, so the short bars stand half as tall, and the
// axis says where it starts.
std::int64_t steps_axis_base(const analysis::Scenario& s) {
  const std::int64_t spread = s.max_steps - s.min_steps;
  return spread > 0 && spread * 5 < s.max_steps ? std::max<std::int64_t>(0, s.min_steps - spread) : 0;
}

std::string steps_chart(const analysis::Scenario& s) {
  const std::int64_t R = static_cast<std::int64_t>(s.batches_per_rank.size());
  const int width = 760, height = 150, left = 56, top = 8;
  const std::int64_t groups = std::min<std::int64_t>(R, 360);
  const double bar = static_cast<double>(width - left) / static_cast<double>(std::max<std::int64_t>(groups, 1));
  const std::int64_t spread = s.max_steps - s.min_steps;
  const std::int64_t base = steps_axis_base(s);
  const double full = static_cast<double>(std::max<std::int64_t>(s.max_steps - base, 1));
  const double plot = height - top;
  const auto y_of = [&](std::int64_t steps) { return top + plot - plot * static_cast<double>(steps - base) / full; };
  std::ostringstream os;
  os << "<svg class=\"chart\" id=\"steps\" width=\"" << width << "\" height=\"" << height + 22
     << "\" role=\"img\" aria-label=\"steps per rank\">";
  for (std::int64_t g = 0; g < groups; ++g) {
    const std::int64_t lo = g * R / groups, hi = (g + 1) * R / groups - 1;
    std::int64_t fewest = s.batches_per_rank[static_cast<std::size_t>(lo)], most = fewest;
    for (std::int64_t r = lo; r <= hi; ++r) {
      fewest = std::min(fewest, s.batches_per_rank[static_cast<std::size_t>(r)]);
      most = std::max(most, s.batches_per_rank[static_cast<std::size_t>(r)]);
    }
    const double h = top + plot - y_of(fewest);
    double missing = y_of(fewest) - y_of(s.max_steps);
    if (fewest < s.max_steps) missing = std::max(missing, 6.0);
    const double x = left + static_cast<double>(g) * bar, w = std::max(1.0, bar - (bar > 3 ? 1 : 0));
    const std::string who = ranks_text(lo, hi);
    const std::string title =
        who + ": " + (fewest == most ? std::to_string(fewest) : std::to_string(fewest) + "-" + std::to_string(most)) +
        " steps" + (fewest < s.max_steps ? " (" + std::to_string(s.max_steps - fewest) + " fewer than the most)" : "");
    os << rect(x, top + plot - h, w, h, kBatch, title);
    if (fewest < s.max_steps) os << rect(x, top + plot - h - missing, w, missing, kDone, title);
    // The analysis's padded batches (they end a rank's pass), on top of the bar in the duplicated colour.
    std::int64_t padded = 0;
    for (std::int64_t r = lo; r <= hi && r < static_cast<std::int64_t>(s.padded_batches_per_rank.size()); ++r) {
      padded = std::max(padded, s.padded_batches_per_rank[static_cast<std::size_t>(r)]);
    }
    if (padded > 0) {
      const double p = std::min(h, std::max(3.0, plot * static_cast<double>(padded) / full));
      os << rect(x, top + plot - h, w, p, kDuplicated,
                 who + ": " +
                     (padded == 1 ? "the last step holds" : "the last " + std::to_string(padded) + " steps hold") +
                     " padding (even_batches repeats the epoch's first samples: duplicated)");
    }
    // Ranks that wait forever in a collective at step min_steps: a mark at that step.
    if (any_in(s.waiting_ranks, lo, hi)) {
      os << rect(x, std::max<double>(top, y_of(s.min_steps) - 3), w, 3, kHang,
                 who + ": waits forever at step " + std::to_string(s.min_steps) +
                     " in a collective the short ranks never join");
    }
  }
  // The y axis: the most, the fewest (when it differs) and where the axis starts, each at its height.
  const auto tick = [&](std::int64_t steps, double y) {
    os << "<line x1=\"" << left - 4 << "\" y1=\"" << num(y) << "\" x2=\"" << left << "\" y2=\"" << num(y)
       << "\" stroke=\"#888\"/>" << text(left - 6, y + 4, std::to_string(steps), 11, "end");
  };
  tick(s.max_steps, top);
  if (spread > 0 && y_of(s.min_steps) - top >= 12 && top + plot - y_of(s.min_steps) >= 12) {
    tick(s.min_steps, y_of(s.min_steps));
  }
  tick(base, top + plot);
  if (base > 0) {
    // A break in the axis: the bars do not start at 0.
    os << "<path d=\"M" << left - 8 << "," << num(top + plot - 10) << " l8,-4 M" << left - 8 << ","
       << num(top + plot - 6) << " l8,-4\" stroke=\"#444\" fill=\"none\"/>";
  }
  // Readable rank ticks at any scale: at most nine labels.
  const std::int64_t ticks = std::min<std::int64_t>(R, 9);
  for (std::int64_t k = 0; k < ticks; ++k) {
    const std::int64_t r = ticks == 1 ? 0 : k * (R - 1) / (ticks - 1);
    const std::int64_t g = r * groups / std::max<std::int64_t>(R, 1);
    os << text(left + (static_cast<double>(g) + 0.5) * bar, height + 16, std::to_string(r), 11,
               k == 0           ? "start"
               : k + 1 == ticks ? "end"
                                : "middle");
  }
  os << "</svg>";
  return os.str();
}

// The difference the steps chart shows, in words: who has fewer steps and by how many.
std::string steps_difference(const analysis::Scenario& s) {
  std::string out;
  if (s.short_ranks.empty()) {
    out = "every rank: " + analysis::counted(s.max_steps, "step");
  } else {
    out = "ranks " + analysis::rank_ranges(s.short_ranks) + ": " +
          (s.min_steps == s.max_steps - 1 ? std::to_string(s.min_steps) : "as few as " + std::to_string(s.min_steps)) +
          " steps, " + std::to_string(s.max_steps - s.min_steps) + " fewer than the most (" +
          std::to_string(s.max_steps) + ")";
  }
  if (const std::int64_t base = steps_axis_base(s); base > 0) {
    out += "; the axis starts at " + std::to_string(base) + ", not 0, so the difference shows";
  }
  return out;
}

// The coverage strip: one column per bin of ids, stacked by the bin's exact counts (once, duplicated,
// dropped, before the resume point), so a bin with 34 % dropped is 34 % red. Above it, the whole dataset's
// fractions as one bar with the percentages.
std::string coverage_svg(const analysis::Scenario& s) {
  const std::int64_t n = s.config.loader.dataset_len;
  const int width = static_cast<int>(kHtmlCoverageBins), height = 40;
  std::ostringstream os;
  os << "<svg class=\"chart\" id=\"coverage\" width=\"" << width << "\" height=\"" << height + 56
     << "\" role=\"img\" aria-label=\"coverage of the dataset\">";
  if (n == 0 || s.coverage_fractions.empty()) {
    os << text(0, 20,
               n == 0         ? "no samples"
               : !s.ids_drawn ? "coverage bins not computed: the shuffle was not drawn (--draw-ids draws it)"
                              : "coverage bins not computed")
       << "</svg>";
    return os.str();
  }
  const auto& c = s.coverage.counts;
  const std::int64_t once = c.distinct - c.repeated;
  // The totals bar.
  const std::int64_t parts[] = {once, c.repeated, c.dropped, c.before_resume};
  const char* colours[] = {kOnce, kDuplicated, kDropped, kBeforeResume};
  const char* names[] = {"seen once", "seen more than once", "never seen", "seen before the checkpoint"};
  double x = 0;
  for (int k = 0; k < 4; ++k) {
    const double w = static_cast<double>(width) * static_cast<double>(parts[k]) / static_cast<double>(n);
    if (parts[k] > 0) {
      os << rect(x, 0, w, 14, colours[k],
                 std::string(names[k]) + ": " + std::to_string(parts[k]) + " of " + std::to_string(n) + " samples (" +
                     pct(parts[k], n) + ")");
    }
    x += w;
  }
  os << text(0, 27,
             "all samples: " + pct(once, n) + " once, " + pct(c.repeated, n) + " more than once, " + pct(c.dropped, n) +
                 " never seen" + (c.before_resume ? ", " + pct(c.before_resume, n) + " before the checkpoint" : ""));
  // The bins.
  const double top = 34;
  const double w = static_cast<double>(width) / static_cast<double>(s.coverage_fractions.size());
  for (std::size_t b = 0; b < s.coverage_fractions.size(); ++b) {
    const analysis::BinCounts& bin = s.coverage_fractions[b];
    const double size = static_cast<double>(std::max<std::int64_t>(bin.size(), 1));
    const std::string title =
        "ids " + std::to_string(bin.first_id) + "-" + std::to_string(bin.end_id - 1) + ": " + std::to_string(bin.once) +
        " once, " + std::to_string(bin.duplicated) + " more than once, " + std::to_string(bin.dropped) + " never seen" +
        (bin.before_resume ? ", " + std::to_string(bin.before_resume) + " before the checkpoint" : "");
    double y = top;
    const std::int64_t counts[] = {bin.once, bin.duplicated, bin.dropped, bin.before_resume};
    os << "<g><title>" << escape_markup(title) << "</title>";
    for (int k = 0; k < 4; ++k) {
      if (counts[k] == 0) continue;
      const double h = static_cast<double>(height) * static_cast<double>(counts[k]) / size;
      os << rect(static_cast<double>(b) * w, y, w + 0.4, h, colours[k]);
      y += h;
    }
    os << "</g>";
  }
  os << text(0, top + height + 14, "id 0") << text(width, top + height + 14, "id " + std::to_string(n - 1), 11, "end")
     << "</svg>";
  return os.str();
}

enum class Cell { Batch, Done, Hang, Blocked };

const char* colour_of(Cell c) {
  switch (c) {
    case Cell::Batch:
      return kBatch;
    case Cell::Done:
      return kDone;
    case Cell::Hang:
      return kHang;
    case Cell::Blocked:
      return kBlocked;
  }
  return kDone;
}

// What a row's ranks do at step j. With short ranks the job stops at step min_steps: the ranks with more
// batches enter a collective there that the short ranks never join, and wait forever.
Cell cell_at(const analysis::Scenario& s, const analysis::TimelineRow& row, std::int64_t j) {
  const bool uneven = s.min_steps < s.max_steps;
  if (uneven && j == s.min_steps && row.max_steps > s.min_steps) return Cell::Hang;
  if (uneven && j > s.min_steps && j < row.max_steps) return Cell::Blocked;
  if (j < row.min_steps) return Cell::Batch;
  return Cell::Done;
}

const char* cell_words(Cell c) {
  switch (c) {
    case Cell::Batch:
      return "a batch";
    case Cell::Done:
      return "no batch (its loader is exhausted)";
    case Cell::Hang:
      return "waits forever in a collective the short ranks never join";
    case Cell::Blocked:
      return "a batch it never reaches (blocked at an earlier step)";
  }
  return "";
}

std::string timeline_svg(const analysis::Scenario& s) {
  const analysis::Timeline& t = s.timeline;
  if (t.rows.empty() || t.step_ranges.empty()) return "<p>no steps</p>";
  const int width = 760, label = 132, gap = 26;
  std::int64_t shown = 0;
  for (const auto& [b, e] : t.step_ranges) shown += e - b;
  const std::int64_t gaps =
      static_cast<std::int64_t>(t.step_ranges.size()) - 1 + (t.step_ranges.front().first > 0 ? 1 : 0);
  const double cw = std::max(1.0, static_cast<double>(width - label - gaps * gap) / static_cast<double>(shown));
  const std::int64_t rows = static_cast<std::int64_t>(t.rows.size());
  const double ch = std::clamp(420.0 / static_cast<double>(rows), 13.0, 22.0);  // labels stay 11 px
  const double top = 16;
  std::ostringstream os;
  os << "<svg class=\"chart\" id=\"timeline\" width=\"" << width << "\" height=\""
     << num(top + static_cast<double>(rows) * ch + 24) << "\" role=\"img\" aria-label=\"per-step timeline\">";
  // Column positions: shown steps, and an elided column before each range that does not follow on.
  struct Column {
    double x, w;
    std::int64_t begin, end;  // steps [begin, end)
    bool elided;
  };
  std::vector<Column> columns;
  double x = label;
  std::int64_t next = 0;
  for (const auto& [b, e] : t.step_ranges) {
    if (b > next) {
      columns.push_back({x, static_cast<double>(gap), next, b, true});
      x += gap;
    }
    for (std::int64_t j = b; j < e; ++j) {
      columns.push_back({x, cw, j, j + 1, false});
      x += cw;
    }
    next = e;
  }
  // Step labels over the columns: each range's first and last step and the step where ranks wait, none
  // closer than 24 pixels to the one before.
  double labelled = -100;
  const bool uneven = s.min_steps < s.max_steps;
  for (const Column& c : columns) {
    if (c.elided) continue;
    bool wanted = uneven && c.begin == s.min_steps;
    for (const auto& [b, e] : t.step_ranges) wanted = wanted || c.begin == b || c.begin == e - 1;
    if (!wanted) continue;
    const double at = c.x + c.w / 2;
    if (at - labelled < 24 && !(uneven && c.begin == s.min_steps)) continue;
    os << text(at, 11, std::to_string(c.begin), 10, "middle");
    labelled = at;
  }
  for (const Column& c : columns) {
    if (c.elided) os << text(c.x + c.w / 2, 11, "...", 10, "middle");
  }
  for (std::int64_t i = 0; i < rows; ++i) {
    const analysis::TimelineRow& row = t.rows[static_cast<std::size_t>(i)];
    const double y = top + static_cast<double>(i) * ch;
    const std::string who = ranks_text(row.first_rank, row.last_rank);
    const std::string steps = row.min_steps == row.max_steps
                                  ? std::to_string(row.min_steps)
                                  : std::to_string(row.min_steps) + "-" + std::to_string(row.max_steps);
    // Rows whose ranks wait in a collective (more steps than the short ranks) stand out by their label.
    const bool waits = any_in(s.waiting_ranks, row.first_rank, row.last_rank);
    const bool short_row = any_in(s.short_ranks, row.first_rank, row.last_rank);
    os << text(0, y + ch - 3,
               who + " (" + steps + ")" +
                   (waits       ? " waits"
                    : short_row ? " short"
                                : ""),
               static_cast<int>(std::min(11.0, ch - 1)), "start", waits ? kHang : nullptr,
               waits ? who + " waits forever at step " + std::to_string(s.min_steps) +
                           " in a collective the short ranks never join"
               : short_row ? who + " has fewer steps than the others"
                           : "");
    const std::vector<std::int64_t>* padded_row =
        static_cast<std::size_t>(i) < t.padded.size() ? &t.padded[static_cast<std::size_t>(i)] : nullptr;
    std::size_t shown_index = 0;
    for (const Column& c : columns) {
      if (c.elided) {
        // Steps elided here: the row's share of them with a batch, then the rest without.
        const double span = static_cast<double>(c.end - c.begin);
        const double with = std::clamp(static_cast<double>(row.min_steps - c.begin) / span, 0.0, 1.0);
        const std::string title =
            who + ", steps " + std::to_string(c.begin) + "-" + std::to_string(c.end - 1) + " (not drawn one by one)";
        if (with > 0) os << rect(c.x + 1, y, (c.w - 2) * with, ch - 1, kBatch, title);
        if (with < 1) os << rect(c.x + 1 + (c.w - 2) * with, y, (c.w - 2) * (1 - with), ch - 1, kDone, title);
        continue;
      }
      const Cell state = cell_at(s, row, c.begin);
      std::string title = who + ", step " + std::to_string(c.begin) + ": " + cell_words(state);
      if (!t.ids_kept && state != Cell::Done && !t.ids_note.empty()) title += "; " + t.ids_note;
      if (t.ids_kept && state != Cell::Done && static_cast<std::size_t>(i) < t.ids.size() &&
          shown_index < t.ids[static_cast<std::size_t>(i)].size()) {
        const auto& ids = t.ids[static_cast<std::size_t>(i)][shown_index];
        if (!ids.empty()) {
          title +=
              "; " +
              std::string(row.first_rank == row.last_rank ? "" : "rank " + std::to_string(row.first_rank) + "'s ") +
              "sample ids " + ids_text(ids, s.config.loader.batch_size > static_cast<std::int64_t>(ids.size()));
        }
      }
      const std::int64_t padded =
          state == Cell::Batch && padded_row && shown_index < padded_row->size() ? (*padded_row)[shown_index] : 0;
      if (padded > 0) title += "; " + padding_words(padded);
      os << rect(c.x, y, std::max(1.0, c.w - (c.w > 4 ? 1 : 0)), ch - 1, padded > 0 ? kDuplicated : colour_of(state),
                 title);
      ++shown_index;
    }
  }
  os << text(label, top + static_cast<double>(rows) * ch + 16,
             "step (shown steps labelled; ... marks steps drawn as one column)")
     << "</svg>";
  return os.str();
}

std::string lr_chart(const analysis::TrainingSummary& t) {
  // Two label rows under the plot: the optimizer steps, then the epochs.
  const int width = 760, height = 180, left = 84, bottom = 40, top = 10;
  std::ostringstream os;
  os << "<svg class=\"chart\" id=\"lr\" width=\"" << width << "\" height=\"" << height + bottom
     << "\" role=\"img\" aria-label=\"learning rate over optimizer steps\">";
  if (t.lr_curve.empty()) return os.str() + text(0, 20, "no optimizer steps") + "</svg>";
  double lo = t.lr_curve.front().lr, hi = lo;
  for (const auto& p : t.lr_curve) {
    lo = std::min(lo, p.lr);
    hi = std::max(hi, p.lr);
  }
  lo = std::min(lo, 0.0);
  if (hi <= lo) hi = lo + 1;
  const double last = static_cast<double>(std::max<std::int64_t>(t.lr_curve.back().optimizer_step, 1));
  const auto px = [&](double step) { return left + (width - left - 10) * step / last; };
  const auto py = [&](double lr) { return top + (height - top) * (1 - (lr - lo) / (hi - lo)); };
  // Epoch boundaries, and each epoch's name under its span (none closer than 56 px to the one before).
  std::int64_t at = 0;
  double named = -1000;
  for (const auto& e : t.epochs) {
    const double from = px(static_cast<double>(at));
    at += e.optimizer_steps + e.skipped_steps;
    const double mid = (from + px(static_cast<double>(at))) / 2;
    if (mid - named >= 56) {
      os << text(mid, height + 32, "epoch " + std::to_string(e.epoch), 10, "middle");
      named = mid;
    }
    os << "<line x1=\"" << num(px(static_cast<double>(at))) << "\" y1=\"" << top << "\" x2=\""
       << num(px(static_cast<double>(at))) << "\" y2=\"" << height
       << "\" stroke=\"#bbb\" stroke-dasharray=\"3,3\"><title>end of epoch " << e.epoch << ": " << e.optimizer_steps
       << " optimizer steps, " << e.scheduler_steps << " scheduler steps, lr " << e.lr_end << "</title></line>";
  }
  if (t.schedule_end_optimizer_step) {
    const double xe = px(static_cast<double>(*t.schedule_end_optimizer_step));
    os << "<line x1=\"" << num(xe) << "\" y1=\"" << top << "\" x2=\"" << num(xe) << "\" y2=\"" << height
       << "\" stroke=\"" << kDropped
       << "\" stroke-width=\"2\"><title>the schedule reaches total_steps after optimizer step "
       << *t.schedule_end_optimizer_step << " of " << t.optimizer_steps << "</title></line>"
       << text(xe + 3, top + 12, "schedule ends (step " + std::to_string(*t.schedule_end_optimizer_step) + ")", 10);
  }
  // The area under the curve, then the curve.
  os << "<polygon fill=\"" << kLrArea << "\" points=\"" << num(px(0)) << "," << num(py(lo)) << " ";
  for (const auto& p : t.lr_curve) os << num(px(static_cast<double>(p.optimizer_step))) << "," << num(py(p.lr)) << " ";
  os << num(px(static_cast<double>(t.lr_curve.back().optimizer_step))) << "," << num(py(lo)) << "\"/>";
  os << "<polyline fill=\"none\" stroke=\"" << kLr << "\" stroke-width=\"2\" points=\"";
  for (const auto& p : t.lr_curve) os << num(px(static_cast<double>(p.optimizer_step))) << "," << num(py(p.lr)) << " ";
  os << "\"/>";
  // Hover points (thinned): each with its step and lr.
  const std::size_t stride = std::max<std::size_t>(1, t.lr_curve.size() / 120);
  for (std::size_t i = 0; i < t.lr_curve.size(); i += stride) {
    const auto& p = t.lr_curve[i];
    os << "<circle cx=\"" << num(px(static_cast<double>(p.optimizer_step))) << "\" cy=\"" << num(py(p.lr))
       << "\" r=\"3\" fill=\"transparent\"><title>optimizer step " << p.optimizer_step << " (epoch " << p.epoch
       << "): lr " << p.lr << ", last_epoch " << p.last_epoch << "</title></circle>";
  }
  // The y labels end left of the plot, each beside a tick at its own height, clear of the curve.
  const auto y_label = [&](double lr) {
    std::ostringstream v;
    v << lr;
    const double y = py(lr);
    os << "<line x1=\"" << left - 4 << "\" y1=\"" << num(y) << "\" x2=\"" << left << "\" y2=\"" << num(y)
       << "\" stroke=\"#888\"/>" << text(left - 6, y + 4, "lr " + v.str(), 10, "end");
  };
  y_label(hi);
  y_label(lo);
  os << text(left, height + 16, "optimizer step 0", 10)
     << text(width - 10, height + 16, "optimizer step " + std::to_string(t.lr_curve.back().optimizer_step), 10, "end")
     << "</svg>";
  return os.str();
}

// A finding's simulated fix, where it carries one: the flags of the option simulated exact (evidence "flags").
const std::string* fix_flags(const analysis::Warning& w) {
  for (const auto& [key, value] : w.evidence) {
    if (key == "flags") return std::get_if<std::string>(&value);
  }
  return nullptr;
}

// The verdict line and every finding in the list's order (errors first): a severity badge, the code, the
// section it comes from, the message and the simulated fix.
std::string findings_html(const analysis::Findings& f) {
  // The verdict in the colour of the finding it names (the first; none: all is well).
  const char* tone = "ok";
  if (!f.list.empty() && f.list.front().warning.severity == analysis::Severity::Error) tone = "bad";
  if (!f.list.empty() && f.list.front().warning.severity == analysis::Severity::Warning) tone = "warn";
  std::string out =
      std::string("<p id=\"verdict\" class=\"verdict ") + tone + "\">verdict: " + escape_markup(f.verdict) + "</p>";
  if (f.list.empty()) return out;
  out += "<ol id=\"findings\">";
  for (const analysis::Finding& x : f.list) {
    const analysis::Warning& w = x.warning;
    const char* severity = analysis::severity_name(w.severity);
    out += std::string("<li class=\"finding ") + severity + "\" data-code=\"" + escape_markup(w.code) +
           "\" data-section=\"" + escape_markup(x.section) + "\"><span class=\"badge\">" + severity + "</span><b>" +
           escape_markup(w.code) + "</b> <span class=\"section\">(" + escape_markup(x.section) + ")</span> " +
           escape_markup(w.message);
    if (const std::string* flags = fix_flags(w); flags && !flags->empty()) {
      out += "<div class=\"fix\">simulated fix: <code>" + escape_markup(*flags) + "</code></div>";
    }
    out += "</li>";
  }
  return out + "</ol>";
}

std::string training_section(const analysis::TrainingSummary& t) {
  std::ostringstream os;
  os << "<h2 id=\"training\">Training loop: lr over optimizer steps</h2><p>" << escape_markup(t.schedule)
     << ", gradient_accumulation_steps " << t.gradient_accumulation_steps << ", " << t.steps_per_optimizer_step
     << " scheduler step" << (t.steps_per_optimizer_step == 1 ? "" : "s") << " per optimizer step; "
     << t.optimizer_steps << " optimizer steps in all, lr at the end " << t.lr_end << ".</p><div class=\"legend\">"
     << swatch(kLr, "lr after each optimizer step") << swatch(kLrArea, "area under the lr")
     << swatch(kDropped, "the schedule reaches its end") << swatch("#bbb", "epoch boundary") << "</div>" << lr_chart(t);
  os << "<table id=\"training-epochs\"><tr><th>epoch</th><th>micro-steps</th><th>optimizer steps</th><th>skipped</th>"
        "<th>scheduler steps</th><th>last_epoch</th><th>lr at the end</th></tr>";
  for (const auto& e : t.epochs) {
    os << "<tr><td>" << e.epoch << "</td><td>" << e.micro_steps << "</td><td>" << e.optimizer_steps << "</td><td>"
       << e.skipped_steps << "</td><td>" << e.scheduler_steps << "</td><td>" << e.last_epoch_end << "</td><td>"
       << e.lr_end << "</td></tr>";
  }
  os << "</table>";
  return os.str();
}

std::string resume_section(const analysis::ResumeReport& r) {
  std::ostringstream os;
  os << "<h2 id=\"resume\">Resume from a checkpoint</h2><p class=\"verdict "
     << (r.outcome.identical ? "ok\">identical to the uninterrupted run"
                             : "bad\">NOT identical to the uninterrupted run")
     << "</p><table><tr><th>epoch</th><th>identical</th><th>extra</th><th>missing</th><th>first extra ids</th>"
        "<th>first missing ids</th></tr>";
  for (const auto& e : r.outcome.epochs) {
    os << "<tr><td>" << e.epoch << "</td><td>" << (e.identical ? "yes" : "no") << "</td><td>" << e.extra.count
       << "</td><td>" << e.missing.count << "</td><td>" << escape_markup(format_id_ranges(e.extra.first)) << "</td><td>"
       << escape_markup(format_id_ranges(e.missing.first)) << "</td></tr>";
  }
  os << "</table>";
  for (const auto& why : r.reasons) os << "<p class=\"reason\">" << escape_markup(why) << "</p>";
  os << "<p>recipe: " << escape_markup(r.recipe.statement) << "</p><pre>" << escape_markup(render_resume_terminal(r))
     << "</pre>";
  return os.str();
}

std::string eval_section(const analysis::EvalReport& r) {
  const auto& o = r.outcome;
  std::ostringstream os;
  os << "<h2 id=\"eval\">Evaluation: gather_for_metrics</h2><p class=\"verdict "
     << (o.exact() ? "ok\">exact: every sample reaches the metric exactly once" : "bad\">INEXACT") << "</p>";
  if (!o.error) {
    os << "<table><tr><th>steps gathered</th><th>metric samples</th><th>duplicates</th><th>missing</th><th>plain "
          "gather</th></tr><tr><td>"
       << o.steps << "</td><td>" << o.metric_samples << " of " << r.dataset_len << "</td><td>"
       << o.metric_duplicates.count << "</td><td>" << o.metric_missing.count << "</td><td>" << o.gather_samples
       << "</td></tr></table>";
  }
  return os.str();
}

}  // namespace

std::string render_html(const analysis::WhatIfReport& r, const analysis::Findings& findings,
                        const ReportSections& sections) {
  const analysis::Scenario& base = r.scenarios.front();
  std::ostringstream os;
  // No width cap on the page: the charts are 760 px and the tables as wide as their cells, none wrapped.
  os << "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>accel-sim what-if</title><style>"
        "body{font-family:sans-serif;margin:24px;color:#222}"
        "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}"
        "th{background:#f2f2f2}pre{font-size:11px;white-space:pre;overflow-x:auto;background:#f8f8f8;padding:8px}"
        "code{font-size:12px;background:#f4f4f4;padding:2px 4px;word-break:break-all}"
        "#findings{list-style:none;padding:0;margin:8px 0 16px}.finding{margin:6px 0;font-size:13px}"
        ".badge{display:inline-block;color:#fff;font-weight:bold;padding:1px 6px;margin-right:6px;border-radius:3px}"
        ".finding.error .badge{background:"
     << kErrorBadge << "}.finding.warning .badge{background:" << kWarningBadge
     << "}.finding.note .badge{background:" << kNoteBadge
     << "}.section{color:#666}.fix{margin:2px 0 0 4px}"
        ".legend{font-size:12px;margin:6px 0}.sw{display:inline-block;width:12px;height:12px;"
        "margin:0 4px 0 12px;vertical-align:middle}.legend .sw:first-child{margin-left:0}"
        "h2{font-size:16px;margin-top:28px}.meta{font-size:12px;color:#444}"
        ".verdict.bad{color:#a0006e;font-weight:bold}.verdict.warn{color:#b35900;font-weight:bold}"
        ".verdict.ok{color:#2e7d32}#verdict{font-size:15px}</style></head><body>";
  os << "<h1>accel-sim what-if</h1>" << findings_html(findings) << "<p>" << analysis::counted(r.num_processes, "rank")
     << ", " << analysis::counted(r.dataset_len, "sample") << " (" << escape_markup(r.dataset_kind) << "-style, "
     << escape_markup(r.order) << "), batch_size " << base.config.loader.batch_size << ", "
     << (r.api == "accelerator" ? "Accelerator.prepare" : "prepare_data_loader") << ".</p>";
  os << "<p class=\"meta\" id=\"command\">command: <code>"
     << escape_markup(r.command_line.empty() ? "(not recorded)" : r.command_line)
     << "</code></p><p class=\"meta\" id=\"versions\">accel-sim "
     << escape_markup(r.accel_sim_version.empty() ? "?" : r.accel_sim_version) << " &middot; HuggingFace Accelerate "
     << escape_markup(r.accelerate_version) << " semantics &middot; torch " << escape_markup(r.torch_version)
     << " shuffle (randperm" << (r.randperm_loop.empty() ? "" : ", " + escape_markup(r.randperm_loop) + " loop")
     << ")</p>";
  os << "<h2>Options compared</h2><table id=\"scenarios\"><tr><th>option</th><th>steps/epoch</th><th>samples</th>"
        "<th>duplicated</th><th>dropped</th><th>waits in a collective</th></tr>";
  for (const analysis::Scenario& s : r.scenarios) {
    os << "<tr><td>" << escape_markup(s.label) << "</td>";
    if (s.rejected || s.iteration_error) {
      os << "<td colspan=\"5\">"
         << escape_markup(s.rejected ? "rejected: " + *s.rejected : "fails: " + *s.iteration_error) << "</td></tr>";
      continue;
    }
    const auto& c = s.coverage.counts;
    os << "<td>" << s.max_steps;
    if (!s.short_ranks.empty())
      os << " (ranks " << escape_markup(analysis::rank_ranges(s.short_ranks)) << ": " << s.min_steps << ")";
    os << "</td><td>" << c.yielded << "</td><td>" << c.duplicated << "</td><td>" << c.dropped << "</td><td>"
       << (s.waiting_ranks.empty() ? "-"
                                   : "ranks " + escape_markup(analysis::rank_ranges(s.waiting_ranks)) + " at step " +
                                         std::to_string(s.min_steps))
       << "</td></tr>";
  }
  os << "</table>";
  if (!base.rejected && !base.iteration_error) {
    const bool padded = std::any_of(base.padded_batches_per_rank.begin(), base.padded_batches_per_rank.end(),
                                    [](std::int64_t n) { return n > 0; });
    os << "<h2>Per-step timeline (first pass)</h2><div class=\"legend\">" << swatch(kBatch, "a batch");
    if (padded) os << swatch(kDuplicated, "a batch with padding (duplicated samples)");
    os << swatch(kDone, "no batch (loader exhausted)") << swatch(kHang, "waits forever in a collective")
       << swatch(kBlocked, "batch never reached (blocked)") << "</div>" << timeline_svg(base);
    os << "<h2>Steps per rank (first pass)</h2><p class=\"meta\" id=\"steps-difference\">"
       << escape_markup(steps_difference(base)) << "</p><div class=\"legend\">" << swatch(kBatch, "steps with a batch");
    if (padded) os << swatch(kDuplicated, "steps with padding (duplicated samples)");
    os << swatch(kDone, "steps short of the most (no batch)");
    if (!base.waiting_ranks.empty()) os << swatch(kHang, "the step where these ranks wait forever");
    os << "</div>" << steps_chart(base);
    os << "<h2>Coverage of the dataset (first pass)</h2><div class=\"legend\">" << swatch(kOnce, "seen once")
       << swatch(kDuplicated, "seen more than once") << swatch(kDropped, "never seen");
    if (base.coverage.counts.before_resume) os << swatch(kBeforeResume, "seen before the checkpoint");
    os << "</div>" << coverage_svg(base);
    if (r.passes.epochs > 1 && !r.passes.passes.empty()) {
      os << "<h2>Every pass</h2><table id=\"passes\"><tr><th>pass</th><th>loader</th><th>steps (shortest rank)</th>"
            "<th>samples</th><th>duplicated</th><th>dropped</th><th>first duplicated ids</th><th>first dropped "
            "ids</th></tr>";
      for (const auto& p : r.passes.passes) {
        os << "<tr><td>" << p.pass << "</td><td>" << p.loader << "</td><td>" << p.max_steps
           << (p.min_steps != p.max_steps ? " (" + std::to_string(p.min_steps) + ")" : "") << "</td><td>"
           << p.samples_yielded << "</td><td>" << p.duplicated << "</td><td>" << p.dropped << "</td><td>"
           << ids_cell(p.ids_drawn, p.duplicated_ids, p.repeated) << "</td><td>"
           << ids_cell(p.ids_drawn, p.dropped_ids, p.dropped) << "</td></tr>";
      }
      os << "</table>";
      if (!r.passes.note.empty()) os << "<p class=\"meta\">" << escape_markup(r.passes.note) << "</p>";
    }
  }
  if (sections.training) os << training_section(*sections.training);
  if (sections.resume) os << resume_section(*sections.resume);
  if (sections.eval) os << eval_section(*sections.eval);
  os << "<h2>Terminal report</h2><pre id=\"terminal\">" << escape_markup(render_full_terminal(r, findings, sections))
     << "</pre></body></html>\n";
  return os.str();
}

}  // namespace accel::reports
