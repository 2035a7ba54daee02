#!/bin/bash
# make test-vm: runs housectl's libgpiod backend against a real kernel GPIO chip (gpio-sim) in a VM.
#
# 1. Fetches Debian packages with apt-get into $VM_CACHE (default .cache/vm): the kernel image,
#    its headers and kbuild, linux-source (for gpio-sim.c and irq_sim.c) and busybox-static.
#    Host tools (qemu-system-x86, cpio) are installed with apt-get when missing (needs root).
# 2. Builds gpio-sim.ko out of tree (Tests/VM/module) and the test program housectl-gpio-vmtest.
# 3. Builds an initramfs (busybox, modules, the program and its shared libraries, the board
#    profile, Tests/VM/init.sh as /init) and boots it in qemu (TCG, serial console, `timeout`).
# 4. Prints the VMTEST lines from the console; exits non-zero if a check failed or the VM did not finish.
#
# Environment: VM_CACHE, VM_BOARD (board profile, default devices/waveshare-rpi-relay-board.yaml),
# VM_KERNEL_ABI (e.g. 6.1.0-56-amd64; default: the one cached, else linux-image-amd64's),
# VM_TIMEOUT (seconds for the VM, default 300), VM_LOG (console log, default $VM_CACHE/console.log).
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
cache=${VM_CACHE:-$repo/.cache/vm}
board=${VM_BOARD:-devices/waveshare-rpi-relay-board.yaml}
timeout_s=${VM_TIMEOUT:-300}
log=${VM_LOG:-$cache/console.log}
mkdir -p "$cache/debs"
say() { echo "test-vm: $*"; }
die() { echo "test-vm: error: $*" >&2; exit 2; }
t0=$(date +%s)

[ -f "$board" ] || die "no board profile $board"

