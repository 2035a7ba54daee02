"""Counts the heap allocations in callgrind profiles: the calls to malloc, calloc, realloc,
posix_memalign, aligned_alloc, memalign, valloc and reallocarray made from outside those
functions (glibc's realloc(NULL, n) calling malloc is one allocation, not two, and so is
posix_memalign calling malloc through _mid_memalign). Calls are
recorded only while the instrumentation is on, so a profile started after a warm-up counts the
allocations of what came after it.

    python3 allocs.py FILE...      # one line per file: FILE COUNT

Reads callgrind's format (https://valgrind.org/docs/manual/cl-format.html): `fn=` opens the
caller, `cfn=` names a callee, `calls=N ...` is the number of calls to it; names may be compressed
as `(id) name` on first use and `(id)` after.
"""
import re
import sys

ALLOCATORS = {'malloc', 'calloc', 'realloc', 'posix_memalign', 'aligned_alloc', 'memalign', 'valloc',
              'reallocarray'}
# posix_memalign's and memalign's common part, which calls malloc for small alignments.
INTERNAL = ('_mid_memalign',)
NAME = re.compile(r'^\((\d+)\)(?: (.*))?$')


def internal(caller):
    return caller in ALLOCATORS or (caller or '').startswith(INTERNAL)


def allocations(path):
    names = {}

    def name(text):
        m = NAME.match(text)
        if not m:
            return text
        if m.group(2) is not None:
            names[m.group(1)] = m.group(2)
        return names.get(m.group(1), text)

    caller = callee = None
    total = 0
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            if line.startswith('fn='):
                caller, callee = name(line[3:].rstrip('\n')), None
            elif line.startswith('cfn='):
                callee = name(line[4:].rstrip('\n'))
            elif line.startswith('calls='):
                if callee in ALLOCATORS and not internal(caller):
                    total += int(line[6:].split()[0])
    return total


def main():
    for path in sys.argv[1:]:
        print(path, allocations(path))


if __name__ == '__main__':
    main()
