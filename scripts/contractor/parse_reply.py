#!/usr/bin/env python3
"""Parse one reply of the Skill Contractor's model into the files it writes.

The parsing state of specs/skill_contractor.yaml. Input (one JSON object on
stdin):
    {"phase": "blueprint" | "implementation", "reply": "...",
     "spec_file": "word_stats.yaml" (or "word_stats.json": an L++ blueprint),
     "blueprint_validated": bool,
     "blueprint": "the spec's text so far",
     "step_files": ["scripts/word_stats.py", ...] (the plan's files for the step),
     "plan": [{"files": [...]}, ...] (the plan's steps: a file none of them writes is named as such)}
The reply must hold one JSON object {"files": {"PATH": "TEXT", ...}}, bare
or in a ```json fence; PATHs are relative to the skill's folder.
Output (one JSON object on stdout):
    {"files": {...}, "parse_error": "", "corrections": [...], "review": bool,
     "blueprint": "the spec's text: the reply's in the blueprint phase, else as given"}

parse_error says what is wrong, in words a model can act on (it goes back
into the re-prompt), "" when the reply parsed:
  - blueprint phase: exactly the spec file, which must parse as YAML (with
    the position of a YAML error) into a mapping with states; for an L++
    target (a .json spec file) the blueprint must parse as JSON (with the
    position of a JSON error) into an object with an L++ $schema and states,
    and may come with its compute mapping NAME.lppctl.yaml (docs/lpp.md);
  - implementation phase: every .py file goes through the sanitiser
    (sanitise.py: fences, smart quotes, literal newlines in strings, invisible
    characters, dashes, tabs), whose fixes are the corrections; a script that
    still does not compile is a parse error. The spec file passed its checks
    in the blueprint phase and is never regenerated: a reply that holds it
    (or an L++ blueprint's compute mapping) is a parse error; so is a file
    that is not one of the step's files (step_files): each step writes only
    what the plan gives it, so a reply never rewrites another step's files.
Nothing here touches disk; write_skill.py writes what parsed.
"""

import json
import posixpath
import re
import sys
import warnings

import sanitise

FENCED_JSON = re.compile(r"```(?:json)?[ \t]*\n(.*?)\n[ \t]*```", re.S)


TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def drop_trailing_commas(text):
    """The text with each comma before a closing } or ] (outside strings) dropped."""
    out, in_string, escaped, i = [], False, False, 0
    while i < len(text):
        c = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c == ",":
            m = TRAILING_COMMA.match(text, i)
            if m:
                i += 1
                continue
        out.append(c)
        i += 1
    return "".join(out)


def loads(text):
    """json.loads that forgives raw line breaks in strings and trailing commas."""
    try:
        return json.loads(text, strict=False)
    except ValueError:
        fixed = drop_trailing_commas(text)
        if fixed == text:
            raise
        return json.loads(fixed, strict=False)


def extract(reply):
    """The reply's JSON object, or raise ValueError saying why there is none:
    the line and column of the error in the reply, and what it is.

    The whole reply, else its fenced blocks, else the text from its first {
    to its last }. Of the fenced blocks, the objects with "files" are the
    answer: two that differ (a draft, then the final one) are an error, and
    so is one that does not parse (or a fence left open: the reply was cut)
    after the one that does, so that a draft is never written for the answer
    the model corrected it into."""
    text = reply.strip()
    if "{" not in text:
        raise ValueError("the reply holds no JSON object")
    worst = None
    try:
        v = loads(text)
        if isinstance(v, dict):
            return v
    except ValueError as e:
        worst = (e, 0, len(text))
    blocks = [(m.group(1), m.start(1)) for m in FENCED_JSON.finditer(text)]
    opened = open_fence(text)
    if opened is not None:
        blocks.append(opened)
    dicts, broken = [], []
    for c, offset in blocks:
        try:
            v = loads(c)
        except ValueError as e:
            worst = (e, offset, len(c))
            if c.lstrip().startswith("{") and '"files"' in c:
                broken.append((e, offset, len(c)))
            continue
        if isinstance(v, dict):
            dicts.append((v, offset))
    answers = [(v, o) for v, o in dicts if "files" in v]
    if answers:
        last = answers[-1][1]
        later = [b for b in broken if b[1] > last]
        if later:
            e, offset, size = later[0]
            line, col, msg = position(text, e, offset, size)
            raise ValueError(f"the reply holds a JSON object at line {text.count(chr(10), 0, offset) + 1} (in a fenced block), after the one at "
                             f"line {text.count(chr(10), 0, last) + 1}, that does not parse (line {line}, column {col}: {msg}), so which one "
                             "is the answer cannot be told (a draft, then the final one?); give only your final files")
        distinct = []
        for v, o in answers:
            if all(json.dumps(v, sort_keys=True) != json.dumps(d, sort_keys=True) for d, _ in distinct):
                distinct.append((v, o))
        if len(distinct) > 1:
            at = "; ".join(f"line {text.count(chr(10), 0, o) + 1}" for _, o in distinct)
            raise ValueError(f"the reply holds {len(distinct)} different JSON objects with \"files\" (in the fenced blocks at {at}), so which one "
                             "is the answer cannot be told (a draft, then the final one?); give only your final files")
        return distinct[0][0]
    if dicts:
        return dicts[0][0]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        try:
            v = loads(text[start:end + 1])
            if isinstance(v, dict):
                return v
        except ValueError as e:
            worst = (e, start, end + 1 - start)
    if worst is None:
        raise ValueError("the reply holds no JSON object")
    e, offset, size = worst
    line, col, msg = position(text, e, offset, size)
    raise ValueError(f"the reply is not valid JSON: line {line}, column {col}: {msg}")


