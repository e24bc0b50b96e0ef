#!/usr/bin/env python3
"""Random-kill soak of lppctl durable runs (see docs/runs.md, "Random-kill soak").

usage: soak.py BIN REPO ITERATIONS [SEED] [MODES]

Each iteration copies the Skills Agent's files of REPO into a fresh project,
starts `BIN run --spec specs/skills_agent.yaml --skill skills/SKILL` (the
scripted demo, offline), signals it after a random delay, and resumes it
(signalling resumes too) until it completes; then it compares the run with an
uninterrupted one: memory (L2, plan, ...) from `runs show --json`, skills.md
(run ID and timestamps aside), the output files, the skill library, every
journal step (from, to, via, vars, memory), and checks that the journal,
audit.jsonl and llm.jsonl hold only whole lines, that run.json says completed
and that no temporary file is left. After every kill, `runs --json` must not
say running; after a Ctrl-C (exit 130) it must say interrupted.

MODES (comma-separated, default all): yes (run --yes, SIGKILL), pause (no
--yes: the run pauses, exit 4, then resume --approve), sigint (SIGINT
instead of SIGKILL: exit 130 with the resume hint), early (the first kill
within 50 ms, often before the run directory exists), double (two resumes
at once: one is refused), never (--fsync never), teacher (--var
run_teacher=true: the skill library is updated).

Environment: SOAK_SKILLS (default hello_skill,ects_skill), SOAK_MAXDELAY
(seconds, default 0.8), SOAK_WORK (default /tmp/soak/work). Failures are
kept in SOAK_WORK/../fail-N and listed in log-SEED.txt.
"""
import json, os, random, re, shutil, signal, subprocess, sys, time, glob

BIN, SRC, N = sys.argv[1], sys.argv[2], int(sys.argv[3])
SEED = int(sys.argv[4]) if len(sys.argv) > 4 else int(time.time())
MODES = sys.argv[5].split(",") if len(sys.argv) > 5 else ["yes", "pause", "sigint", "early", "double", "never", "teacher"]
SKILLS = os.environ.get("SOAK_SKILLS", "hello_skill,ects_skill").split(",")
MAXDELAY = float(os.environ.get("SOAK_MAXDELAY", "0.8"))
WORK = os.environ.get("SOAK_WORK", "/tmp/soak/work")
OUT = os.path.dirname(WORK.rstrip("/"))
rng = random.Random(SEED)
PARTS = ["config/tools_config.yaml", "scripts", "claude.md", "specs/skills_agent.yaml", "specs/prompts"]

ENV = {k: v for k, v in os.environ.items() if not k.startswith(("LPPCTL_", "OPENAI_", "ANTHROPIC_", "OLLAMA_"))}


