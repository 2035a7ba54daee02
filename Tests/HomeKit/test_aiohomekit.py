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

from harness import (TIMEOUT, ChildAccessory, Tally, characteristic, check_paired_refuses_setup, find, pair, pair_checked, reconnect,
                     short)

SETUP_CODE = "031-45-154"
WRONG_CODE = "031-45-155"

tally = Tally()
check = tally.check


async def main(args: argparse.Namespace) -> int:
    fixture = ChildAccessory(args.fixture, args.config, args.state_dir)
    await fixture.start(SETUP_CODE)
    controller = IpController(char_cache=CharacteristicCacheMemory(), zeroconf_instance=None)
    pairing = None
    try:
        pairing = await pair_checked(tally, controller, fixture.port, SETUP_CODE, WRONG_CODE)
        await check_paired_refuses_setup(tally, controller, fixture.port, SETUP_CODE)

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
        await fixture.start(SETUP_CODE)
        data = pairing.pairing_data
        pairing = reconnect(controller, data, fixture.port)
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
    return tally.summary("homekit")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--fixture", required=True)
    parser.add_argument("--config", required=True)
    parser.add_argument("--state-dir", required=True)
    sys.exit(asyncio.run(main(parser.parse_args())))
