"""The HomeKit tests' harness against a known-good accessory: HAP-python (a bridge with one
Lightbulb, hap_python_accessory.py in its own pinned venv) on 127.0.0.1 and a free port. The same
helpers that drive housectl's bridge (harness.py: pair, list, read, write, events, unpair) must
work here too, so that a broken harness shows against HAP-python and not only against housectl:
a wrong setup code is refused, the right one pairs, the Lightbulb is listed, a write reaches the
accessory, a change at the accessory arrives as an event, and after unpairing pair-verify fails.
Prints "N passed, N failed" and exits non-zero on any failure.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from aiohomekit.characteristic_cache import CharacteristicCacheMemory
from aiohomekit.crypto.srp import SrpClient
from aiohomekit.controller.ip.controller import IpController
from aiohomekit.exceptions import AccessoryDisconnectedError, AuthenticationError

from harness import TIMEOUT, ChildAccessory, Events, Tally, characteristic, pair_checked, read, refused_verify, short, unpair, write

SETUP_CODE = "517-33-208"
# The controller's SRP secret, fixed with the accessory's salt and secret (hap_python_accessory.py:
# HAP-python does not pad B, S and K, and random values disagree with aiohomekit about 1.5% of the
# time). These three agree with SETUP_CODE.
SrpClient.generate_private_key = staticmethod(lambda: 0xF38B2FFC80A4DF5A51C9BC701E7EA419)
WRONG_CODE = "517-33-209"

tally = Tally()
check = tally.check


async def main(args: argparse.Namespace) -> int:
    os.makedirs(args.work, exist_ok=True)
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hap_python_accessory.py")
    accessory = ChildAccessory(args.python, script, os.path.join(args.work, "accessory.state"))
    await accessory.start(SETUP_CODE)
    controller = IpController(char_cache=CharacteristicCacheMemory(), zeroconf_instance=None)
    pairing = None
    try:
        pairing = await pair_checked(tally, controller, accessory.port, SETUP_CODE, WRONG_CODE, "HAP-python: ")

        listed = await asyncio.wait_for(pairing.list_accessories_and_characteristics(), TIMEOUT)
        lamp = next((a for a in listed if any(short(s["type"]) == "43" for s in a["services"])), None)
        check("HAP-python: lists the bridge and its Lightbulb", len(listed) == 2 and lamp is not None, listed)
        if lamp is None:
            return tally.summary("homekit harness against HAP-python")
        on = characteristic(lamp, "43", "25")
        key = (lamp["aid"], on["iid"])
        check("HAP-python: the Lightbulb's On is a bool to read, write and follow",
              (on["format"], sorted(on["perms"])) == ("bool", ["ev", "pr", "pw"]), on)

        at = accessory.mark()
        check("HAP-python: writes the light's On", await write(pairing, key, True) == 0)
        check("  the accessory got it", await accessory.wait(r"^set on True$", at) is not None)
        check("  and reads it back on", await read(pairing, key) is True)

        events = Events(pairing)
        await asyncio.wait_for(pairing.subscribe([key]), TIMEOUT)
        seen = events.mark()
        await accessory.command("off")
        check("HAP-python: a change at the accessory arrives as an event", await events.next(key, seen) is False)

        data = pairing.pairing_data
        check("HAP-python: unpairs", await unpair(pairing))
        pairing = None
        # An unpaired HAP-python answers M1 with an Authentication error at M2, which aiohomekit
        # reads as a malformed M2 and tries again until its connect times out.
        error = await refused_verify(controller, data, accessory.port)
        check("HAP-python: after unpairing, pair-verify fails", isinstance(error, (AuthenticationError, AccessoryDisconnectedError)), repr(error))
    finally:
        if pairing is not None:
            await pairing.close()
        await accessory.stop()
    return tally.summary("homekit harness against HAP-python")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--python", required=True, help="the python of the HAP-python venv")
    parser.add_argument("--work", required=True, help="a temporary directory for the accessory's state")
    sys.exit(asyncio.run(main(parser.parse_args())))
