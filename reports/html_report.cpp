// The what-if report as one HTML page with inline SVG charts (see html_report.hpp).
#include "html_report.hpp"

#include <algorithm>
#include <sstream>

#include "terminal_report.hpp"

namespace accel::reports {
namespace {

constexpr const char* kSeen = "#4c9a4c";
constexpr const char* kDuplicated = "#e8912d";
constexpr const char* kDropped = "#d43c3c";
constexpr const char* kIdle = "#d9d9d9";
constexpr const char* kActive = "#3b6fb6";

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string steps_chart(const analysis::Scenario& s) {
  const std::int64_t R = static_cast<std::int64_t>(s.batches_per_rank.size());
  const int width = 760, height = 160, left = 40, bottom = 20;
  const double bar = std::max(1.0, static_cast<double>(width - left) / std::max<std::int64_t>(R, 1));
  const double top = static_cast<double>(std::max<std::int64_t>(s.max_steps, 1));
  std::ostringstream os;
  os << "<svg class=\"chart\" id=\"steps\" width=\"" << width << "\" height=\"" << height + bottom
     << "\" role=\"img\" aria-label=\"steps per rank\">";
  for (std::int64_t r = 0; r < R; ++r) {
    const auto n = s.batches_per_rank[static_cast<std::size_t>(r)];
    const double h = (height - 10) * static_cast<double>(n) / top;
    const bool short_rank = n < s.max_steps;
    os << "<rect x=\"" << left + r * bar << "\" y=\"" << height - h << "\" width=\"" << std::max(1.0, bar - 1)
       << "\" height=\"" << h << "\" fill=\"" << (short_rank ? kDropped : kActive) << "\"><title>rank " << r << ": "
       << n << " steps</title></rect>";
  }
  os << "<text x=\"0\" y=\"12\" font-size=\"11\">" << s.max_steps << "</text><text x=\"0\" y=\"" << height
     << "\" font-size=\"11\">0</text><text x=\"" << left << "\" y=\"" << height + 15
     << "\" font-size=\"11\">rank 0</text><text x=\"" << width - 60 << "\" y=\"" << height + 15 << "\" font-size=\"11\">rank "
     << R - 1 << "</text></svg>";
  return os.str();
}

std::string coverage_strip_svg(const analysis::Scenario& s) {
  const std::int64_t n = s.config.loader.dataset_len;
  const int width = static_cast<int>(kHtmlCoverageBins), height = 36;
  std::ostringstream os;
  os << "<svg class=\"chart\" id=\"coverage\" width=\"" << width << "\" height=\"" << height + 16
     << "\" role=\"img\" aria-label=\"coverage strip\">";
  if (n == 0 || s.rejected) {
    os << "<text x=\"0\" y=\"20\">no samples</text></svg>";
    return os.str();
  }
  // One column per bin of ids, the worst status in the bin wins. The analysis bins it when the caller
  // asked (analysis::WhatIfOptions::coverage_bins); otherwise it is computed here, in O(bins) memory either way
  // for permutations.
  const std::int64_t bins = std::min<std::int64_t>(n, kHtmlCoverageBins);
  const std::vector<BinStatus> strip = static_cast<std::int64_t>(s.coverage_strip.size()) == bins
                                           ? s.coverage_strip
                                           : accel::analysis::coverage_strip(s.config, bins);
  const double w = static_cast<double>(width) / static_cast<double>(bins);
  for (std::int64_t b = 0; b < bins; ++b) {
    const std::int64_t lo = b * n / bins, hi = (b + 1) * n / bins;
    const BinStatus status = b < static_cast<std::int64_t>(strip.size()) ? strip[static_cast<std::size_t>(b)] : BinStatus::Dropped;
    const int worst = static_cast<int>(status);  // 0 dropped, 1 seen, 2 duplicated
    const char* color = worst == 0 ? kDropped : worst == 2 ? kDuplicated : kSeen;
    os << "<rect x=\"" << b * w << "\" y=\"0\" width=\"" << w + 0.5 << "\" height=\"" << height << "\" fill=\"" << color
       << "\"><title>ids " << lo << "-" << hi - 1 << "</title></rect>";
  }
  os << "<text x=\"0\" y=\"" << height + 13 << "\" font-size=\"11\">id 0</text><text x=\"" << width - 70 << "\" y=\""
     << height + 13 << "\" font-size=\"11\">id " << n - 1 << "</text></svg>";
  return os.str();
}

std::string timeline(const analysis::Scenario& s) {
  const std::int64_t R = static_cast<std::int64_t>(s.batches_per_rank.size());
  const std::int64_t steps = std::max<std::int64_t>(s.max_steps, 1);
  const std::int64_t rows = std::min<std::int64_t>(R, 128);
  const std::int64_t cols = std::min<std::int64_t>(steps, 200);
  const int width = 760;
  const double cw = static_cast<double>(width - 50) / static_cast<double>(cols);
  const double ch = std::max(3.0, std::min(14.0, 400.0 / static_cast<double>(rows)));
  std::ostringstream os;
  os << "<svg class=\"chart\" id=\"timeline\" width=\"" << width << "\" height=\"" << rows * ch + 20
     << "\" role=\"img\" aria-label=\"per-step timeline\">";
  for (std::int64_t row = 0; row < rows; ++row) {
    const std::int64_t r = row * R / rows;
    const auto n = s.batches_per_rank[static_cast<std::size_t>(r)];
    for (std::int64_t col = 0; col < cols; ++col) {
      const std::int64_t step = col * steps / cols;
      const char* color = step < n ? kActive : kIdle;
      // A rank that still has batches at step min_steps waits there for ranks that are done.
      if (step == s.min_steps && n > s.min_steps) color = kDropped;
      os << "<rect x=\"" << 50 + col * cw << "\" y=\"" << row * ch << "\" width=\"" << std::max(1.0, cw - 0.5)
         << "\" height=\"" << std::max(1.0, ch - 0.5) << "\" fill=\"" << color << "\"/>";
    }
    if (rows <= 32 || row % (rows / 16) == 0) {
      os << "<text x=\"0\" y=\"" << row * ch + ch - 1 << "\" font-size=\"" << std::min(11.0, ch) << "\">r" << r << "</text>";
    }
  }
  os << "<text x=\"50\" y=\"" << rows * ch + 14 << "\" font-size=\"11\">step 0</text><text x=\"" << width - 60 << "\" y=\""
     << rows * ch + 14 << "\" font-size=\"11\">step " << steps - 1 << "</text></svg>";
  return os.str();
}

}  // namespace

std::string render_html(const analysis::WhatIfReport& r) {
  const analysis::Scenario& base = r.scenarios.front();
  std::ostringstream os;
  os << "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>accel-sim what-if</title><style>"
        "body{font-family:sans-serif;margin:24px;color:#222;max-width:820px}"
        "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}"
        "th{background:#f2f2f2}pre{font-size:11px}.warn{color:#a33;margin:4px 0}.legend span{display:inline-block;width:12px;height:12px;"
        "margin:0 4px 0 12px;vertical-align:middle}h2{font-size:16px;margin-top:28px}</style></head><body>";
  os << "<h1>accel-sim what-if</h1><p>" << r.num_processes << " ranks, " << r.dataset_len << " samples (" << escape(r.dataset_kind)
     << "-style, " << escape(r.order) << "), batch_size " << base.config.loader.batch_size << ", torch " << r.torch_version
     << " shuffle order.</p>";
  os << "<h2>Options compared</h2><table id=\"scenarios\"><tr><th>option</th><th>steps/epoch</th><th>samples</th>"
        "<th>duplicated</th><th>dropped</th><th>waits in a collective</th></tr>";
  for (const analysis::Scenario& s : r.scenarios) {
    os << "<tr><td>" << escape(s.label) << "</td>";
    if (s.rejected || s.iteration_error) {
      os << "<td colspan=\"5\">" << escape(s.rejected ? "rejected: " + *s.rejected : "fails: " + *s.iteration_error)
         << "</td></tr>";
      continue;
    }
    const auto& c = s.coverage.counts;
    os << "<td>" << s.max_steps;
    if (!s.short_ranks.empty()) os << " (ranks " << analysis::rank_ranges(s.short_ranks) << ": " << s.min_steps << ")";
    os << "</td><td>" << c.yielded << "</td><td>" << c.duplicated << "</td><td>" << c.dropped << "</td><td>"
       << (s.waiting_ranks.empty() ? "-" : "ranks " + analysis::rank_ranges(s.waiting_ranks) + " at step " + std::to_string(s.min_steps))
       << "</td></tr>";
  }
  os << "</table>";
  if (!r.warnings.empty()) {
    os << "<h2>Warnings</h2>";
    for (const auto& w : r.warnings) os << "<p class=\"warn\">&#9888; " << escape(w) << "</p>";
  }
  if (!base.rejected && !base.iteration_error) {
    os << "<h2>Steps per rank</h2><div class=\"legend\"><span style=\"background:" << kActive
       << "\"></span>every step<span style=\"background:" << kDropped << "\"></span>fewer steps than other ranks</div>"
       << steps_chart(base);
    os << "<h2>Coverage of the dataset (first pass)</h2><div class=\"legend\"><span style=\"background:" << kSeen
       << "\"></span>seen once<span style=\"background:" << kDuplicated << "\"></span>duplicated<span style=\"background:"
       << kDropped << "\"></span>dropped</div>" << coverage_strip_svg(base);
    os << "<h2>Per-step timeline</h2><div class=\"legend\"><span style=\"background:" << kActive
       << "\"></span>batch<span style=\"background:" << kIdle << "\"></span>no batch (done)<span style=\"background:" << kDropped
       << "\"></span>waits forever in a collective</div>" << timeline(base);
  }
  os << "<h2>Terminal report</h2><pre>" << escape(render_terminal(r)) << "</pre></body></html>\n";
  return os.str();
}

}  // namespace accel::reports
