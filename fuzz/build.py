#!/usr/bin/env python3
"""Builds a libFuzzer binary for one fuzz target: the module under test is compiled again with
-sanitize=fuzzer together with the target's entry file (so internal API is reachable and the code
is instrumented); every other module is linked from the package's debug build (`swift build`).

usage: fuzz/build.py TARGET   ->  fuzz/.build/TARGET
"""
import glob, json, os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGETS = {
    "broker-packet": ("HouseBroker", "BrokerPacketFuzz.swift"),
    "subscription-tree": ("HouseBroker", "SubscriptionTreeFuzz.swift"),
    "command-payload": ("HouseDaemon", "CommandPayloadFuzz.swift"),
    "phrase-matcher": ("HouseCore", "PhraseMatcherFuzz.swift"),
    "config-loader": ("HouseCore", "ConfigLoaderFuzz.swift"),
    "hap-framing": ("HouseHomeKit", "HAPFramingFuzz.swift"),
}
# Build products that are not libraries the fuzzed modules use (tests, tools, executables).
SKIP = re.compile(r"(Tests|PackageTests|PackageDiscoveredTests|-tool)$|^(housectl.*|HouseTesting|HouseBrokerTesting|generate_.*|NIOTestUtils|"
                  r"ServiceLifecycleTestKit|PropertyBased|InMemoryLogging)$")


def module_args(module):
    """The swiftc arguments SwiftPM used for `module`, from .build/debug.yaml."""
    text = open(os.path.join(ROOT, ".build", "debug.yaml")).read()
    m = re.search(r'"C\.%s-[^"]*-debug\.module":\n(?:    .*\n)*?    args: (\[.*\])' % re.escape(module), text)
    if not m:
        sys.exit("fuzz: no compile command for %s in .build/debug.yaml; run `swift build` first" % module)
    return json.loads(m.group(1))


def current_objects(module_dir):
    """The object files of a module's build directory, without those of Swift files the module no
    longer has (a local build keeps the objects of deleted sources; a fresh clone has none)."""
    objects = sorted(glob.glob(os.path.join(module_dir, "**", "*.o"), recursive=True))
    listed = os.path.join(module_dir, "sources")
    if not os.path.exists(listed):
        return objects
    # One source per line, quoted when it has spaces.
    names = {os.path.basename(l.strip().strip("'\"")) + ".o" for l in open(listed) if l.strip()}
    return [o for o in objects if not o.endswith(".swift.o") or os.path.basename(o) in names]


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in TARGETS:
        sys.exit("usage: fuzz/build.py %s" % "|".join(TARGETS))
    target = sys.argv[1]
    module, entry = TARGETS[target]
    args = module_args(module)
    out_dir = os.path.join(ROOT, "fuzz", ".build")
    os.makedirs(out_dir, exist_ok=True)
    build_dir = None
    cleaned, skip_next = [], False
    drop_with_value = {"-emit-module-path", "-output-file-map", "-index-store-path", "-emit-objc-header-path",
                       "-module-cache-path", "-emit-dependencies-path", "-j"}
    drop = {"-emit-dependencies", "-emit-module", "-incremental", "-c", "-enable-batch-mode", "-index-ignore-system-modules",
            "-emit-objc-header", "-parseable-output"}
    sources = []
    for a in args[1:]:
        if skip_next:
            skip_next = False
            continue
        if a in drop_with_value:
            skip_next = True
            continue
        if a in drop or a.startswith("-j"):
            continue
        if a.startswith("@"):
            sources = [l for l in open(a[1:]).read().split("\n") if l.strip()]
            build_dir = os.path.dirname(os.path.dirname(a[1:]))
            continue
        cleaned.append(a)
    objects = []
    for d in sorted(glob.glob(os.path.join(build_dir, "*.build"))):
        name = os.path.basename(d)[:-len(".build")]
        if name == module or SKIP.search(name):
            continue
        objects += current_objects(d)
    output = os.path.join(out_dir, target)
    command = [args[0]] + cleaned + sources + [os.path.join(ROOT, "fuzz", "targets", entry)] + objects + [
        "-sanitize=fuzzer", "-Onone", "-o", output, "-lmosquitto", "-lgpiod", "-lsqlite3", "-lavahi-client", "-lavahi-common", "-lqrencode",
        # One frontend for the whole module, its code generated on every core it may use: without it the
        # driver starts a frontend per file, each parsing the whole module again (HouseDaemon's
        # hundred files took most of a minute a target).
        "-wmo", "-num-threads", str(len(os.sched_getaffinity(0))), "-use-ld=lld"]
    print("fuzz: building %s (%s instrumented, %d objects linked)" % (target, module, len(objects)), flush=True)
    if subprocess.run(command).returncode != 0:
        sys.exit("fuzz: building %s failed" % target)
    print("fuzz: built %s" % os.path.relpath(output, ROOT))


main()
