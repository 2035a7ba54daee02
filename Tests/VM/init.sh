#!/bin/busybox sh
# /init of the test VM (Tests/VM/run.sh puts it in the initramfs): loads gpio-sim, creates a chip
# through configfs whose line names match the board profile, runs the test program, powers off.
# /vm.env (written by run.sh) sets BOARD (the profile), BOARD_LINES (the board's GPIO offsets) and NUM_LINES.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /tmp && mount -t tmpfs tmpfs /tmp
. /vm.env

fail() { echo "VMTEST FAIL vm setup: $*"; echo "VMTEST EXIT 1"; poweroff -f; }

insmod /modules/configfs.ko || fail "insmod configfs.ko"
insmod /modules/gpio-sim.ko || fail "insmod gpio-sim.ko"
mount -t configfs configfs /sys/kernel/config || fail "mount configfs"

# One bank with a Raspberry Pi's line names (GPIO0, GPIO1, ...) up to the board's highest line.
c=/sys/kernel/config/gpio-sim/housectl-vm
mkdir "$c" "$c/bank0" || fail "mkdir $c"
echo "$NUM_LINES" > "$c/bank0/num_lines"
echo housectl-vm > "$c/bank0/label"
i=0
while [ "$i" -lt "$NUM_LINES" ]; do
    mkdir "$c/bank0/line$i" && echo "GPIO$i" > "$c/bank0/line$i/name" || fail "naming line $i"
    i=$((i + 1))
done
echo 1 > "$c/live" || fail "gpio-sim refused the chip (live)"
chip=$(cat "$c/bank0/chip_name")
dev=$(cat "$c/dev_name")
echo "VMTEST INFO gpio-sim chip $chip ($dev), $NUM_LINES lines, board lines: $BOARD_LINES"

/housectl-gpio-vmtest "$chip" "/sys/devices/platform/$dev/$chip" "$BOARD"
echo "VMTEST EXIT $?"
poweroff -f
