"""The HomeKit bridge against aiohomekit, the HomeKit controller Home Assistant uses.

Starts housectl-homekit-fixture (the bridge on a fake house built from the example house) on
127.0.0.1 and a free port, and drives it with aiohomekit's own IP controller, given the address
and port instead of an mDNS record: a wrong setup code is refused, the right one pairs, the
accessories are listed, a light's On is read and written, a change made elsewhere arrives as an
event, a write to a confirm device is refused with HAP's status for it, the pairing survives a
restart of the bridge, and unpairing frees the bridge for a new pairing. Prints
"N passed, N failed" and exits non-zero on any failure.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from aiohomekit.characteristic_cache import CharacteristicCacheMemory
from aiohomekit.controller.ip.controller import IpController
from aiohomekit.controller.ip.discovery import IpDiscovery
from aiohomekit.controller.ip.pairing import IpPairing
from aiohomekit.exceptions import AuthenticationError, UnavailableError
from aiohomekit.model.categories import Categories
from aiohomekit.model.feature_flags import FeatureFlags
from aiohomekit.model.status_flags import StatusFlags
from aiohomekit.zeroconf import HomeKitService

SETUP_CODE = "031-45-154"
WRONG_CODE = "031-45-155"
TIMEOUT = 20

passed = 0
failed = 0


def check(what: str, ok: bool, detail: object = "") -> None:
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {what}")
    else:
        failed += 1
        print(f"FAIL {what} {detail}")


async def wait_until(condition: asyncio.Condition, found):
    """What `found()` gives once it is something, checked whenever `condition` is notified (None after TIMEOUT)."""
    async with condition:
        try:
            await asyncio.wait_for(condition.wait_for(found), TIMEOUT)
        except asyncio.TimeoutError:
            return None
        return found()


class Fixture:
    """The bridge process: setup code on stdin's first line, `port N` on stdout, commands on stdin.
    With mdns, announced through avahi-daemon, and its log (standard error) kept in `log`."""

    def __init__(self, binary: str, config: str, state_dir: str, mdns: bool = False) -> None:
        self.args = [binary] + (["--mdns"] if mdns else []) + [config, state_dir]
        self.mdns = mdns
        self.proc: asyncio.subprocess.Process | None = None
        self.port = 0
        self.log: list[str] = []
        self.logged = asyncio.Condition()

    async def start(self) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            *self.args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE if self.mdns else None,
        )
        if self.mdns:
            asyncio.get_running_loop().create_task(self._read_log(self.proc.stderr))
        self.proc.stdin.write(f"{SETUP_CODE}\n".encode())
        await self.proc.stdin.drain()
        line = await asyncio.wait_for(self.proc.stdout.readline(), TIMEOUT)
        if not line.startswith(b"port "):
            raise RuntimeError(f"fixture said {line!r}")
        self.port = int(line.split()[1])

    async def _read_log(self, stream: asyncio.StreamReader) -> None:
        while line := await stream.readline():
            async with self.logged:
                self.log.append(line.decode(errors="replace").rstrip("\n"))
                self.logged.notify_all()

    async def wait_log(self, text: str, after: int = 0) -> str | None:
        """The first line of the log from line `after` on that contains `text`, waited for (None after TIMEOUT)."""
        return await wait_until(self.logged, lambda: next((line for line in self.log[after:] if text in line), None))

    async def command(self, text: str) -> None:
        self.proc.stdin.write(f"{text}\n".encode())
        await self.proc.stdin.drain()
        line = await asyncio.wait_for(self.proc.stdout.readline(), TIMEOUT)
        if not line.startswith(b"ok "):
            raise RuntimeError(f"fixture said {line!r} to {text!r}")

    async def stop(self) -> None:
        if self.proc and self.proc.returncode is None:
            try:
                self.proc.stdin.write(b"quit\n")
                await self.proc.stdin.drain()
                await asyncio.wait_for(self.proc.wait(), TIMEOUT)
            except (asyncio.TimeoutError, ConnectionError):
                self.proc.kill()
                await self.proc.wait()


def description(port: int) -> HomeKitService:
    """What an mDNS record would have told: the address, the port, a bridge that is not paired."""
    return HomeKitService(
        name="housectl",
        id="00:00:00:00:00:00",
        model="housectl bridge",
        feature_flags=FeatureFlags(0),
        status_flags=StatusFlags.UNPAIRED,
        config_num=1,
        state_num=1,
        category=Categories.BRIDGE,
        protocol_version="1.1",
        type="_hap._tcp.local.",
        address="127.0.0.1",
        addresses=["127.0.0.1"],
        port=port,
    )


async def pair(controller: IpController, port: int, code: str, alias: str) -> IpPairing:
    discovery = IpDiscovery(controller, description(port))
    try:
        finish = await discovery.async_start_pairing(alias)
        return await finish(code)
    finally:
        await discovery.close()


def short(uuid: str) -> str:
    """Apple's short form of a type ("43" for 00000043-0000-1000-8000-0026BB765291 or "43")."""
    return uuid.upper().split("-")[0].lstrip("0")


def find(accessories: list, serial: str) -> dict | None:
    """The accessory whose SerialNumber (type 30) is the device id."""
    for accessory in accessories:
        for service in accessory["services"]:
            for c in service["characteristics"]:
                if short(c["type"]) == "30" and c.get("value") == serial:
                    return accessory
    return None


