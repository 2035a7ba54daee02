#!/usr/bin/env python3
"""hot-sections.py CALLGRIND_OUT BINARY LLD_MAP > linker/housectl-hot.ld

Writes the lld script that puts every code section the daemon ran (by callgrind, run with
--dump-instr=yes on BINARY, whose link map is LLD_MAP) in one output section, .text.hot, before
.text. It names input sections, not symbols: a symbol list (--symbol-ordering-file) cannot name
the functions LLVM leaves unnamed (.text..L__unnamed_N), nor say which of several local functions
of the same name ran (every object has its own `objectdestroyTm`), and those are what left the
daemon's code scattered over the binary (docs/BENCHMARKS.md, "What the footprint costs").
"""
import bisect, collections, os, re, subprocess, sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from linkmap import input_sections, script_entry

callgrind, binary, link_map = sys.argv[1:4]

# 1. Every instruction address callgrind saw run in BINARY. Positions are "instr line"; an
# address is absolute (0x...), relative to the line before (+N, -N) or the same (*). The target
# of a calls= line is not a reference for the next line.
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

# 3. The input sections of the code in the link map.
sections = input_sections(link_map, (".text", ".text.hot"))
starts = [s[0] for s in sections]

# 4. The sections that ran, in the order callgrind lists them, as lld input section descriptions.
hot, seen, outside = [], set(), 0
for _, address in ran:
    i = bisect.bisect_right(starts, address - base) - 1
    if i < 0 or address - base >= sections[i][0] + sections[i][1]:
        outside += 1
        continue
    if sections[i][2] not in seen:
        seen.add(sections[i][2])
        hot.append(sections[i])
lines = ["    " + entry for entry in (script_entry(origin) for _, _, origin in hot) if entry]

print("/* The code `housectl serve` runs, first (scripts/order-file.sh, `make order-file`). */")
print("SECTIONS {\n  .text.hot : {")
print("\n".join(lines))
print("  }\n}\nINSERT BEFORE .text;")
# Swift's statically initialised objects (a constant array, say) are `.rodata` sections with
# pointers in them, writable in a PIE for the loader's relocations: scattered over the read-only
# data, each one the loader touches cost a dirty page and a 64 kB window of clean ones. Together,
# they cost their size; and `.rodata` without them is read-only again.
print("SECTIONS {\n  .rodata.relocated : { INPUT_SECTION_FLAGS(SHF_WRITE) *(.rodata .rodata.*) }\n}\nINSERT BEFORE .rodata;")
size = sum(s[1] for s in hot)
print(f"hot-sections: {len(lines)} sections, {size / 1048576:.1f} MB; {outside} addresses outside .text", file=sys.stderr)
