"""The HomeKit bridge of the real daemon against aiohomekit (the controller Home Assistant uses).

Starts the release `housectl serve --gpio sim` on Tests/HomeKit/house.yaml (every kind of device
HomeKit shows, and modes; the embedded broker on a free port, the bridge on 127.0.0.1 and a free
port, its setup code in a file in the state directory) and checks, each with a bounded wait:
  - a wrong setup code is refused (Authentication), the right one pairs, and a paired bridge
    refuses pair-setup (Unavailable);
  - every device kind's accessory: its service, its characteristics (types, permissions,
    formats) and its name as HomeKit shows it (room and name); each mode a switch;
  - a light switched and the shutter moved through HomeKit: the relays' retained state topics say so;
  - events: `housectl say` and an MQTT `set` switching a device, a contact, a motion sensor and a
    temperature from elsewhere, and a button's presses as StatelessProgrammableSwitch events;
  - a confirm device (the garage door) written from HomeKit is refused with -70401 and the
    refusal is on `house/events`, as is a mode that needs a yes;
  - modes as switches: on sets the mode, the others go off, off is answered with the true state;
  - the pairing survives a restart of the daemon (pair-verify with the stored keys);
  - after unpairing, pair-verify fails;
  - wrong setup codes are limited: after 100, pair-setup is refused with MaxTries, even with the right code.
Prints "N passed, N failed" and exits non-zero on any failure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import sys

from aiohomekit.characteristic_cache import CharacteristicCacheMemory
from aiohomekit.controller.ip.controller import IpController
from aiohomekit.exceptions import AuthenticationError, MaxTriesError

from harness import (TIMEOUT, Events, Lines, Tally, characteristic, check_paired_refuses_setup, find, pair, pair_checked, read,
                     reconnect, refused_verify, service, short, unpair, write)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SETUP_CODE = "482-91-035"
WRONG_CODE = "482-91-036"

tally = Tally()
check = tally.check

# Each device's accessory: its service, its characteristics after Name (type, permissions,
# format), and its name as HomeKit shows it.
ALL, READ = ["pr", "pw", "ev"], ["pr", "ev"]
EXPECTED = {
    "kitchen-light": ("43", [("25", ALL, "bool")], "Kitchen Light"),
    "hall-switch": ("49", [("25", ALL, "bool")], "Hall Switch"),
    "office-plug": ("47", [("25", ALL, "bool"), ("26", READ, "bool")], "Office Plug"),
    "garden-pump": ("49", [("25", ALL, "bool")], "Garden Pump"),
    "office-fan": ("40", [("25", ALL, "bool")], "Office Fan"),
    "living-shutter": ("8C", [("6D", READ, "uint8"), ("7C", ALL, "uint8"), ("72", READ, "uint8")], "Living room Shutter"),
    "garage-door": ("41", [("E", READ, "uint8"), ("32", ALL, "uint8"), ("24", READ, "bool")], "Garage Door"),
    "back-door": ("80", [("6A", READ, "uint8")], "Kitchen Back Door"),
    "hall-motion": ("85", [("22", READ, "bool")], "Hall Motion"),
    "hall-button": ("89", [("73", READ, "uint8")], "Hall Button"),
    "bedroom-temperature": ("8A", [("11", READ, "float")], "Bedroom Temperature"),
    "mode:night": ("49", [("25", ALL, "bool")], "Night Mode"),
    "mode:evening": ("49", [("25", ALL, "bool")], "Evening Mode"),
    "mode:movie": ("49", [("25", ALL, "bool")], "Movie Mode"),
    "mode:away": ("49", [("25", ALL, "bool")], "Away Mode"),
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Daemon:
    """`housectl serve` on the test house, with its embedded broker on `mqtt_port`."""

    def __init__(self, housectl: str, work: str) -> None:
        self.housectl = housectl
        self.mqtt_port = free_port()
        self.state = os.path.join(work, "state")
        os.makedirs(self.state, exist_ok=True)
        pin_file = os.path.join(self.state, "homekit-code")
        with open(pin_file, "w") as f:
            f.write(SETUP_CODE + "\n")
        os.chmod(pin_file, 0o600)
        text = open(os.path.join(ROOT, "Tests", "HomeKit", "house.yaml")).read()
        text = text.replace("@MQTT_PORT@", str(self.mqtt_port)).replace("@PIN_FILE@", pin_file)
        self.config = os.path.join(work, "house.yaml")
        with open(self.config, "w") as f:
            f.write(text)
        shutil.copy(os.path.join(ROOT, "config", "phrases.yaml"), work)
        self.log: Lines | None = None
        self.port = 0

    def cli(self, *words: str) -> list[str]:
        return [self.housectl, *words, "--config", self.config, "--devices-dir", os.path.join(ROOT, "devices")]

    async def start(self) -> bool:
        self.log = Lines(*self.cli("serve", "--gpio", "sim", "--node", "pi-main", "--state-dir", self.state, "--no-web"))
        await self.log.start()
        listening = await self.log.wait(r"homekit: bridge \S+ listening on 127\.0\.0\.1:(\d+)")
        ready = await self.log.wait(r" ready: ")
        if not (listening and ready):
            print("\n".join(self.log.lines[-30:]))
            return False
        self.port = int(listening.group(1))
        return True

    async def say(self, text: str) -> int:
        proc = await asyncio.create_subprocess_exec(*self.cli("say", text), stdout=asyncio.subprocess.PIPE,
                                                    stderr=asyncio.subprocess.STDOUT)
        out, _ = await asyncio.wait_for(proc.communicate(), TIMEOUT)
        print(f"     housectl say {text!r}: {out.decode().strip()}")
        return proc.returncode

    async def publish(self, topic: str, payload: str) -> None:
        proc = await asyncio.create_subprocess_exec("mosquitto_pub", "-h", "127.0.0.1", "-p", str(self.mqtt_port), "-q", "1",
                                                    "-t", topic, "-m", payload)
        await asyncio.wait_for(proc.wait(), TIMEOUT)

    def watch(self) -> Lines:
        """Every message under house/ as `topic payload` lines (retained ones first)."""
        return Lines("mosquitto_sub", "-h", "127.0.0.1", "-p", str(self.mqtt_port), "-v", "-t", "house/#")


def check_accessories(accessories: list) -> dict:
    """Checks every device's and mode's accessory; returns the accessories by device id or mode:id."""
    bridge = next((a for a in accessories if a["aid"] == 1), None)
    check("the bridge is aid 1 with AccessoryInformation and ProtocolInformation",
          bridge is not None and [short(s["type"]) for s in bridge["services"]] == ["3E", "A2"], bridge)
    found = {}
    for serial, (service_type, expected, name) in EXPECTED.items():
        accessory = find(accessories, serial)
        if not check(f"{serial} is listed", accessory is not None):
            continue
        found[serial] = accessory
        types = [short(s["type"]) for s in accessory["services"]]
        check(f"{serial}: AccessoryInformation and {service_type}", types == ["3E", service_type], types)
        primary = service(accessory, service_type) or {"characteristics": []}
        listed = [(short(c["type"]), c["perms"], c["format"]) for c in primary["characteristics"]]
        check(f"{serial}: its characteristics", listed == [("23", ["pr"], "string")] + expected, listed)
        names = {characteristic(accessory, "3E", "23").get("value"), (characteristic(accessory, service_type, "23") or {}).get("value")}
        check(f"{serial}: named {name!r}", names == {name}, names)
    shutter = found.get("living-shutter")
    if shutter:
        position = characteristic(shutter, "8C", "7C")
        check("the shutter's target is a percentage 0-100",
              (position.get("unit"), position.get("minValue"), position.get("maxValue")) == ("percentage", 0, 100), position)
    button = found.get("hall-button")
    if button:
        press = characteristic(button, "89", "73")
        check("the button's presses are single, double and long (0, 1, 2), null when read",
              press.get("valid-values") == [0, 1, 2] and press.get("value") is None, press)
    temperature = found.get("bedroom-temperature")
    if temperature:
        check("the temperature is in celsius", characteristic(temperature, "8A", "11").get("unit") == "celsius")
    return found


def key(accessories: dict, serial: str, char_type: str) -> tuple[int, int]:
    accessory = accessories[serial]
    service_type = EXPECTED[serial][0]
    return accessory["aid"], characteristic(accessory, service_type, char_type)["iid"]


async def main(args: argparse.Namespace) -> int:
    daemon = Daemon(args.housectl, args.work)
    if not check("the daemon starts with its bridge", await daemon.start()):
        await daemon.log.stop()
        return tally.summary("homekit daemon")
    mqtt = daemon.watch()
    await mqtt.start()
    controller = IpController(char_cache=CharacteristicCacheMemory(), zeroconf_instance=None)
    pairing = None
    try:
        pairing = await pair_checked(tally, controller, daemon.port, SETUP_CODE, WRONG_CODE)
        await check_paired_refuses_setup(tally, controller, daemon.port, SETUP_CODE)

        listed = await asyncio.wait_for(pairing.list_accessories_and_characteristics(), TIMEOUT)
        accessories = check_accessories(listed)
        if len(accessories) < len(EXPECTED):
            return tally.summary("homekit daemon")
        events = Events(pairing)
        watched = [key(accessories, s, c) for s, c in [
            ("kitchen-light", "25"), ("hall-switch", "25"), ("living-shutter", "6D"), ("living-shutter", "72"),
            ("back-door", "6A"), ("hall-motion", "22"), ("hall-button", "73"), ("bedroom-temperature", "11"),
            ("mode:night", "25"), ("mode:evening", "25")]]
        await asyncio.wait_for(pairing.subscribe(watched), TIMEOUT)

        # A light through HomeKit: the relay switches (its retained state topic).
        light = key(accessories, "kitchen-light", "25")
        at = mqtt.mark()
        check("HomeKit switches the kitchen light on", await write(pairing, light, True) == 0)
        check("  its relay is on (house/kitchen/kitchen-light/state ON)",
              await mqtt.wait(r"^house/kitchen/kitchen-light/state ON$", at) is not None)
        check("  HomeKit reads it on", await read(pairing, light) is True)

        # The shutter to 50%: the up winding runs, then stops there.
        at, seen = mqtt.mark(), events.mark()
        check("HomeKit sends the shutter to 50%", await write(pairing, key(accessories, "living-shutter", "7C"), 50) == 0)
        check("  its motor opens it (state opening)", await mqtt.wait(r"^house/living-room/living-shutter/state opening$", at) is not None)
        check("  and stops at 50 (position 50)", await mqtt.wait(r"^house/living-room/living-shutter/position 50$", at) is not None)
        check("  HomeKit is told: opening, then at 50 and stopped",
              await events.next(key(accessories, "living-shutter", "72"), seen, lambda v: v == 1) == 1
              and await events.next(key(accessories, "living-shutter", "6D"), seen, lambda v: v == 50) == 50
              and await events.next(key(accessories, "living-shutter", "72"), seen, lambda v: v == 2) == 2)

        # Switched elsewhere: events.
        seen = events.mark()
        check("housectl say switches the kitchen light off", await daemon.say("turn off the kitchen light") == 0)
        check("  HomeKit gets the event (On false)", await events.next(light, seen) is False)
        seen = events.mark()
        await daemon.publish("house/hall/hall-switch/set", "ON")
        check("an MQTT set switches the hall switch on: HomeKit gets the event",
              await events.next(key(accessories, "hall-switch", "25"), seen) is True)
        seen = events.mark()
        await daemon.publish("house/kitchen/back-door/state", "ON")
        check("the back door opens (pi-porch's contact): ContactSensorState 1",
              await events.next(key(accessories, "back-door", "6A"), seen) == 1)
        await daemon.publish("house/hall/hall-motion/state", "ON")
        check("motion in the hall: MotionDetected true", await events.next(key(accessories, "hall-motion", "22"), seen) is True)
        await daemon.publish("zigbee2mqtt/bedroom-climate", json.dumps({"temperature": 21.5}))
        check("a temperature reading: CurrentTemperature 21.5",
              await events.next(key(accessories, "bedroom-temperature", "11"), seen) == 21.5)
        button = key(accessories, "hall-button", "73")
        for press, value in [("single", 0), ("double", 1), ("long", 2), ("single", 0)]:
            seen = events.mark()
            await daemon.publish("house/hall/hall-button/event", json.dumps({"event_type": press}))
            check(f"a {press} press of the hall button: ProgrammableSwitchEvent {value}",
                  await events.next(button, seen) == value)

        # A confirm device from HomeKit: refused with HAP's "insufficient privileges", visibly.
        at = mqtt.mark()
        status = await write(pairing, key(accessories, "garage-door", "32"), 0)
        check("the garage door (confirm: true) is refused from HomeKit (-70401)", status == -70401, status)
        refusal = await mqtt.wait(r'^house/events \{.*"outcome":"refused".*\}$', at)
        check("  the refusal is on house/events, from homekit, saying why",
              refusal is not None and '"source":"homekit"' in refusal.group(0) and "Apple Home" in refusal.group(0),
              refusal.group(0) if refusal else "no event")

        # Modes as switches.
        night, evening = key(accessories, "mode:night", "25"), key(accessories, "mode:evening", "25")
        at, seen = mqtt.mark(), events.mark()
        check("Night Mode on sets the night mode", await write(pairing, night, True) == 0)
        check("  house/mode/state night", await mqtt.wait(r"^house/mode/state night$", at) is not None)
        seen = events.mark()
        check("Evening Mode on sets the evening mode", await write(pairing, evening, True) == 0)
        check("  Night Mode's switch goes off (event)", await events.next(night, seen) is False)
        seen = events.mark()
        check("Evening Mode off is answered", await write(pairing, evening, False) == 0)
        check("  with the true state: still evening (event On true)", await events.next(evening, seen) is True)
        check("  HomeKit reads it on", await read(pairing, evening) is True)
        at = mqtt.mark()
        status = await write(pairing, key(accessories, "mode:away", "25"), True)
        check("Away Mode (confirm: true) is refused from HomeKit (-70401)", status == -70401, status)
        refusal = await mqtt.wait(r'^house/events \{.*"outcome":"refused".*\}$', at)
        check("  the refusal is on house/events, from homekit",
              refusal is not None and '"source":"homekit"' in refusal.group(0) and "away" in refusal.group(0),
              refusal.group(0) if refusal else "no event")

        # A restart: pair-verify with the stored pairing.
        data = pairing.pairing_data
        await pairing.close()
        pairing = None
        await mqtt.stop()
        check("the daemon stops cleanly", await daemon.log.stop() == 0, daemon.log.proc.returncode)
        check("the daemon starts again", await daemon.start())
        pairing = reconnect(controller, data, daemon.port)
        again = await asyncio.wait_for(pairing.list_accessories_and_characteristics(), TIMEOUT)
        check("after a restart: pair-verify with the stored pairing, the same accessories",
              sorted(a["aid"] for a in again) == sorted(a["aid"] for a in listed), len(again))
        check("  and the state the house kept (Evening Mode on)", await read(pairing, evening) is True)

        # Unpair: the pairing is gone, and pair-verify with it fails.
        check("unpairs", await unpair(pairing))
        pairing = None
        error = await refused_verify(controller, data, daemon.port)
        check("after unpairing, pair-verify fails (Authentication)", isinstance(error, AuthenticationError), repr(error))

        # Wrong codes are limited: 100, then MaxTries even with the right code.
        refused = 0
        for attempt in range(100):
            try:
                await pair(controller, daemon.port, WRONG_CODE, f"guess-{attempt}")
                break
            except AuthenticationError:
                refused += 1
        check("100 wrong setup codes are refused", refused == 100, refused)
        try:
            await pair(controller, daemon.port, SETUP_CODE, "late")
            check("after 100 wrong codes pair-setup is refused (MaxTries)", False, "it paired")
        except MaxTriesError:
            check("after 100 wrong codes pair-setup is refused (MaxTries), even with the right code", True)
    finally:
        if pairing is not None:
            await pairing.close()
        await mqtt.stop()
        if daemon.log:
            await daemon.log.stop()
    return tally.summary("homekit daemon")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--housectl", required=True)
    parser.add_argument("--work", required=True, help="a temporary directory for the house's copy and its state")
    sys.exit(asyncio.run(main(parser.parse_args())))
