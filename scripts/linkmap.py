"""What scripts/hot-sections.py and scripts/hot-faults.py read from lld's link map, and how they
name an input section in a linker script."""
import bisect, collections, re


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

    def find(self, address):
        """The section (address, size, origin) holding `address`, or None."""
        i = bisect.bisect_right(self.starts, address) - 1
        if i < 0 or address >= self.sections[i][0] + self.sections[i][1]:
            return None
        return self.sections[i]

    def distinct(self, addresses, seen):
        """The sections (address, size, origin) holding `addresses`, each once (not those in
        `seen`, which it extends), in the order of their first address; and how many addresses
        fell outside the code."""
        found, outside = [], 0
        for address in addresses:
            section = self.find(address)
            if section is None:
                outside += 1
            elif section[2] not in seen:
                seen.add(section[2])
                found.append(section)
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


def script_entries(found):
    """The lld input section descriptions of sections (address, size, origin), each once, in
    order (two origins can give the same description: the same file name in two directories)."""
    return list(dict.fromkeys(entry for entry in (script_entry(origin) for _, _, origin in found) if entry is not None))


# The hot list's script: the code a burst of commands runs, then (between these two symbols,
# page-aligned) the code only start-up and shutdown run, which the daemon unmaps once it is ready
# (HouseDaemon/ProcessMemory.swift).
START_UP_BEGIN = "housectl_startup_code_start"
START_UP_END = "housectl_startup_code_end"


# Within each part, the sections only a daemon with the page on runs come after this line, so that
# a daemon without the page finds its own code together.
PAGE_MARK = "/* with the page on: */"

HotList = collections.namedtuple("HotList", "run page_run start_up page_start_up")
HotList.__doc__ = """A hot list's input section descriptions, in order: what the commands run (without
and then with the page on), then what only start-up and shutdown run (likewise)."""


def read_hot_list(script):
    """The entries of a hot list's script (a HotList), one "*/File.o(.text.name)" per section. A
    list without the start-up marks is all `run`."""
    hot, target = HotList([], [], [], []), None
    for line in script.splitlines():
        entry = line.strip()
        if entry.startswith(".text.hot"):
            target = hot.run
        elif START_UP_BEGIN in line:
            target = hot.start_up
        elif entry == PAGE_MARK:
            target = hot.page_run if target is hot.run else hot.page_start_up
        elif START_UP_END in line or entry == "}":
            target = None
        elif target is not None and line.startswith("    ") and not entry.startswith(". ="):
            pattern, paren, sections = entry.partition("(")
            if not paren or not sections.endswith(")"):
                target.append(entry)  # not a "file(sections)" description: kept as it is
                continue
            target.extend(f"{pattern}({section})" for section in sections[:-1].split())
    return hot


def grouped(entries):
    """The descriptions for `entries`, one a file: "*/File.o(.text.a .text.b)", the files in the
    order of their first entry. lld matches every input section against every description in
    turn: one a section (12,600 of them) took its link three minutes. Within a file lld places
    the sections in the file's order, not the list's; a part still holds the same sections."""
    files = {}  # (file pattern, whether it is one) -> its sections
    for entry in entries:
        pattern, paren, section = entry.partition("(")
        if paren and section.endswith(")"):
            files.setdefault((pattern, True), []).append(section[:-1])
        else:
            files.setdefault((entry, False), [])  # not a "file(section)" entry: written as it is
    return [f"{pattern}({' '.join(sections)})" if isFile else pattern for (pattern, isFile), sections in files.items()]


def hot_list_script(hot):
    """The lld script for a HotList: its parts in .text.hot before .text, the start-up ones
    between page-aligned marks, and Swift's writable .rodata grouped before .rodata."""
    lines = ["/* The code `housectl serve` runs, first (scripts/order-file.sh, `make order-file`): what a burst",
             "   of commands runs, then what only start-up and shutdown run, which the daemon unmaps once",
             "   it is ready (HouseDaemon/ProcessMemory.swift). */",
             "SECTIONS {", "  .text.hot : {"]
    lines += ["    " + entry for entry in grouped(hot.run)] + ["    " + PAGE_MARK] + ["    " + entry for entry in grouped(hot.page_run)]
    lines += ["    . = ALIGN(4096);", f"    {START_UP_BEGIN} = .;"]
    lines += ["    " + entry for entry in grouped(hot.start_up)] + ["    " + PAGE_MARK] + ["    " + entry for entry in grouped(hot.page_start_up)]
    lines += ["    . = ALIGN(4096);", f"    {START_UP_END} = .;", "  }", "}", "INSERT BEFORE .text;"]
    # Swift's statically initialised objects (a constant array, say) are `.rodata` sections with
    # pointers in them, writable in a PIE for the loader's relocations: scattered over the
    # read-only data, each one the loader touches cost a dirty page and a 64 kB window of clean
    # ones. Together, they cost their size; and `.rodata` without them is read-only again.
    lines += ["SECTIONS {", "  .rodata.relocated : { INPUT_SECTION_FLAGS(SHF_WRITE) *(.rodata .rodata.*) }", "}",
              "INSERT BEFORE .rodata;"]
    return "\n".join(lines) + "\n"
