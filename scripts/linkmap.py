"""What scripts/hot-sections.py and scripts/hot-faults.py read from lld's link map, and how they
name an input section in a linker script."""
import bisect, re


def input_sections(link_map, outputs):
    """The input sections of the output sections named in `outputs`, sorted by address, as
    (address, size, origin): lld's map lines are "VMA LMA Size Align Out In Symbol"."""
    sections, inside = [], False
    for line in open(link_map):
        m = re.match(r"^\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+\s(.*)$", line)
        if not m:
            continue
        address, size, rest = int(m.group(1), 16), int(m.group(2), 16), m.group(3)
        if not rest.startswith(" "):
            inside = rest.strip() in outputs
            continue
        if inside and size and not rest.startswith(" " * 16):
            sections.append((address, size, rest.strip()))
    sections.sort()
    return sections


class CodeSections:
    """The input sections of the code in a link map (output sections .text and .text.hot), found
    by their address in the linked file."""

    def __init__(self, link_map):
        self.sections = input_sections(link_map, (".text", ".text.hot"))
        self.starts = [s[0] for s in self.sections]

    def distinct(self, addresses, seen):
        """The sections (address, size, origin) holding `addresses`, each once (not those in
        `seen`, which it extends), in the order of their first address; and how many addresses
        fell outside the code."""
        found, outside = [], 0
        for address in addresses:
            i = bisect.bisect_right(self.starts, address) - 1
            if i < 0 or address >= self.sections[i][0] + self.sections[i][1]:
                outside += 1
                continue
            if self.sections[i][2] not in seen:
                seen.add(self.sections[i][2])
                found.append(self.sections[i])
        return found, outside


def script_entry(origin):
    """The lld input section description of a map's origin, "*/Module.build/File.swift.o(.text.name)"
    or "*/libswiftCore.a:Member.o(.text.name)"; None for an origin that is not a file's section.
    A quoted pattern is literal to lld, so a space in a file name becomes "?"."""
    m = re.match(r"^(.*?)(?:\((.+?)\))?:\((.+)\)$", origin)
    if not m:
        return None
    path, member, section = m.groups()
    parts = path.split("/")
    if member:
        pattern = f"*/{parts[-1]}:{member}"
    elif len(parts) > 1 and parts[-2].endswith(".build"):
        pattern = f"*/{parts[-2]}/{parts[-1]}"
    else:
        pattern = f"*/{parts[-1]}"
    return f"{pattern.replace(' ', '?')}({section})"


# The hot list's script: the code a burst of commands runs, then (between these two symbols,
# page-aligned) the code only start-up and shutdown run, which the daemon unmaps once it is ready
# (HouseDaemon/ProcessMemory.swift).
START_UP_BEGIN = "housectl_startup_code_start"
START_UP_END = "housectl_startup_code_end"


def read_hot_list(script):
    """The entries of a hot list's script, as (run, start_up): lists of input section descriptions
    in order. A list without the start-up marks is all `run`."""
    run, start_up, target = [], [], None
    for line in script.splitlines():
        if line.strip().startswith(".text.hot"):
            target = run
        elif START_UP_BEGIN in line:
            target = start_up
        elif START_UP_END in line or line.strip() == "}":
            target = None
        elif target is not None and line.startswith("    ") and not line.strip().startswith(". ="):
            target.append(line.strip())
    return run, start_up


def hot_list_script(run, start_up):
    """The lld script for the hot list: `run` then `start_up` in .text.hot before .text, and
    Swift's writable .rodata grouped before .rodata."""
    lines = ["/* The code `housectl serve` runs, first (scripts/order-file.sh, `make order-file`): what a burst",
             "   of commands runs, then what only start-up and shutdown run, which the daemon unmaps once",
             "   it is ready (HouseDaemon/ProcessMemory.swift). */",
             "SECTIONS {", "  .text.hot : {"]
    lines += ["    " + entry for entry in run]
    lines += ["    . = ALIGN(4096);", f"    {START_UP_BEGIN} = .;"]
    lines += ["    " + entry for entry in start_up]
    lines += ["    . = ALIGN(4096);", f"    {START_UP_END} = .;", "  }", "}", "INSERT BEFORE .text;"]
    # Swift's statically initialised objects (a constant array, say) are `.rodata` sections with
    # pointers in them, writable in a PIE for the loader's relocations: scattered over the
    # read-only data, each one the loader touches cost a dirty page and a 64 kB window of clean
    # ones. Together, they cost their size; and `.rodata` without them is read-only again.
    lines += ["SECTIONS {", "  .rodata.relocated : { INPUT_SECTION_FLAGS(SHF_WRITE) *(.rodata .rodata.*) }", "}",
              "INSERT BEFORE .rodata;"]
    return "\n".join(lines) + "\n"