def open_fence(text):
    """The text and offset of a ```json block that is never closed (the reply
    was cut inside it), or None."""
    if text.count("```") % 2 == 0:
        return None
    i = text.rfind("```")
    nl = text.find("\n", i)
    if nl < 0 or text[i + 3:nl].strip() not in ("", "json"):
        return None
    return text[nl + 1:], nl + 1


def position(text, e, offset, size):
    """The line, column and wording of a JSON error e of the candidate of
    size characters at offset in text."""
    pos = offset + getattr(e, "pos", 0)
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    msg = getattr(e, "msg", str(e))
    if getattr(e, "pos", 0) >= size:
        msg = "the JSON ends before its last object closes (a missing } or the reply was cut)"
    elif msg.startswith("Expecting ',' delimiter"):
        msg = "a comma is missing between two items (or a quote inside a string is not escaped as \\\")"
    elif msg.startswith("Expecting property name"):
        msg = "a key must be a string in double quotes"
    elif msg.startswith("Unterminated string"):
        msg = "a string is not closed (a missing \" or the reply was cut)"
    return line, col, msg


def yaml_problem(path, text):
    """Where the text fails to parse as a YAML spec, or "" (also when PyYAML is
    missing: validating then reports the YAML error with lppctl's positions)."""
    try:
        import yaml
    except ImportError:
        return ""
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else path
        what = getattr(e, "problem", None) or str(e).splitlines()[0]
        return f"{where}: the blueprint is not valid YAML: {what}; fix the YAML (indent with spaces, quote strings holding ': ')"
    if not isinstance(doc, dict) or not isinstance(doc.get("states"), dict):
        return f"{path}:1:1: the blueprint must be a YAML mapping with lpp, name, initial and states"
    return ""


def mapping_file(spec_file):
    """The compute mapping beside an L++ blueprint (docs/lpp.md), or "" for a spec."""
    return spec_file[:-len(".json")] + ".lppctl.yaml" if spec_file.endswith(".json") else ""


def json_problem(path, text):
    """Where the text fails to parse as an L++ blueprint, or "" (validating
    reports everything else with positions in the JSON)."""
    try:
        doc = json.loads(text)
    except ValueError as e:
        return f"{path}:{e.lineno}:{e.colno}: the L++ blueprint is not valid JSON: {e.msg}; fix the JSON (double quotes, no trailing commas, no comments)"
    schema = doc.get("$schema") if isinstance(doc, dict) else None
    if not isinstance(schema, str) or not schema.startswith("lpp/") or not isinstance(doc.get("states"), dict):
        return f'{path}:1:1: the L++ blueprint must be a JSON object with "$schema": "lpp/v0.2.0", states, entry_state, terminal_states, gates, actions and transitions'
    return ""


def mapping_problem(path, text):
    """Where the compute mapping fails to parse as a YAML mapping, or ""."""
    try:
        import yaml
    except ImportError:
        return ""
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else path
        return f"{where}: the compute mapping is not valid YAML: {getattr(e, 'problem', None) or str(e).splitlines()[0]}"
    if doc is not None and not isinstance(doc, dict):
        return f"{path}:1:1: the compute mapping must be a YAML mapping: units: {{NS:OP: {{script: skills/NAME/scripts/FILE.py, function: OP}}}}"
    return ""


def blueprint_files(spec_file, files):
    """The blueprint phase's files: (parse_error, blueprint text shown later)."""
    mapping = mapping_file(spec_file)
    allowed = [spec_file] + ([mapping] if mapping else [])
    if spec_file not in files or any(f not in allowed for f in files):
        want = f"the L++ blueprint {spec_file!r} (and its compute mapping {mapping!r})" if mapping else f"the spec file {spec_file!r}"
        return f"in the blueprint phase write only {want} (got {', '.join(sorted(files))}); scripts come in the implementation phase", ""
    if not mapping:
        return yaml_problem(spec_file, files[spec_file]), files[spec_file]
    problem = json_problem(spec_file, files[spec_file])
    if not problem and mapping in files:
        problem = mapping_problem(mapping, files[mapping])
    shown = files[spec_file]
    if mapping in files:
        shown = shown.rstrip("\n") + f"\n\nIts compute mapping, {mapping}:\n" + files[mapping]
    return problem, shown


