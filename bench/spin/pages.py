#!/usr/bin/env python3
"""Which pages of a binary a process of it has mapped: per ELF section, the
MiB present in its page table (/proc/PID/pagemap), one second after it
starts, and its RSS. For a process that waits (on stdin, say):

    bench/spin/pages.py ./lppctl mcp serve --library /tmp/s.json

Needs readelf and the right to read the process's pagemap (its owner).
"""
import subprocess, time, struct, sys
exe = sys.argv[1]; args = sys.argv[2:]
p = subprocess.Popen([exe]+args, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(1.0)
pid = p.pid
maps = open(f"/proc/{pid}/maps").read().splitlines()
secs = []
out = subprocess.check_output(["readelf","-S","-W",exe]).decode().splitlines()
for l in out:
    l = l.replace("[ ","[")
    f = l.split()
    if len(f) > 6 and f[0].startswith("[") and f[1].startswith("."):
        addr = int(f[3],16); size = int(f[5],16)
        if addr: secs.append((f[1], addr, size))
pm = open(f"/proc/{pid}/pagemap","rb")
def present(a):
    pm.seek((a//4096)*8); v = struct.unpack("Q", pm.read(8))[0]
    return (v >> 63) & 1
tot=0
for name, addr, size in secs:
    n = 0
    a = addr & ~4095
    while a < addr+size:
        n += present(a); a += 4096
    tot += n
    print(f"{name:20s} {size/1048576:7.2f} MiB  present {n*4096/1048576:7.2f} MiB")
print("total", tot*4096/1048576)
for l in open(f"/proc/{pid}/status"):
    if l.startswith(("VmRSS","RssAnon","RssFile","VmHWM")): print(l.strip())
p.kill()