# --- Host tools -------------------------------------------------------------------------------
missing=()
command -v qemu-system-x86_64 >/dev/null || missing+=(qemu-system-x86)
command -v cpio >/dev/null || missing+=(cpio)
command -v gcc-12 >/dev/null || missing+=(gcc-12)
command -v make >/dev/null || missing+=(make)
command -v gpioset >/dev/null || missing+=(gpiod)
if [ ${#missing[@]} -gt 0 ]; then
    [ "$(id -u)" = 0 ] || die "missing ${missing[*]}; install them (apt-get install ${missing[*]}) or run as root"
    say "installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- Debian packages --------------------------------------------------------------------------
abi=${VM_KERNEL_ABI:-$(cat "$cache/kernel-abi" 2>/dev/null || true)}
if [ -z "$abi" ]; then
    image=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: linux-image-\(.*\)$/\1/p' | head -1)
    if [ -z "$image" ]; then
        apt-get update -qq
        image=$(apt-cache depends linux-image-amd64 | sed -n 's/^ *Depends: linux-image-\(.*\)$/\1/p' | head -1)
    fi
    abi=$image
    [ -n "$abi" ] || die "cannot find the kernel behind linux-image-amd64 with apt-cache"
fi
series=${abi%%.0-*}          # 6.1.0-56-amd64 -> 6.1
flavour=${abi##*-}           # amd64
common=${abi%-"$flavour"}    # 6.1.0-56
packages=(linux-image-"$abi" linux-headers-"$abi" linux-headers-"$common"-common linux-kbuild-"$series" linux-source-"$series" busybox-static)
need=()
for p in "${packages[@]}"; do
    ls "$cache/debs/${p}_"*.deb >/dev/null 2>&1 || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
    say "downloading ${need[*]}"
    (cd "$cache/debs" && apt-get download -q -o APT::Sandbox::User=root "${need[@]}" >/dev/null) \
        || { apt-get update -qq && (cd "$cache/debs" && apt-get download -q -o APT::Sandbox::User=root "${need[@]}" >/dev/null); } \
        || die "apt-get download ${need[*]} failed"
fi
echo "$abi" > "$cache/kernel-abi"

# --- Unpack: kernel, headers, kbuild, busybox; gpio-sim sources --------------------------------
root=$cache/root-$abi
if [ ! -f "$root/.unpacked" ]; then
    say "unpacking the kernel, headers and busybox"
    rm -rf "$root" && mkdir -p "$root"
    for p in linux-image-"$abi" linux-headers-"$abi" linux-headers-"$common"-common linux-kbuild-"$series" busybox-static; do
        dpkg-deb -x "$(ls "$cache/debs/${p}_"*.deb | tail -1)" "$root"
    done
    # The headers' Makefile includes the common tree by its installed path; point it at ours.
    sed -i "s|/usr/src/|$root/usr/src/|g" "$root/usr/src/linux-headers-$abi/Makefile"
    touch "$root/.unpacked"
fi
src=$cache/src-$series
if [ ! -f "$src/.unpacked" ]; then
    say "extracting gpio-sim.c, gpiolib.h and irq_sim.c from linux-source-$series"
    rm -rf "$src" && mkdir -p "$src"
    dpkg-deb --fsys-tarfile "$(ls "$cache/debs/linux-source-${series}_"*.deb | tail -1)" \
        | tar -xO "./usr/src/linux-source-$series.tar.xz" \
        | tar -xJ -C "$src" --strip-components=1 \
            "linux-source-$series/drivers/gpio/gpio-sim.c" "linux-source-$series/drivers/gpio/gpiolib.h" \
            "linux-source-$series/kernel/irq/irq_sim.c"
    touch "$src/.unpacked"
fi

# --- gpio-sim.ko --------------------------------------------------------------------------------
module=$cache/module-$abi
if [ ! -f "$module/gpio-sim.ko" ] || [ Tests/VM/module/Kbuild -nt "$module/gpio-sim.ko" ] || [ Tests/VM/module/build.sh -nt "$module/gpio-sim.ko" ]; then
    say "building gpio-sim.ko for $abi"
    Tests/VM/module/build.sh "$src" "$root/usr/src/linux-headers-$abi" "$module" 2>&1 | grep -v 'Skipping BTF generation' || true
    [ -f "$module/gpio-sim.ko" ] || die "gpio-sim.ko did not build"
fi

# --- The test program ----------------------------------------------------------------------------
say "building housectl-gpio-vmtest"
scripts/release-build.sh --product housectl-gpio-vmtest 2>&1 | grep -E 'error|warning: .*housectl-gpio-vmtest|Compiling|Build' | grep -v 'mktemp' || true
bin=$(scripts/release-build.sh --product housectl-gpio-vmtest --show-bin-path)/housectl-gpio-vmtest
[ -x "$bin" ] || die "housectl-gpio-vmtest did not build"

# --- initramfs ------------------------------------------------------------------------------------
lines=$(awk '/^channels:/ { on = 1; next } on && /^[^ #]/ { on = 0 } on && match($0, /^ +[0-9]+: *[0-9]+/) { split(substr($0, RSTART, RLENGTH), a, ":"); gsub(/ /, "", a[2]); print a[2] }' "$board" | sort -n | tr '\n' ' ')
[ -n "$lines" ] || die "no channels found in $board"
# The lines the profile leaves for inputs (input_lines: [17, 27, ...]): the chip must have them too.
inputs=$(sed -n 's/^input_lines: *\[\(.*\)\].*/\1/p' "$board" | tr ',' ' ')
max=$(echo "$lines $inputs" | tr ' ' '\n' | grep -E '^[0-9]+$' | sort -n | tail -1)
initrd=$cache/initramfs
rm -rf "$initrd" && mkdir -p "$initrd"/{bin,modules,proc,sys,dev,tmp}
cp "$root/bin/busybox" "$initrd/bin/busybox"
# libgpiod's gpioset (package gpiod, the same libgpiod 1.6) holds a line as another process.
gpioset=$(command -v gpioset || true)
[ -n "$gpioset" ] || die "gpioset is missing; install the gpiod package"
mkdir -p "$initrd/usr/bin" && cp "$gpioset" "$initrd/usr/bin/gpioset"
cp Tests/VM/init.sh "$initrd/init" && chmod +x "$initrd/init"
cp "$root/lib/modules/$abi/kernel/fs/configfs/configfs.ko" "$module/gpio-sim.ko" "$initrd/modules/"
strip -o "$initrd/housectl-gpio-vmtest" "$bin"
# The program's shared libraries (glibc, libgpiod, libstdc++) at the paths the loader looks in.
for lib in $(ldd "$bin" "$gpioset" | awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }'); do
    mkdir -p "$initrd$(dirname "$lib")"
    cp -L "$lib" "$initrd$lib"
done
mkdir -p "$initrd/devices" && cp "$board" "$initrd/devices/"  # the parser wants the file named after the board id
printf 'BOARD=/devices/%s\nBOARD_LINES="%s"\nNUM_LINES=%s\n' "$(basename "$board")" "${lines% }" "$((max + 1))" > "$initrd/vm.env"
(cd "$initrd" && find . | cpio -o -H newc --quiet) > "$cache/initramfs.cpio"

# --- Boot ---------------------------------------------------------------------------------------
say "booting $abi in qemu (TCG) with $board (lines ${lines% }); setup took $(( $(date +%s) - t0 )) s"
t1=$(date +%s)
set +e
timeout --foreground -k 5 "$timeout_s" qemu-system-x86_64 \
    -accel tcg -cpu max -m 1024 -smp 1 -nographic -no-reboot \
    -kernel "$root/boot/vmlinuz-$abi" -initrd "$cache/initramfs.cpio" \
    -append "console=ttyS0 panic=-1 loglevel=3" </dev/null >"$log" 2>&1
qemu_status=$?
set -e
tr -d '\r' < "$log" | grep '^VMTEST ' || true
say "VM ran $(( $(date +%s) - t1 )) s, total $(( $(date +%s) - t0 )) s; console log: $log"
if [ "$qemu_status" = 124 ] || [ "$qemu_status" = 137 ]; then
    echo "test-vm: FAILED: the VM did not finish within ${timeout_s}s; last console lines:" >&2
    tail -20 "$log" >&2
    exit 1
fi
exit_line=$(tr -d '\r' < "$log" | sed -n 's/^VMTEST EXIT \([0-9]*\)$/\1/p' | tail -1)
done_line=$(tr -d '\r' < "$log" | grep '^VMTEST DONE ' | tail -1 || true)
if [ "$exit_line" = 0 ] && [[ "$done_line" =~ passed=[1-9][0-9]*\ failed=0$ ]]; then
    say "PASSED ($done_line)"
    exit 0
fi
echo "test-vm: FAILED (${done_line:-no results}; exit ${exit_line:-none}, qemu $qemu_status); last console lines:" >&2
tail -20 "$log" >&2
exit 1
