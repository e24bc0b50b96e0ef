#!/usr/bin/env python3
"""Write stdin to a file inside the project root.

Usage: write_file.py PATH   (content on stdin)
Creates missing parent directories, replaces the file atomically and prints
what it wrote. Refuses paths outside the project root (the working directory)
and protected paths such as .git/.
"""

import argparse
import sys

from _lpp_common import atomic_write, main_guard, read_stdin_text, real_rel, safe_path


def main():
    ap = argparse.ArgumentParser(prog="write_file.py", description="Write stdin to PATH (relative to the project root), creating parent directories.")
    ap.add_argument("path", help="file to write, relative to the project root")
    ap.add_argument("--append", action="store_true", help="append instead of replacing")
    ns = ap.parse_args()

    def run():
        real = safe_path(ns.path, for_write=True)
        text = read_stdin_text()
        if ns.append:
            try:
                with open(real, encoding="utf-8") as f:
                    text = f.read() + text
            except FileNotFoundError:
                pass
        n = atomic_write(real, text)
        lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
        print(f"wrote {n} bytes ({lines} lines) to {real_rel(real)}")

    return main_guard(run)


if __name__ == "__main__":
    sys.exit(main())
