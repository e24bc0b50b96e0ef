#!/usr/bin/env python3
"""Write plain text from stdin to a .txt file in the project.

Usage: write_txt.py PATH.txt
Normalises line endings to \\n and ends the file with a newline.
"""

import argparse
import sys

from _lpp_common import ScriptError, atomic_write, main_guard, read_stdin_text, real_rel, safe_path


def main():
    ap = argparse.ArgumentParser(prog="write_txt.py", description="Write text from stdin to PATH.txt (relative to the project root).")
    ap.add_argument("path", help=".txt file to write, relative to the project root")
    ns = ap.parse_args()

    def run():
        if not ns.path.lower().endswith(".txt"):
            raise ScriptError(f"{ns.path!r} does not end in .txt (use write_file.py for other files)")
        real = safe_path(ns.path, for_write=True)
        text = read_stdin_text().replace("\r\n", "\n").replace("\r", "\n")
        if text and not text.endswith("\n"):
            text += "\n"
        n = atomic_write(real, text)
        print(f"wrote {n} bytes ({text.count(chr(10))} lines) to {real_rel(real)}")

    return main_guard(run)


if __name__ == "__main__":
    sys.exit(main())
