#!/usr/bin/env python3
"""Checks an HTML report's DOM (as `chromium --dump-dom` writes it) opens with its findings, errors first.

Usage: findings_order.py PAGE.html -> exit 0 when the verdict comes first, then the findings before any section
heading (h2), the first finding an error and a warning or note among the rest; else prints what it saw, exit 1.
"""
import sys
from html.parser import HTMLParser


class Order(HTMLParser):
    def __init__(self):
        super().__init__()
        self.seen = []  # "verdict", "h2", or a finding's severity, in document order

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if a.get("id") == "verdict":
            self.seen.append("verdict")
        elif tag == "h2":
            self.seen.append("h2")
        elif tag == "li" and "finding" in classes:
            self.seen.append(next((c for c in classes if c != "finding"), "?"))


def main():
    p = Order()
    p.feed(open(sys.argv[1], encoding="utf-8").read())
    head = p.seen[:p.seen.index("h2")] if "h2" in p.seen else p.seen
    ok = (len(head) >= 3 and head[0] == "verdict" and head[1] == "error"
          and any(s in ("warning", "note") for s in head[2:]))
    if not ok:
        print(f"the page opens with {p.seen[:8]}, wanted the verdict, an error first, then a warning or note")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
