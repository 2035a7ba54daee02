#!/usr/bin/env python3
"""hot-sections.py [--previous LIST] [--page PAGE_RUN_OUT --page PAGE_START_OUT...] BINARY LLD_MAP RUN_OUT [START_OUT...] > linker/housectl-hot.ld

Writes the lld script that puts every code section the daemon ran (by callgrind, run with
--dump-instr=yes on BINARY, whose link map is LLD_MAP) in one output section, .text.hot, before
.text: first what ran while it handled the commands (the callgrind dump RUN_OUT), then, marked as
start-up code, what ran only in the other dumps (START_OUT: start-up, shutdown). With --page (one
per dump), the dumps of a second run with the page on (in the same order: commands with a page
watching, then start-up and shutdown) add what only that run ran at the end of each part, so that
a daemon with the page off finds its code together as before and one with the page on finds the
page's code together after it (row 8 of `make bench`). With --previous, the sections of an
earlier list that this trace did not see (the fault rounds of scripts/hot-faults.py found them)
join the end of the start-up part (the page's end for the page's); the next rounds move those
that run later. It names input sections, not symbols: a symbol list (--symbol-ordering-file) cannot name
the functions LLVM leaves unnamed (.text..L__unnamed_N), nor say which of several local functions
of the same name ran (every object has its own `objectdestroyTm`), and those are what left the
daemon's code scattered over the binary (docs/BENCHMARKS.md, "What the footprint costs").
"""
import collections, os, re, subprocess, sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from linkmap import CodeSections, HotList, hot_list_script, read_hot_list, script_entries

args = sys.argv[1:]
previous, page_outs = None, []
while args[:1] in (["--previous"], ["--page"]):
    if args[0] == "--previous":
        previous = read_hot_list(open(args[1]).read())
    else:
        page_outs.append(args[1])
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


# 2. Where BINARY was loaded under valgrind (each run on its own): the offset most named functions
# agree on.
symbols = collections.defaultdict(list)
for line in subprocess.run(["nm", binary], capture_output=True, text=True, check=True).stdout.splitlines():
    parts = line.split()
    if len(parts) == 3:
        symbols[parts[2]].append(int(parts[0], 16))
code = CodeSections(link_map)


def traced(paths):
    """The file offsets of the instructions of each dump of one run of BINARY."""
    runs = [instructions(path) for path in paths]
    offsets = collections.Counter(address - symbols[name][0] for run in runs for name, address in run if name in symbols)
    if not offsets:
        sys.exit(f"hot-sections: no function of the binary in {', '.join(paths)}")
    base = offsets.most_common(1)[0][0]

    def offset(name, address):
        # Valgrind 3.19 gives some instructions at their address in the file rather than where it
        # loaded the binary (code that NIO's threads run, with the page on): the function's name
        # says which, by the section that holds it. Local functions can share a name.
        homes = symbols.get(name, [])
        if len(homes) == 1:
            return homes[0]
        for candidate in (address - base, address):
            section = code.find(candidate)
            if section and any(section[0] <= home < section[0] + section[1] for home in homes):
                return candidate
        return address - base

    return [[offset(name, address) for name, address in run] for run in runs]


plain = traced([run_out] + start_outs)
page = traced(page_outs) if page_outs else [[]]

# 3. The sections that ran (input sections of the code in the link map), in the order callgrind
# lists them, as lld input section descriptions: those of the commands first (the page's own at
# the end), then the rest (likewise).
seen, outside = set(), 0
groups = []
for addresses in (plain[0], page[0], [a for dump in plain[1:] for a in dump], [a for dump in page[1:] for a in dump]):
    # In HotList's order.
    found, missed = code.distinct(addresses, seen)
    groups.append(found)
    outside += missed
hot = HotList(*(script_entries(group) for group in groups))
in_trace = {entry for part in hot for entry in part}
# What the earlier list's fault rounds found and this trace did not see: with the start-up code,
# the page's with the page's.
kept = [entry for entry in (previous.run + previous.start_up if previous else []) if entry not in in_trace]
kept_page = [entry for entry in (previous.page_run + previous.page_start_up if previous else []) if entry not in in_trace]
print(hot_list_script(hot._replace(start_up=hot.start_up + kept, page_start_up=hot.page_start_up + kept_page)), end="")
mb = lambda found: sum(s[1] for s in found) / 1048576
print(f"hot-sections: {len(groups[0])} sections, {mb(groups[0]):.1f} MB run with the commands "
      f"(and {mb(groups[1]):.1f} MB more with a page watching), {len(groups[2])} sections, "
      f"{mb(groups[2]):.1f} MB only at start-up or shutdown (and {mb(groups[3]):.1f} MB more with the page on), "
      f"{len(kept) + len(kept_page)} kept from the previous list; {outside} addresses outside .text", file=sys.stderr)
