#!/usr/bin/env python3
"""Check the entry points of a skill the Skill Contractor wrote.

The eval_interactive state of specs/skill_contractor.yaml. Input (one JSON
object on stdin): {"skill_dir": "output/contractor/word_stats", "skill":
"word_stats"}. Output: {"ok": bool, "report": "..."}.

A skill is usable when the Skills Agent and a person can start it:
  - skills.md (what the Skills Agent plans from) starts with a "# " title
    and names every script of scripts/;
  - demo.yaml (its offline run) has replies;
  - README.md says how to run it;
  - every script under scripts/ is a compute unit: it has a main guard
    (if __name__ == "__main__":) and reads its input from stdin.
The report lists every problem, one a line, with the file it is in.
"""

import json
import os
import sys

# Characters of each script's text given to the evaluation (the evidence).
MAX_SOURCE = 6000


def read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


def answer(req):
    skill_dir = str(req.get("skill_dir", "")).rstrip("/")
    real = os.path.realpath(skill_dir)
    if not real.startswith(os.path.realpath(os.getcwd()) + os.sep):
        return {"ok": False, "report": f"{skill_dir}: not a folder inside the project root", "sources": ""}
    problems = []
    scripts_dir = os.path.join(real, "scripts")
    scripts = sorted(f for f in os.listdir(scripts_dir) if f.endswith(".py")) if os.path.isdir(scripts_dir) else []
    skills_md = read(os.path.join(real, "skills.md"))
    if skills_md is None:
        problems.append(f"{skill_dir}/skills.md: missing; write the skill's description, steps and scripts for the Skills Agent")
    else:
        if not skills_md.lstrip().startswith("# "):
            problems.append(f"{skill_dir}/skills.md:1: start with a '# ' title naming the skill")
        for s in scripts:
            if s not in skills_md:
                problems.append(f"{skill_dir}/skills.md: does not name scripts/{s}; say when the Skills Agent runs it and with what input")
    demo = read(os.path.join(real, "demo.yaml"))
    if demo is None or "replies:" not in demo:
        problems.append(f"{skill_dir}/demo.yaml: missing or without replies:; write the scripted replies of an offline run")
    if read(os.path.join(real, "README.md")) is None:
        problems.append(f"{skill_dir}/README.md: missing; say what the skill does and the command that runs it")
    if not scripts:
        problems.append(f"{skill_dir}/scripts/: no Python script; the blueprint's script.run states need their compute units")
    for s in scripts:
        text = read(os.path.join(scripts_dir, s)) or ""
        if "__name__" not in text or "__main__" not in text:
            problems.append(f"{skill_dir}/scripts/{s}: no main guard (if __name__ == \"__main__\":)")
        if "sys.stdin" not in text:
            problems.append(f"{skill_dir}/scripts/{s}: does not read its input from stdin (json.load(sys.stdin))")
    sources = []
    for s in scripts:
        text = (read(os.path.join(scripts_dir, s)) or "").rstrip()
        if len(text) > MAX_SOURCE:
            text = text[:MAX_SOURCE] + f"\n[... cut at {MAX_SOURCE} characters]"
        sources.append(f"=== scripts/{s}\n{text}\n")
    if problems:
        return {"ok": False, "report": "\n".join(problems), "sources": "\n".join(sources)}
    return {"ok": True, "report": f"{skill_dir}: skills.md, demo.yaml, README.md and {len(scripts)} script(s) are in place", "sources": "\n".join(sources)}


def main():
    try:
        req = json.loads(sys.stdin.read() or "null")
        if not isinstance(req, dict):
            raise ValueError("the input must be a JSON object")
    except (ValueError, TypeError) as e:
        print(f"entry_points.py: {e}", file=sys.stderr)
        return 2
    print(json.dumps(answer(req)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
