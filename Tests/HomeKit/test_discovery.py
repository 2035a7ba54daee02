"""The bridge found by mDNS, as the Home app and Home Assistant find it: aiohomekit's own IP
controller browses `_hap._tcp` with zeroconf, against an avahi-daemon that announces the bridge
(housectl-homekit-fixture --mdns). Run inside Tests/HomeKit/with-avahi.sh, which gives it a
loopback with multicast, a D-Bus system bus, and AVAHI_CONF for the avahi-daemon this test starts
and stops itself:
  - a bridge started before avahi-daemon logs that mDNS is off and why, and is announced once the
    daemon starts;
  - its TXT records: category bridge, not paired (sf=1), its pairing id, c# 1, the setup hash of
    its setup ID, its port;
  - a second bridge of the same name is announced under avahi's alternative names, past one taken
    on this machine ("... #2") and one another responder holds on the network ("... #3");
  - aiohomekit pairs through what it discovered, and sf becomes 0;
  - restarted with one device more, the bridge is announced with a higher c# (and a new port),
    and the pairing finds it by mDNS and lists the new accessory;
  - unpaired, sf is 1 again; avahi-daemon restarted, the bridge is announced again.
Prints "N passed, N failed" and exits non-zero on any failure.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
import json
import os
import re
import sys

# test_aiohomekit is imported from the tree: no __pycache__ left in it.
sys.dont_write_bytecode = True

from aiohomekit.characteristic_cache import CharacteristicCacheMemory
from aiohomekit.controller.ip.controller import IpController
from aiohomekit.model.categories import Categories
from aiohomekit.model.status_flags import StatusFlags
from aiohomekit.zeroconf import HAP_TYPE_TCP
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from harness import TIMEOUT, ChildAccessory, Tally, find, short, wait_until
from test_aiohomekit import SETUP_CODE

tally = Tally()
check = tally.check

# One device more for the restart: an MQTT plug (an Outlet in HomeKit).
EXTRA_DEVICE = ("  - {id: hall-plug, room: hall, kind: plug, names: [hall plug],\n"
                "     mqtt: {command_topic: cmnd/hall-plug/POWER, state_topic: stat/hall-plug/POWER}}\n")


class WatchingController(IpController):
    """aiohomekit's IP controller, which also says when it took a record from zeroconf: a wait
    for what it discovered is a wait on that, never a sleep."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.records: dict[str, int] = {}
        self.changed = asyncio.Condition()

    def _async_handle_loaded_service_info(self, info) -> None:
        super()._async_handle_loaded_service_info(info)
        props = {k.lower(): v for k, v in info.decoded_properties.items() if v is not None}
        device = props.get("id", "").lower()
        self.records[device] = self.records.get(device, 0) + 1
        asyncio.get_running_loop().create_task(self._notify())

    async def _notify(self) -> None:
        async with self.changed:
            self.changed.notify_all()

    async def wait(self, device: str, test, after: int = 0):
        """The description of `device` once `test(description)` holds for a record taken after the
        first `after` (None after TIMEOUT)."""
        device = device.lower()

        def current():
            discovery = self.discoveries.get(device)
            if discovery and self.records.get(device, 0) > after and test(discovery.description):
                return discovery.description
            return None

        return await wait_until(self.changed, current)


class Avahi:
    """The test's own avahi-daemon (AVAHI_CONF, inside with-avahi.sh's namespaces)."""

    def __init__(self, conf: str) -> None:
        self.args = ["-f", conf, "--no-drop-root", "--no-chroot", "--no-rlimits"]

    async def _run(self, *args: str) -> int:
        proc = await asyncio.create_subprocess_exec("avahi-daemon", *args)
        return await asyncio.wait_for(proc.wait(), TIMEOUT)

    async def start(self) -> bool:
        return await self._run("-D", *self.args) == 0

    async def stop(self) -> bool:
        return await self._run("-k") == 0


