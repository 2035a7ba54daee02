"""A known-good HomeKit accessory for checking the test harness: HAP-python (PyPI, pinned in
Tests/HomeKit/run.sh), a bridge with one Lightbulb, on 127.0.0.1 and a free port, without mDNS.

    python hap_python_accessory.py STATE_FILE     (in the HAP-python venv)

Reads the setup code from standard input's first line; prints `port N` once listening, `set on
True|False` when a controller writes the light's On; takes `on`, `off` (the light switched at the
accessory: an event to subscribed controllers; answered `ok ...`) and `quit` on standard input.
(HAP-python prints its own lines too.)
"""

import socket
import sys
import threading

import pyhap.accessory_driver
from pyhap.accessory import Accessory, Bridge
from pyhap.accessory_driver import AccessoryDriver
from pyhap.const import CATEGORY_LIGHTBULB
from pyhap.hsrp import Server

# HAP-python 5.0.0 leaves SRP's B, S and K unpadded where aiohomekit (and the HAP specification)
# pads them to their full length, so about 1.5% of random pairings fail at M4 with the right code.
# The accessory's salt and secret are fixed to values known to agree with the controller's fixed
# secret (test_hap_python.py): every run pairs the same way.
SALT = bytes.fromhex("6bad6be28e7aa6e99f19950499dd251d")
SECRET = 0xE512148239292D22E255ACCB1A466884F3F49249DC28FF90A5AEC7978306D03B


class FixedServer(Server):
    def __init__(self, ctx, u, p, s=None, v=None, b=None):
        super().__init__(ctx, u, p, s=SALT, v=v, b=SECRET)


# The driver makes its verifier from this name (HAP-python 5.0.0): a version that no longer does
# would pair with random values again, so it is an error here rather than a rare failure later.
assert pyhap.accessory_driver.SrpServer is Server, "HAP-python no longer makes its SRP verifier from pyhap.hsrp.Server"
pyhap.accessory_driver.SrpServer = FixedServer


class NoAdvertiser:
    """Stands in for zeroconf: the controller is given the address instead."""

    async def async_register_service(self, *args, **kwargs):
        pass

    async def async_unregister_service(self, *args, **kwargs):
        pass

    async def async_update_service(self, *args, **kwargs):
        pass

    async def async_close(self):
        pass


def say(line: str) -> None:
    print(line, flush=True)


def main() -> None:
    code = sys.stdin.readline().strip()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    driver = AccessoryDriver(address="127.0.0.1", port=port, persist_file=sys.argv[1], pincode=code.encode(),
                             async_zeroconf_instance=NoAdvertiser())
    bridge = Bridge(driver, "Harness Bridge")
    lamp = Accessory(driver, "Lamp")
    lamp.category = CATEGORY_LIGHTBULB
    on = lamp.add_preload_service("Lightbulb").configure_char("On", setter_callback=lambda value: say(f"set on {value}"))
    bridge.add_accessory(lamp)
    driver.add_accessory(accessory=bridge)
    driver.loop.run_until_complete(driver.async_start())
    say(f"port {port}")

    def commands() -> None:
        for line in sys.stdin:
            word = line.strip()
            if word in ("on", "off"):
                driver.loop.call_soon_threadsafe(on.set_value, word == "on")
                say(f"ok {word}")
            elif word == "quit":
                break
        driver.loop.call_soon_threadsafe(driver.loop.stop)

    threading.Thread(target=commands, daemon=True).start()
    driver.loop.run_forever()


if __name__ == "__main__":
    main()
