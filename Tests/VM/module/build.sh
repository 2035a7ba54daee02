#!/bin/sh
# Builds gpio-sim.ko out of tree against an unpacked Debian kernel headers tree.
# Usage: build.sh SOURCE_DIR HEADERS_DIR OUT_DIR
#   SOURCE_DIR: unpacked linux-source (needs drivers/gpio/gpio-sim.c, drivers/gpio/gpiolib.h, kernel/irq/irq_sim.c)
#   HEADERS_DIR: unpacked /usr/src/linux-headers-VERSION-amd64 (its common and kbuild siblings next to it)
set -eu
src=$1 headers=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
cp "$here/Kbuild" "$out/Kbuild"
cp "$src/drivers/gpio/gpio-sim.c" "$out/gpio-sim-main.c"
cp "$src/drivers/gpio/gpiolib.h" "$out/gpiolib.h"
# irq_to_desc() is not exported to modules; generic_handle_irq() does the same lookup and call.
sed 's/handle_simple_irq(irq_to_desc(\([a-z_]*\)))/generic_handle_irq(\1)/' "$src/kernel/irq/irq_sim.c" > "$out/irq_sim.c"
grep -q 'generic_handle_irq(irqnum)' "$out/irq_sim.c" || { echo "build.sh: could not patch irq_sim.c" >&2; exit 1; }
make -s -C "$headers" M="$out" modules