def characteristic(accessory: dict, service_type: str, char_type: str) -> dict | None:
    for service in accessory["services"]:
        if short(service["type"]) == service_type:
            for c in service["characteristics"]:
                if short(c["type"]) == char_type:
                    return c
    return None


async def main(args: argparse.Namespace) -> int:
    fixture = Fixture(args.fixture, args.config, args.state_dir)
    await fixture.start()
    controller = IpController(char_cache=CharacteristicCacheMemory(), zeroconf_instance=None)
    pairing: IpPairing | None = None
    try:
        # A wrong setup code: refused at M4.
        try:
            await pair(controller, fixture.port, WRONG_CODE, "wrong")
            check("a wrong setup code is refused", False, "it paired")
        except AuthenticationError:
            check("a wrong setup code is refused", True)

        pairing = await pair(controller, fixture.port, SETUP_CODE, "house")
        data = pairing.pairing_data
        check("pairs with the setup code", bool(data.get("AccessoryPairingID")) and len(data.get("AccessoryLTPK", "")) == 64, data.keys())

        # Paired: a second pair-setup is told Unavailable.
        try:
            await pair(controller, fixture.port, SETUP_CODE, "second")
            check("a paired bridge refuses pair-setup", False, "it paired again")
        except UnavailableError:
            check("a paired bridge refuses pair-setup", True)

        accessories = await pairing.list_accessories_and_characteristics()
        bridge = next((a for a in accessories if a["aid"] == 1), None)
        check("the bridge is aid 1 with AccessoryInformation and ProtocolInformation",
              bridge is not None and [short(s["type"]) for s in bridge["services"]] == ["3E", "A2"], bridge)
        kinds = {"kitchen-light": "43", "office-fan": "40", "office-plug": "47", "garden-pump": "49",
                 "living-shutter": "8C", "garage-door": "41", "back-door": "80", "bedroom-temperature": "8A"}
        for device, service_type in kinds.items():
            accessory = find(accessories, device)
            types = [short(s["type"]) for s in accessory["services"]] if accessory else None
            check(f"{device} is a service {service_type}", types == ["3E", service_type], types)

        light = find(accessories, "kitchen-light")
        on = characteristic(light, "43", "25")
        key = (light["aid"], on["iid"])
        values = await pairing.get_characteristics([key])
        check("reads the light's On (off)", values.get(key, {}).get("value") is False, values)
        result = await pairing.put_characteristics([(light["aid"], on["iid"], True)])
        check("writes the light's On", result == {}, result)
        values = await pairing.get_characteristics([key])
        check("reads the light's On (on)", values.get(key, {}).get("value") is True, values)

        # An event: subscribe to the hall light, switch it elsewhere.
        hall = find(accessories, "hall-light")
        hall_on = characteristic(hall, "43", "25")
        hall_key = (hall["aid"], hall_on["iid"])
        arrived: asyncio.Future = asyncio.get_running_loop().create_future()

        def listener(event: dict) -> None:
            if hall_key in event and not arrived.done():
                arrived.set_result(event[hall_key])

        pairing.dispatcher_connect(listener)
        await pairing.subscribe([hall_key])
        await fixture.command("on hall-light")
        try:
            event = await asyncio.wait_for(arrived, TIMEOUT)
            check("an event arrives when the hall light is switched elsewhere", event.get("value") is True, event)
        except asyncio.TimeoutError:
            check("an event arrives when the hall light is switched elsewhere", False, "no event")

        # A confirm device (the garage door): refused, with HAP's status for it.
        garage = find(accessories, "garage-door")
        target = characteristic(garage, "41", "32")
        result = await pairing.put_characteristics([(garage["aid"], target["iid"], 0)])
        status = result.get((garage["aid"], target["iid"]), {}).get("status")
        check("a write to a confirm device is refused (-70401)", status == -70401, result)

        # The pairing survives a restart of the bridge.
        await pairing.close()
        await fixture.stop()
        await fixture.start()
        data = dict(pairing.pairing_data)
        data["AccessoryPort"] = fixture.port
        pairing = IpPairing(controller, data)
        accessories_again = await pairing.list_accessories_and_characteristics()
        check("after a restart: verified with the same pairing, same accessories",
              [a["aid"] for a in accessories_again] == [a["aid"] for a in accessories], len(accessories_again))

        # Unpair: the pairing is removed, and the bridge can be paired again.
        removed = await pairing.remove_pairing(data["iOSPairingId"])
        check("unpairs", removed is True, removed)
        await pairing.close()
        pairing = None
        again = await pair(controller, fixture.port, SETUP_CODE, "again")
        check("pairs again after unpairing", bool(again.pairing_data.get("AccessoryPairingID")))
        await again.remove_pairing(again.pairing_data["iOSPairingId"])
        await again.close()
    finally:
        if pairing is not None:
            await pairing.close()
        await fixture.stop()
    print(f"homekit: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--fixture", required=True)
    parser.add_argument("--config", required=True)
    parser.add_argument("--state-dir", required=True)
    sys.exit(asyncio.run(main(parser.parse_args())))
