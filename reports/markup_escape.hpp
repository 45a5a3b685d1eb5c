// Text escaped for XML and HTML markup (JUnit reports, the HTML page): the five predefined entities, and the
// control characters XML 1.0 forbids (all but tab, newline and carriage return) replaced by '?'.
#pragma once

#include <string>

namespace accel::reports {

inline std::string escape_markup(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += (c < 0x20 && c != '\t' && c != '\n' && c != '\r') ? '?' : static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace accel::reports
