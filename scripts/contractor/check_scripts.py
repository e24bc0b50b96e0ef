#!/usr/bin/env python3
"""Check model-written Python scripts before anything runs them.

Input (one JSON object on stdin):
    {"files": {"scripts/a.py": "...", ...}}           the scripts' text, or
    {"paths": ["output/contractor/x/scripts/a.py"]}   files under the working directory
    optional "allowed_imports": [...] (default: ALLOWED below)
Output (one JSON object on stdout):
    {"ok": bool, "checked": N, "problems": ["path:line:col: what; how to fix"],
     "report": "the problems, one a line (or how many scripts passed)"}

A script passes when it compiles (the py_compile step, without writing .pyc
files), imports only allowed modules, calls none of the functions that
run other programs or code (the lists are in check_policy.json, next to this
script), and has no except clause that catches every exception (a bare
except, Exception, BaseException) without re-raising it: such a clause turns
a bug into what looks like a refusal of the input. The check reads the syntax tree; it never imports or runs the script.
"""

import ast
import json
import os
import sys
import warnings

# The standard-library modules a skill's compute scripts may use: data in,
# data out. Nothing that starts processes, opens sockets or loads code.
ALLOWED = [
    "argparse", "base64", "bisect", "collections", "csv", "dataclasses", "datetime", "decimal",
    "difflib", "enum", "fractions", "functools", "hashlib", "heapq", "html", "io", "itertools",
    "json", "math", "operator", "os.path", "pathlib", "random", "re", "statistics", "string",
    "sys", "textwrap", "time", "typing", "unicodedata", "__future__",
]

# The calls and modules refused whatever the allowed list says: they run
# programs or arbitrary code, open the network or load code. They are data in
# check_policy.json, next to this script, because the gateway's early filter
# refuses to run a script whose own text names them.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_policy.json"), encoding="utf-8") as _f:
    _POLICY = json.load(_f)
FORBIDDEN_CALLS = _POLICY["forbidden_calls"]
FORBIDDEN_PREFIXES = _POLICY["forbidden_call_prefixes"]
FORBIDDEN_MODULES = _POLICY["forbidden_modules"]
MAX_CHARS = 1_000_000


def dotted(node):
    """The dotted name a call's function is written as (os.path.join), or ""."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def check(path, text, allowed):
    problems = []
    if len(text) > MAX_CHARS:
        return [f"{path}:1:1: the script has {len(text)} characters (at most {MAX_CHARS}); split it"]
    try:
        compile(text, path, "exec", dont_inherit=True)
        tree = ast.parse(text, path)
    except SyntaxError as e:
        return [f"{path}:{e.lineno or 1}:{e.offset or 1}: does not compile: {e.msg}; fix the syntax (run the sanitiser first)"]
    except (ValueError, RecursionError, MemoryError) as e:
        return [f"{path}:1:1: does not compile: {type(e).__name__}: {e}"]
    aliases = {}  # local name -> module it stands for (import os as o)
    for node in ast.walk(tree):
        where = f"{path}:{getattr(node, 'lineno', 1)}:{getattr(node, 'col_offset', 0) + 1}"
        if isinstance(node, ast.Import):
            for a in node.names:
                problems += module_problem(where, a.name, allowed)
                aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                problems.append(f"{where}: relative import (from {'.' * node.level}{node.module or ''} import ...); a skill's scripts import only the standard library")
                continue
            mod = node.module or ""
            problems += module_problem(where, mod, allowed)
            for a in node.names:
                full = f"{mod}.{a.name}"
                if full in FORBIDDEN_CALLS:
                    problems.append(f"{where}: imports {full}: {FORBIDDEN_CALLS[full]}; compute the result in Python instead")
                aliases[a.asname or a.name] = full
        elif isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id in {"getattr", "setattr", "delattr"} and len(node.args) >= 2 \
                    and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str) and forbidden_attr(node.args[1].value):
                problems.append(f"{where}: {node.func.id}(..., {node.args[1].value!r}) reaches a forbidden function by name; remove it")
                continue
            name = dotted(node.func)
            if not name:
                continue
            head, _, rest = name.partition(".")
            full = aliases.get(head, head) + ("." + rest if rest else "")
            for cand in (full, name):
                prefix = next((p for p in FORBIDDEN_PREFIXES if cand.startswith(p)), "")
                if cand in FORBIDDEN_CALLS or prefix:
                    why = FORBIDDEN_CALLS.get(cand) or FORBIDDEN_PREFIXES[prefix]
                    problems.append(f"{where}: calls {name}: {why}; compute the result in Python instead")
                    break
        elif isinstance(node, ast.ExceptHandler) and catches_all(node.type) and not reraises(node):
            what = "except:" if node.type is None else f"except {ast.unparse(node.type)}"
            problems.append(f"{where}: `{what}` catches every exception, so a bug (a KeyError, a TypeError) ends the script like a refusal "
                            "of its input; catch only the exceptions the input can cause (ValueError, OSError, ...) and refuse with "
                            "sys.exit(\"why\"), or end the handler with a bare raise")
        elif isinstance(node, ast.Attribute) and node.attr in {"__subclasses__", "__globals__", "__builtins__", "__code__"}:
            problems.append(f"{where}: reaches {node.attr}, a way around the import check; remove it")
        elif isinstance(node, ast.Name) and node.id == "__builtins__":
            problems.append(f"{where}: reaches __builtins__, a way around the import check; remove it")
    return sorted(set(problems), key=lambda p: (p.split(":")[0], int(p.split(":")[1]), int(p.split(":")[2]), p))


def catches_all(typ):
    """Whether an except clause's type catches every exception: none, Exception or BaseException (alone or in a tuple)."""
    if typ is None:
        return True
    if isinstance(typ, ast.Tuple):
        return any(catches_all(t) for t in typ.elts)
    return dotted(typ) in {"Exception", "BaseException", "builtins.Exception", "builtins.BaseException"}


