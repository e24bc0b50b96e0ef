#!/usr/bin/env python3
"""Promote a finished Skill Contractor attempt to the skill's folder.

The promoting state of specs/skill_contractor.yaml, on success only.
Input (one JSON object on stdin):
    {"from": "output/contractor/word_stats.attempt", "to": "output/contractor/word_stats"}
Output: {"promoted": "output/contractor/word_stats", "files": N}

The skill's folder is replaced by the attempt's: an earlier run's files are
removed first, so the folder holds exactly what this run wrote and checked.
Both folders must be output/contractor/<name> (the attempt <name>.attempt).

A receipt, output/contractor/<name>.attempt.promoted, is written before the
move: a run killed after the move but before it recorded the step runs this
again on resume, finds the attempt gone and its receipt there, and answers
as the first time instead of failing with "nothing to promote". The first
step of the next run (read_step.py, fresh) removes the receipt.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from _lpp_common import safe_path, json_main  # noqa: E402
from read_step import OUTPUT, RECEIPT, attempt_dir, clear  # noqa: E402


def answer(req):
    src = attempt_dir(req.get("from", ""))
    dst = str(req.get("to", "")).rstrip("/")
    parts = dst.split("/")
    if len(parts) != 3 or "/".join(parts[:2]) != OUTPUT or parts[2] + ".attempt" != src.split("/")[2]:
        raise PermissionError(f"to {dst!r} is not the folder of the attempt {src!r} ({OUTPUT}/<skill>)")
    real_src, real_dst = safe_path(src, for_write=True), safe_path(dst, for_write=True)
    receipt = safe_path(src + RECEIPT, for_write=True)
    if not os.path.isdir(real_src):
        if os.path.isfile(receipt) and os.path.isdir(real_dst) and not os.path.islink(real_dst):
            # Moved already: the run stopped before it recorded this step.
            return {"promoted": dst, "files": sum(len(f) for _, _, f in os.walk(real_dst))}
        raise ValueError(f"{src} does not exist: nothing to promote")
    with open(receipt, "w", encoding="utf-8") as f:
        f.write(dst + "\n")
    if os.path.islink(real_dst) or os.path.isfile(real_dst):
        os.remove(real_dst)
    elif os.path.isdir(real_dst):
        clear(real_dst)
        os.rmdir(real_dst)
    os.rename(real_src, real_dst)
    files = sum(len(f) for _, _, f in os.walk(real_dst))
    return {"promoted": dst, "files": files}


if __name__ == "__main__":
    sys.exit(json_main(answer, "promote.py"))
