#!/usr/bin/env python3
"""hot-faults.py [--page] LINK_MAP BINARY PERF_DATA < hot.ld > hot.ld

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

With --page (a run with the page on), what it adds goes to the page's end of each part, after
the code a daemon without the page runs. Without it, a section of the page's end that faulted
moves to the part without the page (a section both run that a run with the page found first).

`scripts/order-file.sh` runs it for a few rounds: a fault names only the first function touched
in its window, so the next round finds the ones the window hid.
"""
import os, re, subprocess, sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from linkmap import START_UP_BEGIN, CodeSections, HotList, hot_list_script, read_hot_list, script_entries

args = sys.argv[1:]
page = args[:1] == ["--page"]
link_map, binary, data = args[1:4] if page else args[:3]
name = os.path.basename(binary)
hot = read_hot_list(sys.stdin.read())
if not hot.run:
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
    return script_entries(code.distinct((address - base for address in addresses), set())[0])


# Where a faulted section goes: to the end of this run's part, the commands' or start-up's; with
# the page on, that part's page end. A run without the page that faulted on the page's own code
# takes that section to its own part.
page_run, page_start_up = set(hot.page_run), set(hot.page_start_up)
start_up_before = set(hot.start_up) | page_start_up
in_run = set(hot.run) | (page_run if page else set())
in_start_up = set(hot.start_up) | (page_start_up if page else set())
to_run, to_start_up = [], []
for entry in entries(run_addresses):
    if entry not in in_run:
        to_run.append(entry)
        in_run.add(entry)
for entry in entries(start_addresses):
    if entry in in_run or entry in in_start_up:
        continue
    if entry in page_run:
        to_run.append(entry)
        in_run.add(entry)
    else:
        to_start_up.append(entry)
        in_start_up.add(entry)
taken = set(to_run) | set(to_start_up)
listed = set(hot.run) | page_run | start_up_before
hot = HotList(*([e for e in part if e not in taken] for part in hot))
if page:
    hot = hot._replace(page_run=hot.page_run + to_run, page_start_up=hot.page_start_up + to_start_up)
else:
    hot = hot._replace(run=hot.run + to_run, start_up=hot.start_up + to_start_up)
print(hot_list_script(hot), end="")
print(f"hot-faults: {sum(e not in listed for e in to_run)} cold sections faulted after ready, "
      f"{sum(e in start_up_before for e in to_run)} start-up ones did, {sum(e in page_run or (not page and e in page_start_up) for e in taken)} of the page's "
      f"moved to the part without it, {sum(e not in listed for e in to_start_up)} cold ones faulted during start-up", file=sys.stderr)