def reraises(handler):
    """Whether an except clause re-raises what it caught (a bare raise), so a bug still ends in its traceback."""
    return any(isinstance(n, ast.Raise) and n.exc is None for b in handler.body for n in ast.walk(b))


def forbidden_attr(attr):
    as_os = "os." + attr  # the os functions check_policy.json names, reached by name
    return attr.startswith(("exec", "spawn", "__")) or \
        attr in {"system", "popen", "fork", "kill", "eval", "compile", "import_module"} or \
        as_os in FORBIDDEN_CALLS or any(as_os.startswith(p) for p in FORBIDDEN_PREFIXES)


def module_problem(where, name, allowed):
    top = name.split(".")[0]
    if top in FORBIDDEN_MODULES:
        return [f"{where}: imports {name}: {FORBIDDEN_MODULES[top]}; use only {', '.join(sorted(allowed)[:8])}, ..."]
    if name in allowed or any(name.startswith(a + ".") for a in allowed if "." not in a):
        return []
    if top == "os" and name == "os":
        return []  # os itself is fine; its dangerous calls are checked one by one
    return [f"{where}: imports {name}, which is not allowed; allowed modules: {', '.join(sorted(allowed))}"]


def answer(req):
    if not isinstance(req, dict):
        raise ValueError('the input must be a JSON object with "files" or "paths"')
    allowed = req.get("allowed_imports", ALLOWED)
    if not isinstance(allowed, list) or not all(isinstance(a, str) for a in allowed):
        raise ValueError("allowed_imports must be a list of module names")
    files = {}
    if "files" in req:
        if not isinstance(req["files"], dict) or not all(isinstance(v, str) for v in req["files"].values()):
            raise ValueError('files must map paths to the scripts\' text, e.g. {"files": {"scripts/a.py": "print(1)"}}')
        files.update(req["files"])
    for p in req.get("paths", []) or []:
        if not isinstance(p, str):
            raise ValueError("paths must be a list of file paths")
        files[p] = None
    problems, checked = [], 0
    for path in sorted(files):
        if not path.endswith(".py"):
            continue
        text = files[path]
        if text is None:
            real = os.path.realpath(path)
            if not real.startswith(os.path.realpath(os.getcwd()) + os.sep):
                problems.append(f"{path}:1:1: is outside the project root; check scripts inside it")
                continue
            try:
                with open(real, encoding="utf-8") as f:
                    text = f.read(MAX_CHARS + 1)
            except (OSError, UnicodeDecodeError) as e:
                problems.append(f"{path}:1:1: cannot read it: {e}")
                continue
        checked += 1
        problems += check(path, text, allowed)
    report = "\n".join(problems) if problems else f"{checked} script(s) passed"
    return {"ok": not problems, "checked": checked, "problems": problems, "report": report}


def main():
    # Warnings about the checked code (invalid escapes, ...) are not ours to print.
    warnings.simplefilter("ignore")
    try:
        res = answer(json.loads(sys.stdin.read() or "null"))
    except (ValueError, TypeError) as e:
        print(f"check_scripts.py: {e}", file=sys.stderr)
        return 2
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
