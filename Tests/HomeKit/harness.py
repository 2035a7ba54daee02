"""What the HomeKit tests share: a HomeKit controller (aiohomekit, the one Home Assistant uses)
pairing with an accessory by address, reading what it lists, writing, waiting for events, and
unpairing; the checks' tally. Used against housectl's bridge (test_aiohomekit.py, test_daemon.py)
and against HAP-python (test_hap_python.py), so that a broken harness shows against a known-good
accessory too. Every wait is bounded (TIMEOUT).
"""

from __future__ import annotations

import asyncio
import logging
import re
import signal

from aiohomekit.controller.ip.controller import IpController
from aiohomekit.controller.ip.discovery import IpDiscovery
from aiohomekit.controller.ip.pairing import IpPairing
from aiohomekit.exceptions import AuthenticationError, HomeKitException, UnavailableError
from aiohomekit.model.categories import Categories
from aiohomekit.model.feature_flags import FeatureFlags
from aiohomekit.model.status_flags import StatusFlags
from aiohomekit.zeroconf import HomeKitService

TIMEOUT = 20


async def wait_until(condition: asyncio.Condition, found):
    """What `found()` gives once it is something, checked whenever `condition` is notified (None after TIMEOUT)."""
    async with condition:
        try:
            await asyncio.wait_for(condition.wait_for(found), TIMEOUT)
        except asyncio.TimeoutError:
            return None
        return found()


class Tally:
    """The checks so far: each printed as it is made, counted for the summary."""

    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def check(self, what: str, ok: bool, detail: object = "") -> bool:
        if ok:
            self.passed += 1
            print(f"ok   {what}", flush=True)
        else:
            self.failed += 1
            print(f"FAIL {what} {detail}", flush=True)
        return ok

    def summary(self, name: str) -> int:
        print(f"{name}: {self.passed} passed, {self.failed} failed", flush=True)
        return 1 if self.failed else 0


def description(port: int, category: Categories = Categories.BRIDGE) -> HomeKitService:
    """What an mDNS record would have told: the address, the port, an accessory that is not paired."""
    return HomeKitService(
        name="accessory",
        id="00:00:00:00:00:00",
        model="accessory",
        feature_flags=FeatureFlags(0),
        status_flags=StatusFlags.UNPAIRED,
        config_num=1,
        state_num=1,
        category=category,
        protocol_version="1.1",
        type="_hap._tcp.local.",
        address="127.0.0.1",
        addresses=["127.0.0.1"],
        port=port,
    )


async def pair(controller: IpController, port: int, code: str, alias: str,
               category: Categories = Categories.BRIDGE) -> IpPairing:
    """Pair-setup with `code`; raises aiohomekit's error for the accessory's refusal."""
    discovery = IpDiscovery(controller, description(port, category))
    try:
        finish = await asyncio.wait_for(discovery.async_start_pairing(alias), TIMEOUT)
        return await asyncio.wait_for(finish(code), TIMEOUT)
    finally:
        await discovery.close()


async def pair_checked(tally: Tally, controller: IpController, port: int, code: str, wrong_code: str, who: str = "",
                       category: Categories = Categories.BRIDGE) -> IpPairing:
    """A wrong setup code first, which must be refused (Authentication at M4), then the right
    one, which must pair; the pairing."""
    try:
        await pair(controller, port, wrong_code, "wrong", category)
        tally.check(f"{who}a wrong setup code is refused", False, "it paired")
    except AuthenticationError:
        tally.check(f"{who}a wrong setup code is refused (Authentication)", True)
    pairing = await pair(controller, port, code, "house", category)
    data = pairing.pairing_data
    tally.check(f"{who}pairs with the setup code", bool(data.get("AccessoryPairingID")) and len(data.get("AccessoryLTPK", "")) == 64,
                data.keys())
    return pairing