def project(dst, skill):
    if os.path.exists(dst):
        shutil.rmtree(dst)
    for p in PARTS + ["skills/" + skill]:
        s, d = os.path.join(SRC, p), os.path.join(dst, p)
        os.makedirs(os.path.dirname(d), exist_ok=True)
        if os.path.isdir(s):
            shutil.copytree(s, d, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(s, d)
    return dst


def start(root, args, delay=None, sig=signal.SIGKILL):
    """Runs lppctl; kills it with sig after delay s (if still running)."""
    with open(os.path.join(root, ".out"), "wb") as out, open(os.path.join(root, ".err"), "wb") as err:
        p = subprocess.Popen([BIN] + args, cwd=root, env=ENV, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        sent = False
        if delay is not None:
            try:
                p.wait(timeout=delay)
            except subprocess.TimeoutExpired:
                p.send_signal(sig)
                sent = True
        try:
            code = p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            code = p.wait()
            raise Exception("hung: %s" % args)
    o = open(os.path.join(root, ".out"), encoding="utf-8", errors="replace").read()
    e = open(os.path.join(root, ".err"), encoding="utf-8", errors="replace").read()
    return code, sent, o, e


def run_ids(root):
    d = os.path.join(root, ".lppctl/runs")
    if not os.path.isdir(d):
        return []
    return sorted(x for x in os.listdir(d) if not x.startswith(".") and os.path.isdir(os.path.join(d, x)))


TS = re.compile(r"### \[\d{4}-\d\d-\d\d \d\d:\d\d UTC\]")


def final(root, skill):
    ids = run_ids(root)
    assert len(ids) == 1, "runs: %s" % ids
    rid = ids[0]
    rd = os.path.join(root, ".lppctl/runs", rid)
    problems = []
    raw = open(os.path.join(rd, "journal.jsonl"), "rb").read()
    if raw and not raw.endswith(b"\n"):
        problems.append("journal does not end with a newline")
    steps = []
    for i, line in enumerate(raw.split(b"\n")[:-1] if raw.endswith(b"\n") else raw.split(b"\n"), 1):
        try:
            e = json.loads(line)
        except Exception as ex:
            problems.append("journal line %d invalid: %s: %r" % (i, ex, line[:80]))
            continue
        if e.get("type") == "step":
            steps.append(e)
    for i, s in enumerate(steps, 1):
        if s["seq"] != i:
            problems.append("step %d has seq %d" % (i, s["seq"]))
            break
    if not steps or not steps[-1].get("end"):
        problems.append("last step is not end")
    for name in ("audit.jsonl", "llm.jsonl"):
        b = open(os.path.join(rd, name), "rb").read()
        for i, line in enumerate(b.split(b"\n"), 1):
            if not line:
                continue
            try:
                json.loads(line)
            except Exception:
                problems.append("%s line %d invalid: %r" % (name, i, line[:80]))
        if b and not b.endswith(b"\n"):
            problems.append("%s torn at end" % name)
    meta = json.load(open(os.path.join(rd, "run.json")))
    if meta["status"] != "completed" or meta.get("pid"):
        problems.append("run.json status %s pid %s" % (meta["status"], meta.get("pid")))
    code, _, o, e = start(root, ["runs", "show", rid, "--json"])
    show = json.loads(o) if code == 0 else {}
    if code != 0:
        problems.append("runs show exit %d: %s" % (code, e))
    code, _, o, e = start(root, ["runs", "--json"])
    lst = [json.loads(x) for x in o.splitlines() if x.strip()]
    if [x["status"] for x in lst] != ["completed"]:
        problems.append("runs list statuses %s" % [x["status"] for x in lst])
    smd = open(os.path.join(root, "skills", skill, "skills.md")).read().replace(rid, "RUN_ID")
    smd = TS.sub("### [TS]", smd)
    outs = {}
    for f in sorted(glob.glob(os.path.join(root, "output", "**", "*"), recursive=True)):
        if os.path.isfile(f):
            outs[os.path.relpath(f, root)] = open(f, "rb").read()
    leftovers = [os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "**", ".*tmp*"), recursive=True)]
    leftovers += [os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "**", "*.tmp"), recursive=True)]
    hidden = [x for x in os.listdir(os.path.join(root, ".lppctl/runs")) if x.startswith(".")]
    sig = [(s["from"], s.get("to"), s.get("via"), json.dumps(s.get("vars"), sort_keys=True),
            json.dumps(s.get("memory"), sort_keys=True).replace(rid, "RUN_ID")) for s in steps]
    lib = os.path.join(root, ".lppctl/skills.json")
    outs["LIBRARY"] = open(lib, "rb").read() if os.path.exists(lib) else b""
    # The model's name holds the project's path (script:ROOT/skills/.../demo.yaml).
    memory = json.loads(json.dumps(show.get("memory") or {}).replace(root, "ROOT"))
    sig = [tuple(x.replace(root, "ROOT") for x in s) if isinstance(s, tuple) else s for s in sig]
    return dict(rid=rid, problems=problems, l2=memory, smd=smd, outs=outs,
                leftovers=leftovers, hidden=hidden, sig=sig, nsteps=len(steps))


def reference(skill, extra=()):
    root = project(os.path.join(WORK, "ref-" + skill + "-".join(extra)), skill)
    code, _, o, e = start(root, ["run", "--spec", "specs/skills_agent.yaml", "--skill", "skills/" + skill, "--yes", "-q"] + list(extra))
    assert code == 0, (code, o, e)
    f = final(root, skill)
    assert not f["problems"], f["problems"]
    return f


def mem_l2(m):
    return json.dumps(m, sort_keys=True)


