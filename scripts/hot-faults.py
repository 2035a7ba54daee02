#!/usr/bin/env python3
"""hot-faults.py LINK_MAP BINARY PERF_DATA < hot.ld > hot.ld

Refines a hot list (scripts/hot-sections.py's script, on stdin) by the code page faults of a run
of the daemon on BINARY, linked with that list (link map LINK_MAP), recorded with
`perf record -e page-faults -c 1 -d -e syscalls:sys_enter_madvise`: the daemon's madvise of its
start-up code (at ready) splits the faults into start-up and after.

- A cold section that faulted during start-up joins the start-up part of the list; one that
  faulted after it, the part the commands run. Each such fault maps a 64 kB window or a whole
  large folio of cold code; the callgrind trace misses some (code valgrind does not name, paths
  that only a run at full speed takes).
- A section of the start-up part that faulted after ready (the daemon unmaps that part once it
  is ready) moves to the commands' part.

`scripts/order-file.sh` runs it for a few rounds: a fault names only the first function touched
in its window, so the next round finds the ones the window hid.
"""
import os, re, subprocess, sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from linkmap import START_UP_BEGIN, CodeSections, hot_list_script, read_hot_list, script_entry

link_map, binary, data = sys.argv[1:4]
name = os.path.basename(binary)
run, start_up = read_hot_list(sys.stdin.read())
if not run:
    sys.exit("hot-faults: the list on stdin is not hot-sections.py's script")


# The events in time order: the binary's first mapping (file offset 0), the madvise calls, the
# fault addresses.
out = subprocess.run(["perf", "script", "-i", data, "--show-mmap-events", "-F", "event,addr,trace"],
                     capture_output=True, text=True, check=True).stdout
symbols = (line.split() for line in subprocess.run(["nm", binary], capture_output=True, text=True, check=True).stdout.splitlines())
start_up_begin = next((int(parts[0], 16) for parts in symbols if len(parts) == 3 and parts[2] == START_UP_BEGIN), None)
if start_up_begin is None:
    sys.exit(f"hot-faults: {binary} has no {START_UP_BEGIN}: not linked with the list")
base, released, start_addresses, run_addresses = None, False, [], []
for line in out.splitlines():
    if "PERF_RECORD_MMAP2" in line:
        if base is None and line.rstrip().endswith("/" + name) and " @ 0 " in line:
            base = int(re.search(r"\[(0x[0-9a-f]+)\(", line).group(1), 16)
        continue
    if "sys_enter_madvise" in line:
        m = re.search(r"start: (0x[0-9a-f]+)", line)
        if base is not None and m and int(m.group(1), 16) == base + start_up_begin:
            released = True
        continue
    m = re.fullmatch(r"\s*page-faults:\s+([0-9a-f]+)\s*", line)
    if m:
        (run_addresses if released else start_addresses).append(int(m.group(1), 16))
if base is None:
    sys.exit(f"hot-faults: {name} is not mapped in {data}")
if not released:
    sys.exit(f"hot-faults: the daemon did not unmap its start-up code in {data}")

code = CodeSections(link_map)


def entries(addresses):
    """The input section descriptions of the code at these addresses, each once, in order."""
    found, _ = code.distinct((address - base for address in addresses), set())
    return list(dict.fromkeys(entry for entry in (script_entry(origin) for _, _, origin in found) if entry is not None))


in_run, in_start_up = set(run), set(start_up)
moved, added_run, added_start_up = [], [], []
for entry in entries(run_addresses):
    if entry in in_start_up:
        moved.append(entry)
    elif entry not in in_run:
        added_run.append(entry)
    in_run.add(entry)
for entry in entries(start_addresses):
    if entry not in in_run and entry not in in_start_up:
        added_start_up.append(entry)
        in_start_up.add(entry)
moved_set = set(moved)
print(hot_list_script(run + moved + added_run, [e for e in start_up if e not in moved_set] + added_start_up), end="")
print(f"hot-faults: {len(added_run)} cold sections faulted after ready, {len(moved)} start-up ones did, "
      f"{len(added_start_up)} cold ones faulted during start-up", file=sys.stderr)