def norm(path):
    """A file path as the plan and the reply may both write it (./scripts/a.py, scripts\\a.py: scripts/a.py)."""
    return posixpath.normpath(path.replace("\\", "/"))


def plan_files(plan):
    """Every file the plan's steps write (normalised); an empty set when the plan is not a list of steps."""
    out = set()
    for step in plan if isinstance(plan, list) else []:
        files = step.get("files") if isinstance(step, dict) else None
        if isinstance(files, list):
            out.update(norm(f) for f in files if isinstance(f, str))
    return out


def outside_step(files, step_files, plan=None):
    """The parse error for a reply that gives files its step does not write, or "" (no step files given: no check).

    A file another step writes is left to that step; a file no step of the
    plan writes (a helper module, a data file) is refused by name, with where
    its content goes: a skill's scripts import only the standard library
    (check_scripts.py), so a helper module would be refused later anyway.
    """
    if not isinstance(step_files, list) or not step_files or not all(isinstance(f, str) for f in step_files):
        return ""
    own = {norm(f) for f in step_files}
    extra = [f for f in sorted(files) if norm(f) not in own]
    if not extra:
        return ""
    planned = plan_files(plan)
    others = [f for f in extra if not planned or norm(f) in planned]
    unplanned = [f for f in extra if planned and norm(f) not in planned]
    mine = ", ".join(sorted(own))
    parts = []
    if others:
        parts.append(f"the reply also gives {', '.join(others)}: leave them out (each file is written by the step the plan gives it to)")
    if unplanned:
        scripts = [f for f in sorted(own) if f.endswith(".py")]
        into = f"into {', '.join(scripts)}" if scripts else "into this step's files"
        parts.append(f"the reply also gives {', '.join(unplanned)}, which no step of the plan writes: a step writes only the files the plan "
                     f"gives it, and a skill's script imports only the standard library (no module of its own), so put that code or data "
                     f"{into} itself")
    return f"this step writes only {mine} (the plan's files for it); " + "; ".join(parts) + ", and answer with this step's files only"


def answer(req):
    phase = req.get("phase", "")
    spec_file = req.get("spec_file", "")
    out = {"files": {}, "parse_error": "", "corrections": [], "review": False, "blueprint": str(req.get("blueprint", ""))}
    try:
        obj = extract(str(req.get("reply", "")))
    except ValueError as e:
        out["parse_error"] = f'{e}; answer with one JSON object {{"files": {{"PATH": "TEXT"}}}}'
        return out
    files = obj.get("files")
    if not isinstance(files, dict) or not files or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
        out["parse_error"] = 'the reply\'s "files" must map file paths (relative to the skill folder) to their text, e.g. {"files": {"scripts/count.py": "..."}}'
        return out
    installed = [f for f in sorted(files) if f.replace("\\", "/").startswith("skills/")]
    if installed:
        f = installed[0].replace("\\", "/")
        parts = f.split("/", 2)
        rel = parts[2] if len(parts) == 3 else f
        out["parse_error"] = (f"{installed[0]} is where the file will be once the skill is installed; the paths of files are "
                              f"relative to the skill folder: write it as {rel!r}")
        return out
    if phase == "blueprint":
        problem, shown = blueprint_files(spec_file, files)
        out["parse_error"] = problem
        if not problem:
            out["files"], out["blueprint"] = files, shown
        return out
    kept = [f for f in (spec_file, mapping_file(spec_file)) if f and f in files]
    if req.get("blueprint_validated") and kept:
        out["parse_error"] = f"{kept[0]} passed its checks in the blueprint phase and is never regenerated; leave it out of files"
        return out
    problem = outside_step(files, req.get("step_files"), req.get("plan"))
    if problem:
        out["parse_error"] = problem
        return out
    res = sanitise.answer({"files": files})
    out["files"], out["corrections"], out["review"] = res["files"], res["corrections"], res["review"]
    if res["errors"]:
        out["parse_error"] = "a script does not compile after the sanitiser's fixes: " + "; ".join(res["errors"])
    return out


def main():
    warnings.simplefilter("ignore")
    try:
        req = json.loads(sys.stdin.read() or "null")
        if not isinstance(req, dict):
            raise ValueError("the input must be a JSON object")
        res = answer(req)
    except (ValueError, TypeError) as e:
        print(f"parse_reply.py: {e}", file=sys.stderr)
        return 2
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