async def check_paired_refuses_setup(tally: Tally, controller: IpController, port: int, code: str) -> None:
    """A paired accessory refuses another pair-setup (Unavailable), even with the right code."""
    try:
        await pair(controller, port, code, "second")
        tally.check("a paired bridge refuses pair-setup", False, "it paired again")
    except UnavailableError:
        tally.check("a paired bridge refuses pair-setup (Unavailable)", True)


def reconnect(controller: IpController, pairing_data: dict, port: int) -> IpPairing:
    """A pairing kept from before, for an accessory now on `port` (pair-verify at its first request)."""
    data = dict(pairing_data)
    data["AccessoryPort"] = port
    return IpPairing(controller, data)


def short(uuid: str) -> str:
    """Apple's short form of a type ("43" for 00000043-0000-1000-8000-0026BB765291 or "43")."""
    return uuid.upper().split("-")[0].lstrip("0") or "0"


def find(accessories: list, serial: str) -> dict | None:
    """The accessory whose SerialNumber (type 30) is `serial`."""
    for accessory in accessories:
        if any(short(c["type"]) == "30" and c.get("value") == serial for s in accessory["services"] for c in s["characteristics"]):
            return accessory
    return None


def service(accessory: dict, service_type: str) -> dict | None:
    return next((s for s in accessory["services"] if short(s["type"]) == service_type), None)


def characteristic(accessory: dict, service_type: str, char_type: str) -> dict | None:
    found = service(accessory, service_type)
    return next((c for c in found["characteristics"] if short(c["type"]) == char_type), None) if found else None


async def write(pairing: IpPairing, key: tuple[int, int], value) -> int:
    """Writes one characteristic; its HAP status (0: done)."""
    result = await asyncio.wait_for(pairing.put_characteristics([(key[0], key[1], value)]), TIMEOUT)
    return result.get(key, {}).get("status", 0)


async def read(pairing: IpPairing, key: tuple[int, int]):
    values = await asyncio.wait_for(pairing.get_characteristics([key]), TIMEOUT)
    return values.get(key, {}).get("value")


class Lines:
    """A child process's output lines, kept as they come: a wait is for a line, never a sleep."""

    def __init__(self, *command: str) -> None:
        self.argv = command
        self.lines: list[str] = []
        self.changed = asyncio.Condition()
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        self.proc = await asyncio.create_subprocess_exec(*self.argv, stdout=asyncio.subprocess.PIPE,
                                                         stderr=asyncio.subprocess.STDOUT)
        asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        while line := await self.proc.stdout.readline():
            async with self.changed:
                self.lines.append(line.decode(errors="replace").rstrip("\n"))
                self.changed.notify_all()
        async with self.changed:
            self.changed.notify_all()

    def mark(self) -> int:
        return len(self.lines)

    async def wait_text(self, text: str, after: int = 0) -> str | None:
        """The first line from `after` on that contains `text`; None when none came in time."""
        found = await self.wait(re.escape(text), after)
        return found.string if found else None

    async def wait(self, pattern: str, after: int = 0) -> re.Match | None:
        """The first line from `after` on that matches `pattern`; None when none came in time."""

        def found():
            return next((m for line in self.lines[after:] if (m := re.search(pattern, line))), None)

        async def until():
            async with self.changed:
                await self.changed.wait_for(lambda: found() is not None or self.proc.returncode is not None)
            return found()

        try:
            return await asyncio.wait_for(until(), TIMEOUT)
        except asyncio.TimeoutError:
            return None

    async def stop(self) -> int | None:
        """SIGTERM, and its exit status (killed when it does not exit in time)."""
        if self.proc and self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), TIMEOUT)
            except asyncio.TimeoutError:
                self.proc.kill()
                await self.proc.wait()
        return self.proc.returncode if self.proc else None


