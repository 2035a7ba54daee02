"""What scripts/hot-sections.py and scripts/hot-faults.py read from lld's link map, and how they
name an input section in a linker script."""
import re


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
