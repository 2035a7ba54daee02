#!/usr/bin/env python3
"""hot-faults.py PERF_DATA LINK_MAP BINARY_NAME < hot.ld > hot.ld

Adds to a hot list (scripts/hot-sections.py's script, on stdin) the cold code sections that the
daemon page-faulted in a run recorded with `perf record -e page-faults -c 1 -d` on a binary linked
with that list (link map LINK_MAP, file name BINARY_NAME). Each such fault maps a 64 kB window or
a whole large folio of cold code, so every section listed here saves that much; the callgrind
trace misses some (code valgrind does not name, paths that only a run at full speed takes).
`scripts/order-file.sh` runs it for a few rounds: a fault names only the first function touched
in its window, so the next round finds the ones the window hid.
"""
import bisect, os, re, subprocess, sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from linkmap import input_sections, script_entry

data, link_map, name = sys.argv[1:4]
script = sys.stdin.read()

# Fault addresses, and where the binary's first mapping (file offset 0) was.
out = subprocess.run(["perf", "script", "-i", data, "--show-mmap-events", "-F", "addr"],
                     capture_output=True, text=True, check=True).stdout
base, addresses = None, []
for line in out.splitlines():
    if "PERF_RECORD_MMAP2" in line:
        if base is None and line.rstrip().endswith("/" + name) and " @ 0 " in line:
            base = int(re.search(r"\[(0x[0-9a-f]+)\(", line).group(1), 16)
        continue
    field = line.strip()
    if re.fullmatch(r"[0-9a-f]+", field):
        addresses.append(int(field, 16))
if base is None:
    sys.exit(f"hot-faults: {name} is not mapped in {data}")

# The input sections of the cold code.
sections = input_sections(link_map, (".text",))
starts = [s[0] for s in sections]

listed = set(line.strip() for line in script.splitlines())
added = []
for address in addresses:
    i = bisect.bisect_right(starts, address - base) - 1
    if i < 0 or address - base >= sections[i][0] + sections[i][1]:
        continue
    entry = script_entry(sections[i][2])
    if entry is None:
        continue
    if entry not in listed:
        listed.add(entry)
        added.append("    " + entry)

end = "\n  }\n}\nINSERT BEFORE .text;"
if end not in script:
    sys.exit("hot-faults: the list on stdin is not hot-sections.py's script")
print(script.replace(end, "".join("\n" + line for line in added) + end, 1), end="")
print(f"hot-faults: {len(added)} cold sections faulted and are listed now", file=sys.stderr)