def iteration(n, skill, mode, ref, log):
    root = project(os.path.join(WORK, "it-%d" % (n % 4)), skill)
    base = ["--spec", "specs/skills_agent.yaml", "--skill", "skills/" + skill, "-q"]
    runargs = ["run"] + base + ([] if mode == "pause" else ["--yes"]) + (["--fsync", "never"] if mode == "never" else []) + (["--var", "run_teacher=true"] if mode == "teacher" else [])
    sig = signal.SIGINT if mode == "sigint" else signal.SIGKILL
    events = []
    anomalies = []
    cmd = runargs
    attempts = 0
    while True:
        attempts += 1
        if attempts > 30:
            anomalies.append("did not complete after 30 attempts")
            break
        killp = 0.7 if attempts < 8 else 0.0
        if mode == "early" and attempts == 1:
            delay = rng.uniform(0, 0.05)
        else:
            delay = rng.uniform(0, MAXDELAY) if rng.random() < killp else None
        if mode == "double" and cmd[0] == "resume" and rng.random() < 0.5:
            # two resumes at once: at most one may proceed
            p2 = subprocess.Popen([BIN] + cmd, cwd=root, env=ENV, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            code, sent, o, e = start(root, cmd, delay, sig)
            o2, e2 = p2.communicate(timeout=60)
            events.append("  second resume: code=%d %s" % (p2.returncode, e2.decode()[-200:].strip()))
            if p2.returncode not in (0, 1, 4):
                anomalies.append("second resume exit %d: %s" % (p2.returncode, e2.decode()[-300:]))
            if p2.returncode == 1 and b"being resumed by another process" not in e2 and b"has already completed" not in e2:
                anomalies.append("second resume failed: %s" % e2.decode()[-300:])
            if p2.returncode == 0:
                code = 0 if code in (1, -9) else code
            if p2.returncode == 4 and code in (1, -9):
                code = 4
        else:
            code, sent, o, e = start(root, cmd, delay, sig)
        if sent and run_ids(root):
            c2, _, o2, e2 = start(root, ["runs", "--json"])
            st = [json.loads(x)["status"] for x in o2.splitlines() if x.strip()]
            if sig == signal.SIGKILL and code == -9 and st and st[0] == "running":
                anomalies.append("runs says running after kill -9")
            if code == 130 and st and st[0] != "interrupted":
                anomalies.append("runs says %s after Ctrl-C" % st)
        events.append("%s d=%s code=%d sent=%s" % (" ".join(cmd[:3]), "%.6f" % delay if delay is not None else "-", code, sent))
        if sig == signal.SIGINT and sent:
            if code not in (130, 0, 4):
                anomalies.append("SIGINT: exit %d (cmd %s) stderr=%r" % (code, cmd[:2], e[-300:]))
            if code == 130 and "continue with: lppctl resume" not in e and "nothing was recorded" not in e:
                anomalies.append("SIGINT: 130 without hint: %r" % e[-300:])
        elif not sent or code != -9:
            if code not in (0, 4):
                if mode == "double" and ("being resumed" in e or "already completed" in e):
                    pass
                else:
                    anomalies.append("exit %d for %s: %s" % (code, cmd, e[-500:]))
                    break
        ids = run_ids(root)
        if not ids:
            cmd = runargs
            continue
        if len(ids) > 1:
            anomalies.append("several runs: %s" % ids)
            break
        rid = ids[0]
        if code == 0 and not (sent and code == -9):
            break
        if code == 4:
            cmd = ["resume", rid, "-q", "--approve"]
        else:
            cmd = ["resume", rid, "-q"]
    if not anomalies:
        f = final(root, skill)
        anomalies += f["problems"]
        if mem_l2(f["l2"]) != mem_l2(ref["l2"]):
            anomalies.append("memory differs: %s vs %s" % (mem_l2(f["l2"])[:300], mem_l2(ref["l2"])[:300]))
        if f["smd"] != ref["smd"]:
            anomalies.append("skills.md differs")
            open(os.path.join(OUT, "smd-%d.md" % n), "w").write(f["smd"])
        if f["outs"] != ref["outs"]:
            anomalies.append("outputs differ: %s" % [k for k in set(f["outs"]) | set(ref["outs"]) if f["outs"].get(k) != ref["outs"].get(k)])
        if f["sig"] != ref["sig"]:
            for i, (a, b) in enumerate(zip(f["sig"], ref["sig"])):
                if a != b:
                    anomalies.append("step %d differs: %s vs %s" % (i + 1, a, b))
                    break
            else:
                anomalies.append("steps: %d vs %d" % (len(f["sig"]), len(ref["sig"])))
        known = [x for x in f["leftovers"] if os.path.basename(x).startswith(".lpp-") and mode == "sigint"]
        if known:
            events.append("KNOWN: a script temp file left by a tool killed on Ctrl-C: %s" % known)
        if [x for x in f["leftovers"] if x not in known]:
            anomalies.append("leftover temp files: %s" % [x for x in f["leftovers"] if x not in known])
        if f["hidden"]:
            events.append("hidden dirs left: %s" % f["hidden"])
    status = "FAIL" if anomalies else "ok"
    log.write("%d %s %s %s attempts=%d %s\n  %s\n" % (n, skill, mode, status, attempts, "; ".join(anomalies), "\n  ".join(events)))
    log.flush()
    if anomalies:
        dst = os.path.join(OUT, "fail-%d" % n)
        if os.path.exists(dst):
            shutil.rmtree(dst)
        shutil.copytree(root, dst, symlinks=True)
    return not anomalies


def main():
    os.makedirs(WORK, exist_ok=True)
    refs = {s: reference(s) for s in SKILLS}
    trefs = {s: reference(s, ("--var", "run_teacher=true")) for s in SKILLS} if "teacher" in MODES else {}
    fails = 0
    with open(os.path.join(OUT, "log-%d.txt" % SEED), "w") as log:
        log.write("seed %d modes %s\n" % (SEED, MODES))
        for n in range(N):
            skill = rng.choice(SKILLS)
            mode = rng.choice(MODES)
            try:
                ok = iteration(n, skill, mode, (trefs if mode == "teacher" else refs)[skill], log)
            except Exception as ex:
                log.write("%d %s %s ERROR %r\n" % (n, skill, mode, ex))
                ok = False
            fails += not ok
            if n % 10 == 9:
                print("iter %d fails %d" % (n + 1, fails), flush=True)
    print("done: %d iterations, %d failures (seed %d)" % (N, fails, SEED))


main()
