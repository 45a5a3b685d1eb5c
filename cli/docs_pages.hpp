// The docs/ pages built into the executable (cmake/embed_docs.cmake generates their table), so that help works where
// no source tree is: `accel-sim help TOPIC --page`.
#pragma once

#include <span>
#include <string_view>

namespace accel::cli {

struct DocsPage {
  std::string_view path;  // "docs/resume.md"
  std::string_view text;  // the Markdown as it was when accel-sim was built
};

std::span<const DocsPage> docs_pages();

}  // namespace accel::cli