def kept(state_dir: str, name: str) -> dict:
    with open(os.path.join(state_dir, name)) as f:
        return json.load(f)


async def txt(zc: AsyncZeroconf, name: str) -> dict[str, str]:
    """The TXT records of the service instance `name`, as zeroconf resolves them."""
    info = AsyncServiceInfo(HAP_TYPE_TCP, f"{name}.{HAP_TYPE_TCP}")
    await info.async_request(zc.zeroconf, 3000)
    return {k: v for k, v in info.decoded_properties.items() if v is not None}


async def main(args: argparse.Namespace) -> int:
    avahi = Avahi(os.environ["AVAHI_CONF"])
    state_a, state_b = os.path.join(args.work, "a"), os.path.join(args.work, "b")
    # The changed house in the test's directory, with the board profiles of the config's.
    config = open(args.config).read()
    if "\ndevices:\n" not in config:
        raise SystemExit(f"discovery test: no devices: section in {args.config}")
    os.makedirs(os.path.join(args.work, "config"))
    os.symlink(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(args.config))), "devices"), os.path.join(args.work, "devices"))
    bigger = os.path.join(args.work, "config", "house.yaml")
    with open(bigger, "w") as f:
        f.write(config.replace("\ndevices:\n", "\ndevices:\n" + EXTRA_DEVICE, 1))
    name = re.search(r"^  name: (.+)$", config, re.M).group(1).strip() + " Bridge"

    a = ChildAccessory(args.fixture, "--mdns", args.config, state_a, log=True)
    b = ChildAccessory(args.fixture, "--mdns", args.config, state_b, log=True)
    zc = AsyncZeroconf(interfaces=["127.0.0.1"])
    browser = AsyncServiceBrowser(zc.zeroconf, [HAP_TYPE_TCP], handlers=[lambda **_: None])
    controller = WatchingController(char_cache=CharacteristicCacheMemory(), zeroconf_instance=zc)
    await controller.async_start()
    pairing = None
    try:
        # Before avahi-daemon: the bridge works, and says once that mDNS is off and why.
        await a.start(SETUP_CODE)
        warning = await a.wait_text("mDNS is off")
        check("without avahi-daemon the bridge says mDNS is off, and why",
              warning is not None and "avahi-daemon is not running" in warning, a.lines[-5:])
        pairing_id = kept(state_a, "accessory.json")["pairingID"]
        setup_id = kept(state_a, "discovery.json")["setupID"]

        check("avahi-daemon starts", await avahi.start())
        found = await controller.wait(pairing_id, lambda d: True)
        check("once avahi-daemon runs, the bridge is discovered by its pairing id", found is not None)
        if found is None:
            return 1
        check("announced as a bridge (ci=2) under the house's name",
              found.category == Categories.BRIDGE and found.name == name, (found.category, found.name))
        check("announced as not paired (sf=1), c# 1, at its port on loopback",
              found.status_flags == StatusFlags.UNPAIRED and found.config_num == 1 and found.port == a.port
              and found.address == "127.0.0.1", found)
        records = await txt(zc, found.name)
        expected_hash = base64.b64encode(hashlib.sha512((setup_id + pairing_id).encode()).digest()[:4]).decode()
        check("its TXT records: id, md, pv, s#, ff, and sh the hash of its setup ID",
              records.get("id") == pairing_id and records.get("md") == name and records.get("pv") == "1.1"
              and records.get("s#") == "1" and records.get("ff") == "0" and records.get("sh") == expected_hash, records)
        check("the fixture logs where it is announced", await a.wait_text(f"announced by mDNS as '{name}'") is not None, a.lines[-5:])

        # A second bridge of the same name (another state directory: another pairing id), while
        # another responder on the network (zeroconf's) holds the name "... #2": avahi's first
        # alternative is taken on this machine, its second on the network, so it is "... #3".
        squatter = AsyncServiceInfo(HAP_TYPE_TCP, f"{name} #2.{HAP_TYPE_TCP}", port=9, server="squatter.local.",
                                    addresses=[bytes([127, 0, 0, 1])], properties={"id": "00:11:22:33:44:55"})
        await zc.async_register_service(squatter)
        await b.start(SETUP_CODE)
        other_id = kept(state_b, "accessory.json")["pairingID"]
        other = await controller.wait(other_id, lambda d: True)
        check("a second bridge of the same name gives way, here and on the network: announced as '... #3'",
              other is not None and other.name == name + " #3", other and other.name)
        check("its log says why, twice", await b.wait_text(f"the name '{name}' is taken by another service of this machine") is not None
              and await b.wait_text(f"the name '{name} #2' is taken by another responder on the network") is not None, b.lines[-5:])
        await b.stop()
        await zc.async_unregister_service(squatter)

        # Paired through what was discovered: sf becomes 0.
        seen = controller.records.get(pairing_id.lower(), 0)
        finish = await controller.discoveries[pairing_id.lower()].async_start_pairing("house")
        pairing = await finish(SETUP_CODE)
        paired = await controller.wait(pairing_id, lambda d: d.status_flags == StatusFlags(0), after=seen)
        check("once paired, the bridge is announced with sf=0", paired is not None,
              controller.discoveries[pairing_id.lower()].description)
        data = dict(pairing.pairing_data)
        await pairing.close()
        pairing = None

        # One device more: c# goes up, announced at the new port, and the pairing follows it there.
        await a.stop()
        old_port = a.port
        a = ChildAccessory(args.fixture, "--mdns", bigger, state_a, log=True)
        await a.start(SETUP_CODE)
        changed = await controller.wait(pairing_id, lambda d: d.config_num > 1 and d.port == a.port)
        check("restarted with one device more: a higher c#, the new port, still sf=0",
              changed is not None and changed.config_num == 2 and changed.status_flags == StatusFlags(0),
              controller.discoveries[pairing_id.lower()].description)
        pairing = controller.load_pairing("house", data)
        accessories = await asyncio.wait_for(pairing.list_accessories_and_characteristics(), TIMEOUT)
        plug = find(accessories, "hall-plug")
        check("the pairing finds the bridge at its new port by mDNS and lists the new accessory",
              a.port != old_port and plug is not None and [short(s["type"]) for s in plug["services"]] == ["3E", "47"],
              (old_port, a.port, plug))

        # Unpaired: sf is 1 again.
        seen = controller.records.get(pairing_id.lower(), 0)
        removed = await pairing.remove_pairing(data["iOSPairingId"])
        await pairing.close()
        pairing = None
        unpaired = await controller.wait(pairing_id, lambda d: d.status_flags == StatusFlags.UNPAIRED, after=seen)
        check("unpaired, the bridge is announced with sf=1 again", removed is True and unpaired is not None,
              controller.discoveries[pairing_id.lower()].description)

        # avahi-daemon restarted: the bridge waits for it and is announced again.
        lines = a.mark()
        check("avahi-daemon stops", await avahi.stop())
        gone = await a.wait_text("avahi-daemon went away", after=lines)
        seen = controller.records.get(pairing_id.lower(), 0)
        check("avahi-daemon starts again", await avahi.start())
        again = await controller.wait(pairing_id, lambda d: d.port == a.port, after=seen)
        check("after avahi-daemon restarts, the bridge is announced again", gone is not None and again is not None, a.lines[-5:])
    finally:
        if pairing is not None:
            await pairing.close()
        await a.stop()
        await b.stop()
        await controller.async_stop()
        await browser.async_cancel()
        await zc.async_close()
        await avahi.stop()
    return tally.summary("homekit discovery")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--fixture", required=True)
    parser.add_argument("--config", required=True)
    parser.add_argument("--work", required=True, help="a directory of the test's own (state directories, a changed config)")
    sys.exit(asyncio.run(main(parser.parse_args())))
