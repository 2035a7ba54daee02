#!/usr/bin/env python3
"""hot-sections.py [--previous LIST] BINARY LLD_MAP RUN_OUT [START_OUT...] > linker/housectl-hot.ld

Writes the lld script that puts every code section the daemon ran (by callgrind, run with
--dump-instr=yes on BINARY, whose link map is LLD_MAP) in one output section, .text.hot, before
.text: first what ran while it handled the commands (the callgrind dump RUN_OUT), then, marked as
start-up code, what ran only in the other dumps (START_OUT: start-up, shutdown). With --previous,
the sections of an earlier list that this trace did not see (the fault rounds of
scripts/hot-faults.py found them) join the start-up part; the next rounds move those that run
later. It names input sections, not symbols: a symbol list (--symbol-ordering-file) cannot name
the functions LLVM leaves unnamed (.text..L__unnamed_N), nor say which of several local functions
of the same name ran (every object has its own `objectdestroyTm`), and those are what left the
daemon's code scattered over the binary (docs/BENCHMARKS.md, "What the footprint costs").
"""
import collections, os, re, subprocess, sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from linkmap import CodeSections, hot_list_script, read_hot_list, script_entry

args = sys.argv[1:]
previous = []
if args[:1] == ["--previous"]:
    run_before, start_up_before = read_hot_list(open(args[1]).read())
    previous = run_before + start_up_before
    args = args[2:]
binary, link_map, run_out = args[:3]
start_outs = args[3:]

# 1. Every instruction address callgrind saw run in BINARY, by dump. Positions are "instr line"; an
# address is absolute (0x...), relative to the line before (+N, -N) or the same (*). The target
# of a calls= line is not a reference for the next line.
def instructions(callgrind):
    objects, functions = {}, {}
    current_object, current_function, in_binary, last = "", "", False, 0
    ran = []
    for line in open(callgrind):
        if line.startswith(("ob=", "fn=", "cob=", "cfn=")):
            kind, ident, name = re.match(r"^(c?ob|c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n")).groups()
            table = objects if kind.endswith("ob") else functions
            if name:
                table[ident] = name
            if kind == "ob":
                current_object = objects.get(ident, "")
            elif kind == "fn":
                current_function = functions.get(ident, "")
                # Valgrind 3.19 can lose the binary's name after start-up (on this VM's kernel it then
                # calls the object "???" and names functions by address): such code counts too, and
                # step 4 keeps what falls in the binary's .text.
                in_binary = current_object.endswith("/housectl") or current_object in ("", "???")
            continue
        first = line[:1]
        if line.startswith("0x"):
            last = int(line.split()[0], 16)
        elif first in "+-":
            last += int(line.split()[0])
        elif first != "*":
            continue
        if in_binary:
            ran.append((current_function, last))
    return ran


runs = [instructions(path) for path in [run_out] + start_outs]
ran = [entry for run in runs for entry in run]

# 2. Where BINARY was loaded under valgrind: the offset most named functions agree on.
symbols = {}
for line in subprocess.run(["nm", binary], capture_output=True, text=True, check=True).stdout.splitlines():
    parts = line.split()
    if len(parts) == 3:
        symbols.setdefault(parts[2], int(parts[0], 16))
offsets = collections.Counter(address - symbols[name] for name, address in ran if name in symbols)
if not offsets:
    sys.exit("hot-sections: no function of the binary in the callgrind output")
base = offsets.most_common(1)[0][0]

# 3. The sections that ran (input sections of the code in the link map), in the order callgrind
# lists them, as lld input section descriptions: those of the commands first, then the rest.
code, seen = CodeSections(link_map), set()
run, outside = code.distinct((address - base for _, address in runs[0]), seen)
start_up, outside_start = code.distinct((address - base for other in runs[1:] for _, address in other), seen)
entries = lambda found: [entry for entry in (script_entry(origin) for _, _, origin in found) if entry]
run_entries, start_up_entries = entries(run), entries(start_up)
traced = set(run_entries) | set(start_up_entries)
kept = [entry for entry in previous if entry not in traced]
print(hot_list_script(run_entries, start_up_entries + kept), end="")
mb = lambda found: sum(s[1] for s in found) / 1048576
print(f"hot-sections: {len(run)} sections, {mb(run):.1f} MB run with the commands, {len(start_up)} sections, "
      f"{mb(start_up):.1f} MB only at start-up or shutdown, {len(kept)} kept from the previous list; "
      f"{outside + outside_start} addresses outside .text", file=sys.stderr)