class ChildAccessory(Lines):
    """An accessory in a process of its own (housectl-homekit-fixture, HAP-python's): the setup
    code on its standard input's first line (never in argv, where `ps` shows it), `port N` on its
    output once listening, commands on its input each answered `ok ...`, `quit` to stop. With
    `log`, its standard error (its log) joins the lines too, for `wait_text`."""

    def __init__(self, *command: str, log: bool = False) -> None:
        super().__init__(*command)
        self.port = 0
        self.log = log

    async def start(self, code: str) -> None:
        self.proc = await asyncio.create_subprocess_exec(*self.argv, stdin=asyncio.subprocess.PIPE,
                                                         stdout=asyncio.subprocess.PIPE,
                                                         stderr=asyncio.subprocess.STDOUT if self.log else None)
        asyncio.get_running_loop().create_task(self._read())
        at = self.mark()
        self.proc.stdin.write(f"{code}\n".encode())
        await self.proc.stdin.drain()
        listening = await self.wait(r"^port (\d+)$", at)
        if not listening:
            raise RuntimeError(f"{self.argv[0]} did not listen: {self.lines[-10:]}")
        self.port = int(listening.group(1))

    async def command(self, text: str) -> None:
        at = self.mark()
        self.proc.stdin.write(f"{text}\n".encode())
        await self.proc.stdin.drain()
        if not await self.wait(f"^ok {re.escape(text)}$", at):
            raise RuntimeError(f"{self.argv[0]} did not take {text!r}: {self.lines[-10:]}")

    async def stop(self) -> int | None:
        if self.proc and self.proc.returncode is None:
            try:
                self.proc.stdin.write(b"quit\n")
                await self.proc.stdin.drain()
                await asyncio.wait_for(self.proc.wait(), TIMEOUT)
            except (asyncio.TimeoutError, ConnectionError):
                pass
        return await super().stop()


class Events:
    """The events a pairing receives, kept in order; `next` waits for the next one of a
    characteristic (that `accept` takes), bounded."""

    def __init__(self, pairing: IpPairing) -> None:
        self.seen: list[tuple[tuple[int, int], object]] = []
        self.changed = asyncio.Condition()
        pairing.dispatcher_connect(self._received)

    def _received(self, event: dict) -> None:
        for key, value in event.items():
            self.seen.append((key, value.get("value")))
        asyncio.get_running_loop().create_task(self._notify())

    async def _notify(self) -> None:
        async with self.changed:
            self.changed.notify_all()

    def mark(self) -> int:
        """Where the events are now: `next` looks only at events after it."""
        return len(self.seen)

    async def next(self, key: tuple[int, int], after: int, accept=lambda value: True):
        """The value of the first event of `key` after `after` that `accept` takes; None when none came in time."""

        def found():
            return next((v for k, v in self.seen[after:] if k == key and accept(v)), None)

        async def wait():
            async with self.changed:
                await self.changed.wait_for(lambda: found() is not None)
            return found()

        try:
            return await asyncio.wait_for(wait(), TIMEOUT)
        except asyncio.TimeoutError:
            return None


async def refused_verify(controller: IpController, pairing_data: dict, port: int) -> Exception | None:
    """Tries a pairing kept from before (pair-verify at the first request): the error it fails
    with, or None when it was verified."""
    stale = reconnect(controller, pairing_data, port)
    # aiohomekit logs its connector's failure with a traceback: here it is the expected outcome.
    background = logging.getLogger("aiohomekit.utils")
    level = background.level
    background.setLevel(logging.CRITICAL)
    try:
        await asyncio.wait_for(stale.list_accessories_and_characteristics(), TIMEOUT)
        return None
    except (HomeKitException, asyncio.TimeoutError) as error:
        return error
    finally:
        try:
            await stale.close()
        except HomeKitException:
            pass  # the connector's own copy of the error above
        background.setLevel(level)


async def unpair(pairing: IpPairing) -> bool:
    """Removes the controller's own pairing and closes the session."""
    removed = await asyncio.wait_for(pairing.remove_pairing(pairing.pairing_data["iOSPairingId"]), TIMEOUT)
    await pairing.close()
    return removed is True
