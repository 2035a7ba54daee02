#!/usr/bin/env python3
"""Generate the household histories of Tests/Fixtures/habits.

    python3 Tests/Fixtures/habits/generate.py          # rewrite every NAME.jsonl and NAME.expected.json
    python3 Tests/Fixtures/habits/generate.py --check  # regenerate in memory, compare with the files

Each scenario is a household of Maple Cottage (config/house.yaml, Europe/London) living 6-8 weeks:
habits with jitter, skipped days and holidays, and the background of ordinary life. The random
numbers come from random.Random("63:<scenario>"), so the files are the same on every run.

Before writing, every expectation is checked against the generated history itself (the "oracle"
below, which knows nothing of housectl): a must_find habit really is in most of its days and weeks,
a must_not_find one really is rare, short-lived or spread out. The table it prints is the evidence.
See README.md for how an expected.json is meant to be matched against `housectl suggestions --json`.
"""

import json
import random
import statistics
import sys
from collections import defaultdict
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

TZ = ZoneInfo("Europe/London")
SEED = 63
OUT = Path(__file__).resolve().parent

# From config/house.yaml. porch-light is deliberately NOT one of them (scenario 3).
DEVICES = {
    "living-ceiling-light", "living-floor-lamp", "living-shutter", "kitchen-light", "hall-light",
    "office-fan", "bathroom-heater", "bedroom-ceiling-light", "bedroom-bedside-lamp", "bedroom-fan",
    "garage-door", "garage-light", "garden-pump", "office-plug",
}
COVERS = {"living-shutter", "garage-door"}
MODES = {"morning", "day", "evening", "night", "away", "movie"}
ROUTINES = {"good-morning", "good-night", "garden-water"}
WEEKDAY_NAMES = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]


def tri(rng, spread):
    """Jitter in minutes, within +/- spread, most often near 0."""
    return rng.triangular(-spread, spread, 0)


def hm(text):
    h, m = text.split(":")
    return int(h) * 60 + int(m)


class History:
    def __init__(self, name, start, weeks):
        assert start.weekday() == 0, "histories start on a Monday"
        self.name = name
        self.rng = random.Random(f"{SEED}:{name}")
        self.start = start
        self.days = [start + timedelta(days=i) for i in range(weeks * 7)]
        self.events = []          # (utc datetime, sequence number, record)
        self.busy = defaultdict(list)

    def at(self, day, minutes):
        """Local wall time on `day`, `minutes` after its midnight (may pass midnight). A time in the
        spring-forward gap moves to just after it, as a clock on the wall would show it."""
        naive = datetime(day.year, day.month, day.day) + timedelta(seconds=round(minutes * 60))
        return naive.replace(tzinfo=TZ).astimezone(timezone.utc).astimezone(TZ)

    def _add(self, t, record):
        self.events.append((t.astimezone(timezone.utc), len(self.events), {"time": t.isoformat(timespec="seconds"), **record}))

    def free(self, device, a, b, margin=timedelta(minutes=1)):
        return all(b + margin <= s or e + margin <= a for s, e in self.busy[device])

    def switch(self, device, t_on, t_off=None, *, off_event=True, force=False):
        """Device on (a cover: open) at t_on, off (close) at t_off. Without t_off, or with
        off_event=False, nothing switches it off in the history (a mode does). An interval that
        overlaps one already placed for the device is dropped (the habits are placed first) unless
        force=True. Returns whether it was placed."""
        end = t_off if t_off is not None else t_on + timedelta(hours=3)
        if not force and not self.free(device, t_on, end):
            return False
        self.busy[device].append((t_on, end))
        on, off = ("open", "close") if device in COVERS else ("on", "off")
        self._add(t_on, {"device": device, "action": on})
        if t_off is not None and off_event:
            self._add(t_off, {"device": device, "action": off})
        return True

    def mode(self, t, mode):
        assert mode in MODES
        self._add(t, {"mode": mode})

    def routine(self, t, routine):
        assert routine in ROUTINES
        self._add(t, {"routine": routine})

    def lines(self):
        return [json.dumps(rec) for _, _, rec in sorted(self.events, key=lambda e: (e[0], e[1]))]

    def local_events(self):
        out = []
        for utc, _, rec in sorted(self.events, key=lambda e: (e[0], e[1])):
            out.append((utc.astimezone(TZ), rec))
        return out


# ------------------------------------------------------------------------------------------------
# Background of ordinary life: irregular, never at about the same time on most days.

def evening_background(h, day, *, floor_lamp=0.7, bedside=0.6, lamp_from="18:30", lamp_to="21:00"):
    rng = h.rng
    if rng.random() < floor_lamp:
        on = h.at(day, rng.uniform(hm(lamp_from), hm(lamp_to)))
        h.switch("living-floor-lamp", on, h.at(day, rng.uniform(hm("22:15"), hm("23:50"))))
    if rng.random() < 0.25:
        on = h.at(day, rng.uniform(hm("17:00"), hm("21:30")))
        h.switch("living-ceiling-light", on, on + timedelta(minutes=rng.uniform(10, 120)))
    if rng.random() < bedside:
        on = h.at(day, rng.uniform(hm("21:45"), hm("23:45")))
        h.switch("bedroom-bedside-lamp", on, on + timedelta(minutes=rng.uniform(5, 50)))


def odd_jobs(h, day, p=0.3):
    """Now and then: the garage, the office, the bedroom ceiling light, at any hour."""
    rng = h.rng
    if rng.random() < p:
        device = rng.choice(["garage-light", "office-plug", "bedroom-ceiling-light", "office-fan"])
        on = h.at(day, rng.uniform(hm("07:00"), hm("22:00")))
        h.switch(device, on, on + timedelta(minutes=rng.uniform(3, 150)))


# ------------------------------------------------------------------------------------------------
# The scenarios. Each returns (history, expected).

def commuter_kitchen_light():
    h = History("commuter_kitchen_light", date(2026, 1, 12), 8)
    rng = h.rng
    holiday = {date(2026, 2, 8) + timedelta(days=i) for i in range(14)}   # Sun 8 - Sat 21 Feb
    for day in h.days:
        wd = day.weekday()
        if day in holiday:
            continue
        if day == date(2026, 2, 7):                      # the Saturday they leave
            h.switch("kitchen-light", h.at(day, hm("07:12") + 0.4), h.at(day, hm("09:21") + 0.7))
            h.mode(h.at(day, hm("09:38") + 0.25), "away")
            continue
        if day == date(2026, 2, 22):                     # back on Sunday evening
            h.switch("hall-light", h.at(day, hm("17:26") + 0.1), h.at(day, hm("17:51") + 0.3))
            h.switch("kitchen-light", h.at(day, hm("17:29") + 0.6), h.at(day, hm("22:47") + 0.2))
            continue
        forgot = False
        if wd < 5:
            if rng.random() < 0.9:                       # sick days, early trains: no kitchen light
                late_friday = wd == 4 and rng.random() < 0.2   # working from home some Fridays
                centre = hm("08:10") if late_friday else hm("06:45")
                on = h.at(day, centre + tri(rng, 15))
                if rng.random() < 0.05:                  # left on all day, off late in the evening
                    forgot = True
                    h.switch("kitchen-light", on, h.at(day, rng.uniform(hm("21:30"), hm("23:15"))))
                else:
                    off_min = (hm("08:55") if late_friday else hm("07:30")) + tri(rng, 12)
                    off = max(h.at(day, off_min), on + timedelta(minutes=25 + rng.uniform(0, 5)))
                    h.switch("kitchen-light", on, off)
        else:
            if rng.random() < 0.5:                       # lie-in: breakfast whenever
                on = h.at(day, rng.uniform(hm("08:15"), hm("10:30")))
                h.switch("kitchen-light", on, on + timedelta(minutes=rng.uniform(30, 90)))
        if not forgot and rng.random() < (0.9 if wd < 5 else 0.7):
            lo, hi = ("17:15", "19:30") if wd < 5 else ("16:30", "19:00")
            on = h.at(day, rng.uniform(hm(lo), hm(hi)))
            h.switch("kitchen-light", on, h.at(day, rng.uniform(hm("21:30"), hm("23:15"))))
        evening_background(h, day)
        odd_jobs(h, day, 0.2)
    expected = {
        "now": "2026-03-09T12:00:00+00:00",
        "absences": [{"from": "2026-02-08", "to": "2026-02-21", "what": "holiday, house empty"}],
        "must_find": [
            {"kind": ["routine", "add_to_routine"], "routine": "good-morning", "device": "kitchen-light",
             "action": "on", "days": "weekdays", "around": "06:45", "tolerance_minutes": 20, "max_matches": 1},
            {"kind": ["routine", "add_to_routine"], "routine": "good-morning", "device": "kitchen-light",
             "action": "off", "days": "weekdays", "around": "07:30", "tolerance_minutes": 20, "max_matches": 1},
        ],
        "must_not_find": [
            {"device": "kitchen-light", "action": "on", "days": "weekends", "around": "06:45", "tolerance_minutes": 30,
             "reason": "rare"},
            {"device": "kitchen-light", "action": "on", "days": "every day", "around": "06:45", "tolerance_minutes": 30,
             "reason": "wrong_days", "instead": "weekdays"},
            {"kind": "max_on", "device": "kitchen-light", "reason": "irregular_duration"},
            {"mode": "away", "reason": "rare"},
        ],
        "notes": (
            "A commuter couple. On weekday mornings the first one up switches the kitchen light on at "
            "about 06:45 (06:30-07:00) and the last one out switches it off at about 07:30; some days "
            "nobody does (sick days, an early train), now and then a Friday at home starts at 08:10 "
            "instead, and a few times the light was left on until the evening. Weekends: breakfast any "
            "time between 08:15 and 10:30, or none. Evenings: kitchen and living-room lights at no "
            "particular time. A two-week holiday (Sun 8 - Sat 21 Feb 2026, 'away' set once on the "
            "morning they left) has no events at all; the habit is there in the 4 weeks before and "
            "the 2 weeks after. The morning habits fall inside good-morning's window (06:00-09:00 "
            "weekdays, run_at 06:30), so a new routine or an addition to good-morning are both "
            "accepted ('routine' applies only to kind add_to_routine). Not wanted: a weekend or "
            "every-day version, a max_on for the kitchen light (on for 45 min in the morning but "
            "hours in the evening), anything from the single 'away'."
        ),
    }
    return h, expected


def summer_garden_pump():
    h = History("summer_garden_pump", date(2026, 6, 1), 8)
    rng = h.rng
    raining = False
    pond_days = set(rng.sample([d for d in h.days if d.weekday() >= 5], 4))
    for day in h.days:
        raining = rng.random() < (0.45 if raining else 0.1)      # wet spells of a few days
        if not raining and rng.random() < 0.95:                  # out for the evening now and then
            on = h.at(day, hm("20:00") + tri(rng, 15))
            h.switch("garden-pump", on, on + timedelta(minutes=30 + tri(rng, 6)))
        if day in pond_days:                                     # topping up the pond
            on = h.at(day, rng.uniform(hm("09:30"), hm("11:45")))
            h.switch("garden-pump", on, on + timedelta(minutes=rng.uniform(12, 45)))
        if rng.random() < 0.35:
            on = h.at(day, rng.uniform(hm("06:45"), hm("08:30")))
            h.switch("kitchen-light", on, on + timedelta(minutes=rng.uniform(5, 40)))
        if rng.random() < 0.3:                                   # hot nights
            on = h.at(day, rng.uniform(hm("21:30"), hm("23:45")))
            h.switch("bedroom-fan", on, h.at(day + timedelta(days=1), rng.uniform(hm("05:50"), hm("07:40"))))
        evening_background(h, day, floor_lamp=0.5, lamp_from="20:45", lamp_to="22:15")
        odd_jobs(h, day)
    expected = {
        "now": "2026-07-27T09:00:00+01:00",
        "must_find": [
            {"kind": "max_on", "device": "garden-pump", "duration_minutes": 30,
             "duration_tolerance_minutes": 10},
            {"kind": "routine", "device": "garden-pump", "action": "on", "days": "every day",
             "around": "20:00", "tolerance_minutes": 20, "max_matches": 1},
        ],
        "must_not_find": [
            {"device": "garden-pump", "action": "on", "around": "10:30", "tolerance_minutes": 60, "reason": "rare"},
            {"kind": "add_to_routine", "routine": "garden-water", "reason": "outside_routine_window"},
            {"kind": "max_on", "device": "garden-pump", "duration_minutes": 60, "duration_tolerance_minutes": 10,
             "reason": "wrong_duration"},
        ],
        "notes": (
            "Summer 2026 (June-July, BST). Most dry evenings someone switches the garden pump on at "
            "about 20:00 and off again after about half an hour (25-35 min); wet spells of a few "
            "days and the odd evening out have none. The pump's max_on is 1h in house.yaml: a "
            "max_on/timer of about 30 min is the suggestion, with a routine at about 20:00 every "
            "day. garden-water (sunset+15m, about 21:05-21:35 here, relevant sunset to dusk) is "
            "not where 20:00 falls, so no add_to_routine to it. Four Saturday/Sunday mornings the "
            "pond was topped up (10:00-ish, 12-45 min): too rare. Kitchen light, bedroom fan on hot "
            "nights, evening lamps: background."
        ),
    }
    return h, expected


def hall_then_kitchen_sequence():
    h = History("hall_then_kitchen_sequence", date(2026, 4, 13), 8)
    rng = h.rng
    lamp_days = set(rng.sample(h.days, 6))
    for day in h.days:
        wd = day.weekday()
        # An old timer from the previous system, not in house.yaml: reported, never suggested.
        h.switch("porch-light", h.at(day, hm("21:00") + tri(rng, 5)), h.at(day, hm("23:00") + tri(rng, 5)))
        home = rng.random() < (0.85 if wd < 5 else 0.6)
        if home:
            lo, hi = ("17:15", "19:45") if wd < 5 else ("14:00", "20:00")
            t = h.at(day, rng.uniform(hm(lo), hm(hi)))
            r = rng.random()
            hall_off = t + timedelta(minutes=rng.uniform(2, 15) if r < 0.6 else rng.uniform(40, 200))
            h.switch("hall-light", t, hall_off)
            if rng.random() < 0.9:
                k = t + timedelta(seconds=rng.uniform(60, 180))
            else:                                         # straight to the sofa, kitchen later
                k = t + timedelta(minutes=rng.uniform(25, 70))
            h.switch("kitchen-light", k, h.at(day, rng.uniform(hm("21:00"), hm("23:30"))))
            if day in lamp_days:                          # sometimes the lamp comes on straight away
                h.switch("living-floor-lamp", t + timedelta(seconds=rng.uniform(90, 170)),
                         h.at(day, rng.uniform(hm("22:00"), hm("23:30"))))
        if rng.random() < 0.3:
            on = h.at(day, rng.uniform(hm("06:30"), hm("08:30")))
            h.switch("kitchen-light", on, on + timedelta(minutes=rng.uniform(5, 30)))
        evening_background(h, day, floor_lamp=0.5, lamp_from="19:30", lamp_to="21:30")
        odd_jobs(h, day)
    expected = {
        "now": "2026-06-08T09:00:00+01:00",
        "unknown_devices": ["porch-light"],
        "must_find": [
            {"kind": "sequence", "devices": ["hall-light", "kitchen-light"], "action": "on",
             "within_minutes": 5, "max_matches": 1},
        ],
        "must_not_find": [
            {"kind": "sequence", "devices": ["kitchen-light", "hall-light"], "reason": "wrong_order"},
            {"kind": "sequence", "devices": ["hall-light", "living-floor-lamp"], "reason": "rare"},
            {"device": "porch-light", "reason": "unknown_device"},
        ],
        "notes": (
            "Coming home: whoever gets in switches the hall light on and, one to three minutes "
            "later, the kitchen light (about 9 times in 10); most weekday evenings between 17:15 "
            "and 19:45 and some weekend afternoons, at no fixed time. The hall light goes off after "
            "a few minutes or is forgotten for hours: no max_on. Six times the floor lamp came on "
            "within 3 minutes of the hall light too: too rare for a sequence. 'porch-light' is a "
            "device of an old system, not in house.yaml: it comes on at 21:00 and off at 23:00 every "
            "day, and must be reported as unknown, never suggested. Whether the arrival (hall light "
            "on, 17:15-19:45 on weekdays, spread 2.5 h) deserves a loose time-of-day suggestion is "
            "left open: neither required nor forbidden."
        ),
    }
    return h, expected


def night_owl_midnight():
    h = History("night_owl_midnight", date(2026, 10, 26), 8)
    rng = h.rng
    fridays_saturdays = [d for d in h.days if d.weekday() in (4, 5)]
    party_nights = set(rng.sample(fridays_saturdays, 4))
    for day in h.days:
        wd = day.weekday()
        # Bedtime of the night that starts on `day`: minutes after day's midnight, about 24:00.
        if day in party_nights:
            bed = hm("01:50") + 1440 + tri(rng, 20)
        elif rng.random() < 0.9:
            bed = 1440 + tri(rng, 20)                   # 23:40 - 00:20
        else:
            bed = None                                  # fell asleep on the sofa: no mode set
        if rng.random() < 0.8:                          # late riser
            on = h.at(day, rng.uniform(hm("08:30"), hm("11:00")))
            h.switch("kitchen-light", on, on + timedelta(minutes=rng.uniform(20, 120)))
        if wd < 5 and rng.random() < 0.8:               # works from home, flexible hours
            on = h.at(day, rng.uniform(hm("10:00"), hm("12:00")))
            h.switch("office-plug", on, h.at(day, rng.uniform(hm("18:00"), hm("22:00"))))
        if rng.random() < 0.85:                         # dark early: the floor lamp, off by 'night'
            on = h.at(day, rng.uniform(hm("16:15"), hm("19:00")))
            if bed is not None:
                h.switch("living-floor-lamp", on, h.at(day, bed), off_event=False)
            else:
                h.switch("living-floor-lamp", on, h.at(day, 1440 + rng.uniform(20, 90)))
        if rng.random() < 0.5:
            on = h.at(day, rng.uniform(hm("18:00"), hm("21:30")))
            h.switch("kitchen-light", on, on + timedelta(minutes=rng.uniform(15, 90)))
        if bed is not None:
            h.mode(h.at(day, bed), "night")
            if rng.random() < 0.4:                      # reads in bed for a while
                on = h.at(day, bed + rng.uniform(2, 10))
                h.switch("bedroom-bedside-lamp", on, on + timedelta(minutes=rng.uniform(10, 45)))
        odd_jobs(h, day)
    expected = {
        "now": "2026-12-21T12:00:00+00:00",
        "must_find": [
            {"kind": ["routine", "add_to_routine"], "routine": "good-night", "mode": "night",
             "days": "every day", "around": "00:00", "tolerance_minutes": 25, "max_matches": 1},
        ],
        "must_not_find": [
            {"mode": "night", "around": "01:50", "tolerance_minutes": 25, "reason": "rare"},
            {"mode": "night", "days": "weekdays", "reason": "wrong_days", "instead": "every day"},
            {"mode": "night", "days": "weekends", "reason": "wrong_days", "instead": "every day"},
        ],
        "notes": (
            "A night owl (Oct-Dec 2026, GMT throughout). Nearly every night they set the 'night' "
            "mode between 23:40 and 00:20, as often just before midnight as just after: one habit "
            "at about 00:00 every day, with a window that crosses midnight (e.g. 23:40-00:20), not "
            "two habits at 23:50 and 00:10 (hence max_matches 1) nor one split by the calendar "
            "date. Four Friday/Saturday nights out ended around 01:50: outliers, not a habit. Some "
            "nights fell asleep on the sofa (no mode). Mornings, the office plug and the evening "
            "lamps are background at no fixed time. The existing good-night routine (shortcut "
            "only, relevant sunset-02:00, intent mode night) already does what the habit does: "
            "either a new routine or a suggestion on good-night (e.g. to give it a run time) is "
            "accepted, but the habit must be reported, not swallowed."
        ),
    }
    return h, expected


def dst_spring_forward():
    h = History("dst_spring_forward", date(2026, 3, 2), 8)
    rng = h.rng
    for day in h.days:
        if rng.random() < 0.88:                         # up with the lark, every day
            on = h.at(day, hm("07:00") + tri(rng, 12))
            # close at about sunset (local, so an hour later after 29 March)
            doy = (day - date(2026, 3, 2)).days
            sunset = hm("17:45") + doy * 1.55 + (60 if day >= date(2026, 3, 29) else 0)
            h.switch("living-shutter", on, h.at(day, sunset + rng.uniform(-10, 35)))
        if rng.random() < 0.6:
            on = h.at(day, rng.uniform(hm("07:15"), hm("09:30")))
            h.switch("kitchen-light", on, on + timedelta(minutes=rng.uniform(10, 50)))
        if rng.random() < 0.4:
            on = h.at(day, rng.uniform(hm("09:30"), hm("16:00")))
            h.switch("office-plug", on, on + timedelta(minutes=rng.uniform(20, 180)))
        evening_background(h, day, floor_lamp=0.6)
        odd_jobs(h, day, 0.2)
    expected = {
        "now": "2026-04-27T12:00:00+01:00",
        "must_find": [
            {"kind": ["routine", "add_to_routine"], "routine": "good-morning", "device": "living-shutter",
             "action": "open", "days": "every day", "around": "07:00", "tolerance_minutes": 15, "max_matches": 1},
        ],
        "must_not_find": [
            {"device": "living-shutter", "action": "open", "around": "06:00", "tolerance_minutes": 20,
             "reason": "dst_misread"},
            {"device": "living-shutter", "action": "open", "around": "08:00", "tolerance_minutes": 20,
             "reason": "dst_misread"},
        ],
        "notes": (
            "A retired early riser opens the living-room shutter at about 07:00 local time every "
            "day, 4 weeks before and 4 weeks after the clocks went forward on Sun 29 March 2026 "
            "(times written +00:00 before, +01:00 after). It is one habit at 07:00 local, with a "
            "spread of minutes, not an hour: read in UTC, the weeks after would sit at 06:00 and "
            "the whole habit would smear over 06:00-07:00, or read with a fixed offset it becomes "
            "two habits at 07:00 and 06:00 (or 08:00). The shutter closes at about sunset, which "
            "moves by more than an hour over these weeks: background, like the rest. On weekdays "
            "07:00 is inside good-morning's window, so an addition to it is also accepted, as long "
            "as the habit is one, every day, at 07:00."
        ),
    }
    return h, expected


def pure_noise():
    h = History("pure_noise", date(2026, 5, 4), 8)
    rng = h.rng
    switchable = ["living-ceiling-light", "living-floor-lamp", "living-shutter", "kitchen-light",
                  "hall-light", "office-fan", "office-plug", "bedroom-ceiling-light",
                  "bedroom-bedside-lamp", "bedroom-fan", "garage-light"]
    days = h.days
    # Tempting coincidences, placed first.
    fan_days = rng.sample(days, 5)                      # the office fan at 14:00, five times
    for d in fan_days:
        on = h.at(d, hm("14:00") + tri(rng, 5))
        h.switch("office-fan", on, on + timedelta(minutes=rng.uniform(15, 90)))
    seq_days = rng.sample(days, 5)                      # hall then kitchen, five times
    for d in seq_days:
        t = h.at(d, rng.uniform(hm("08:00"), hm("22:00")))
        h.switch("hall-light", t, t + timedelta(minutes=rng.uniform(3, 60)))
        k = t + timedelta(seconds=rng.uniform(40, 120))
        h.switch("kitchen-light", k, k + timedelta(minutes=rng.uniform(5, 60)))
    for week in range(8):                               # ceiling light at 19:30, once a week, a different day each time
        d = days[week * 7 + (week * 3 + 1) % 7]
        on = h.at(d, hm("19:30") + tri(rng, 8))
        h.switch("living-ceiling-light", on, on + timedelta(minutes=rng.uniform(20, 120)))
    fridays = [d for d in days if d.weekday() == 4]
    for d in rng.sample(fridays, 3):                    # movie night, three Fridays
        h.mode(h.at(d, hm("21:00") + tri(rng, 10)), "movie")
    for d in rng.sample(days, 6):                       # kitchen light on for 20 minutes, six times
        on = h.at(d, rng.uniform(hm("07:00"), hm("21:00")))
        h.switch("kitchen-light", on, on + timedelta(minutes=20 + rng.uniform(-1, 1)))
    # The noise: random devices at random times for random lengths.
    for day in days:
        n = sum(1 for _ in range(14) if rng.random() < 0.5)     # about 7 a day
        for _ in range(n):
            device = rng.choice(switchable)
            on = h.at(day, rng.uniform(hm("06:00"), hm("23:59")))
            length = min(180.0, max(1.0, rng.expovariate(1 / 40)))
            h.switch(device, on, on + timedelta(minutes=length))
        if rng.random() < 0.2:
            h.mode(h.at(day, rng.uniform(hm("07:00"), hm("23:30"))), rng.choice(["day", "evening"]))
        if rng.random() < 0.08:
            h.routine(h.at(day, rng.uniform(hm("20:00"), hm("25:30"))), "good-night")
    expected = {
        "now": "2026-06-29T09:00:00+01:00",
        "max_suggestions": 0,
        "must_find": [],
        "must_not_find": [
            {"device": "office-fan", "action": "on", "around": "14:00", "tolerance_minutes": 30, "reason": "not_most_days"},
            {"kind": "sequence", "devices": ["hall-light", "kitchen-light"], "reason": "rare"},
            {"device": "living-ceiling-light", "action": "on", "around": "19:30", "tolerance_minutes": 30,
             "reason": "not_most_days"},
            {"mode": "movie", "reason": "rare"},
            {"kind": "max_on", "device": "kitchen-light", "reason": "irregular_duration"},
            {"routine": "good-night", "reason": "rare"},
        ],
        "notes": (
            "Eight weeks of random switching: about 7 times a day a random light, fan, plug or "
            "the shutter at a random time between 06:00 and midnight for a random length "
            "(exponential, mean 40 min), a random 'day'/'evening' mode now and then, 'good-night' "
            "run a few times at random. Nothing here is a habit: no suggestion at all. Planted "
            "temptations, each in must_not_find: the office fan on at 14:00 on 5 days (with chance "
            "hits about 9 of 56); hall light "
            "then kitchen light within 2 min on 5 days; the living-room ceiling light on at 19:30 "
            "once a week, on a different weekday each week (with chance hits about 10 days of 56: "
            "enough occurrences, never most of any set of days); 'movie' at 21:00 on 3 Fridays; the kitchen light on for "
            "exactly 20 minutes 6 times among hundreds of other lengths."
        ),
    }
    return h, expected


def too_little_evidence():
    h = History("too_little_evidence", date(2026, 6, 29), 8)
    rng = h.rng
    heatwave = [date(2026, 8, 8) + timedelta(days=i) for i in range(9)]      # Sat 8 - Sun 16 Aug
    new_job = [date(2026, 8, 11), date(2026, 8, 13), date(2026, 8, 18), date(2026, 8, 20)]
    saturdays = [d for d in h.days if d.weekday() == 5]
    skipped_saturday = saturdays[3]
    for day in h.days:
        if day.weekday() == 5 and day != skipped_saturday:   # the Saturday tidy-up in the garage
            on = h.at(day, hm("10:00") + tri(rng, 12))
            h.switch("garage-light", on, on + timedelta(minutes=rng.uniform(20, 75)))
        if day in new_job:                                   # new hybrid job: desk at 09:00 Tue/Thu
            on = h.at(day, hm("09:00") + tri(rng, 8))
            h.switch("office-plug", on, h.at(day, rng.uniform(hm("16:45"), hm("17:45"))))
        if day in heatwave:
            on = h.at(day, hm("22:30") + tri(rng, 10))
            h.switch("bedroom-fan", on, h.at(day + timedelta(days=1), rng.uniform(hm("06:20"), hm("07:30"))))
        if rng.random() < 0.5:
            on = h.at(day, rng.uniform(hm("06:45"), hm("09:30")))
            h.switch("kitchen-light", on, on + timedelta(minutes=rng.uniform(5, 40)))
        if rng.random() < 0.4:
            on = h.at(day, rng.uniform(hm("18:00"), hm("21:30")))
            h.switch("kitchen-light", on, on + timedelta(minutes=rng.uniform(15, 120)))
        evening_background(h, day, floor_lamp=0.5, lamp_from="20:30", lamp_to="22:00")
        if rng.random() < 0.2:
            device = rng.choice(["office-plug", "bedroom-ceiling-light", "office-fan", "hall-light"])
            on = h.at(day, rng.uniform(hm("11:00"), hm("22:00")))
            h.switch(device, on, on + timedelta(minutes=rng.uniform(3, 150)))
    expected = {
        "now": "2026-08-24T12:00:00+01:00",
        "must_find": [
            {"kind": "routine", "device": "garage-light", "action": "on", "days": ["sat"],
             "around": "10:00", "tolerance_minutes": 20, "max_matches": 1},
        ],
        "must_not_find": [
            {"device": "office-plug", "action": "on", "around": "09:00", "tolerance_minutes": 30, "reason": "rare"},
            {"device": "bedroom-fan", "action": "on", "around": "22:30", "tolerance_minutes": 30, "reason": "short_span"},
        ],
        "notes": (
            "Thresholds (at least 7 occurrences over at least 2 weeks by default). "
            "Found, at the threshold: the garage light on at about 10:00 on Saturdays, 7 of the 8 "
            "Saturdays (the 4th skipped), a particular-weekday habit. Not found: a new hybrid job, "
            "the office plug on at 09:00 on Tue 11, Thu 13, Tue 18 and Thu 20 August, 4 times in "
            "the last 10 days (4 of 4 Tuesdays/Thursdays of those two weeks: tempting, but too "
            "little evidence); a heat wave, the bedroom fan on at 22:30 on 9 nights running (8-16 "
            "Aug): 9 occurrences, but over 9 days, not 2 weeks. Kitchen light and evening lamps "
            "are background."
        ),
    }
    return h, expected


def confirm_bathroom_heater():
    h = History("confirm_bathroom_heater", date(2026, 10, 26), 8)
    rng = h.rng
    old_job = set(h.days[:21])
    trip = {date(2026, 11, 23) + timedelta(days=i) for i in range(5)}   # one of them away Mon-Fri
    for day in h.days:
        wd = day.weekday()
        if wd < 5:
            if rng.random() < (0.3 if day in trip else 0.87):
                on = h.at(day, hm("06:20") + tri(rng, 12))
                h.switch("bathroom-heater", on, on + timedelta(minutes=40 + tri(rng, 6)))
        elif rng.random() < 0.6:
            on = h.at(day, rng.uniform(hm("08:00"), hm("10:00")))
            h.switch("bathroom-heater", on, on + timedelta(minutes=40 + tri(rng, 6)))
        if wd < 5 and day in old_job and rng.random() < 0.9:      # the old job: desk at 08:00
            on = h.at(day, hm("08:00") + tri(rng, 10))
            h.switch("office-plug", on, h.at(day, rng.uniform(hm("17:00"), hm("18:00"))))
        if wd in (0, 2) and rng.random() < 0.9:                   # evening class: the bike
            on = h.at(day, hm("18:50") + tri(rng, 10))
            h.switch("garage-light", on, on + timedelta(minutes=rng.uniform(3, 8)))
        if rng.random() < 0.7:
            on = h.at(day, rng.uniform(hm("06:40"), hm("08:30")))
            h.switch("kitchen-light", on, on + timedelta(minutes=rng.uniform(10, 45)))
        if rng.random() < 0.8:
            on = h.at(day, rng.uniform(hm("16:00"), hm("18:30")))
            h.switch("kitchen-light", on, h.at(day, rng.uniform(hm("20:30"), hm("23:00"))))
        evening_background(h, day, lamp_from="16:30", lamp_to="19:30")
        if wd >= 5 and rng.random() < 0.3:
            on = h.at(day, rng.uniform(hm("11:00"), hm("16:00")))
            h.switch("garage-light", on, on + timedelta(minutes=rng.uniform(15, 90)))
    expected = {
        "now": "2026-12-21T12:00:00+00:00",
        "must_find": [
            {"kind": ["routine", "add_to_routine"], "routine": "good-morning", "device": "bathroom-heater",
             "action": "on", "days": "weekdays", "around": "06:20", "tolerance_minutes": 20,
             "max_matches": 1, "needs_confirmation": True},
            {"kind": "max_on", "device": "bathroom-heater", "duration_minutes": 40,
             "duration_tolerance_minutes": 10, "needs_confirmation": True},
            {"kind": "routine", "device": "garage-light", "action": "on", "days": ["mon", "wed"],
             "around": "18:50", "tolerance_minutes": 20, "max_matches": 1},
        ],
        "must_not_find": [
            {"device": "bathroom-heater", "action": "on", "days": "weekends", "around": "06:20", "tolerance_minutes": 30,
             "reason": "rare"},
            {"device": "office-plug", "action": "on", "around": "08:00", "tolerance_minutes": 30, "reason": "stale"},
            {"kind": "add_to_routine", "routine": "good-night", "device": "garage-light",
             "reason": "unrelated_routine"},
        ],
        "notes": (
            "Winter (Oct-Dec 2026, GMT). On weekday mornings the bathroom heater (confirm: true, "
            "max_on 2h in house.yaml) goes on at about 06:20 and off after about 40 minutes; on "
            "weekends at any time between 08:00 and 10:00, also for about 40 minutes; during one "
            "week's work trip mostly not at all. The habit is found, but every suggestion about the "
            "heater must say that it is a confirm: true device (needs_confirmation): a routine "
            "switching it on needs a yes, so its house.yaml snippet must carry confirmed: true "
            "(config check refuses it otherwise) and accepting it means agreeing to that. The "
            "max_on of about 40 min (tighter than the configured 2h) is found too. On Mondays and "
            "Wednesdays the garage light goes on at about 18:50 for a few minutes (evening class, "
            "the bike): a particular-weekdays habit. good-night's window (sunset-02:00) covers "
            "18:50, but adding the garage light to 'Good night house' would be nonsense: no "
            "add_to_routine there. The office plug at 08:00 on weekdays stopped after the first 3 "
            "weeks (a new job): not in most of the recent weeks, not found."
        ),
    }
    return h, expected


def wfh_desk_mode():
    h = History("wfh_desk_mode", date(2026, 4, 27), 8)
    rng = h.rng
    for day in h.days:
        wd = day.weekday()
        if wd < 5 and rng.random() < 0.8:               # home-office days
            start = h.at(day, rng.uniform(hm("08:15"), hm("10:00")))
            end = h.at(day, rng.uniform(hm("16:30"), hm("18:45")))
            first, second = rng.sample(["office-plug", "office-fan"], 2)
            gap_on = timedelta(seconds=rng.uniform(5, 50))
            gap_off = timedelta(seconds=rng.uniform(5, 60))
            h.switch(first, start, end)
            h.switch(second, start + gap_on, end + gap_off)
        elif wd >= 5 and rng.random() < 0.25:            # weekend gaming: the plug alone
            on = h.at(day, rng.uniform(hm("19:30"), hm("22:30")))
            h.switch("office-plug", on, on + timedelta(minutes=rng.uniform(40, 150)))
        if rng.random() < 0.6:
            on = h.at(day, rng.uniform(hm("06:45"), hm("09:00")))
            h.switch("kitchen-light", on, on + timedelta(minutes=rng.uniform(5, 35)))
        evening_background(h, day, floor_lamp=0.55, lamp_from="19:30", lamp_to="21:30")
        if rng.random() < 0.2:
            device = rng.choice(["garage-light", "bedroom-ceiling-light", "hall-light"])
            on = h.at(day, rng.uniform(hm("07:00"), hm("22:00")))
            h.switch(device, on, on + timedelta(minutes=rng.uniform(3, 90)))
    expected = {
        "now": "2026-06-22T09:00:00+01:00",
        "must_find": [
            {"kind": "mode", "devices": ["office-fan", "office-plug"], "action": "on", "max_matches": 1},
        ],
        "must_not_find": [
            {"kind": "mode", "devices": ["office-plug", "living-floor-lamp"], "reason": "rare"},
        ],
        "notes": (
            "Working from home most weekdays (May-June 2026): the desk plug (monitor) and the desk "
            "fan go on together, within a minute, in either order, at any time between 08:15 and "
            "10:00, and off together between 16:30 and 18:45. Devices habitually switched together: "
            "a mode {office-plug: ON, office-fan: ON} ('devices' is a set). A two-device sequence "
            "is not the point (the order is random) and the time of day is too spread to be a "
            "routine by itself: either is neither required nor forbidden. Some weekend evenings "
            "the plug alone (gaming) for 40-150 min: background, and the plug's on-times vary far "
            "too much for a max_on (the working day, 7-10 hours, is not a timer: left open)."
        ),
    }
    return h, expected


SCENARIOS = [commuter_kitchen_light, summer_garden_pump, hall_then_kitchen_sequence, night_owl_midnight,
             dst_spring_forward, pure_noise, too_little_evidence, confirm_bathroom_heater, wfh_desk_mode]


# ------------------------------------------------------------------------------------------------
# The oracle: does the generated history really carry (or really not carry) each expectation?

def day_set(days):
    if days is None or days == "every day":
        return set(range(7))
    if days == "weekdays":
        return set(range(5))
    if days == "weekends":
        return {5, 6}
    return {WEEKDAY_NAMES.index(d) for d in days}


def circ(delta):
    return (delta + 720) % 1440 - 720


def subject_matches(entry, rec):
    if "device" in entry and "devices" not in entry:
        if rec.get("device") != entry["device"]:
            return False
        return "action" not in entry or rec.get("action") == entry["action"]
    if "mode" in entry:
        return rec.get("mode") == entry["mode"]
    if "routine" in entry:
        return rec.get("routine") == entry["routine"]
    return False


def time_stats(h, entry, absences=()):
    centre, tol = hm(entry["around"]), entry.get("tolerance_minutes", 30)
    wanted = day_set(entry.get("days"))
    hits = {}
    for t, rec in h.local_events():
        if not subject_matches(entry, rec):
            continue
        d = circ(t.hour * 60 + t.minute + t.second / 60 - centre)
        if abs(d) > tol:
            continue
        habit_day = (t - timedelta(minutes=d)).date()
        if habit_day.weekday() in wanted:
            hits.setdefault(habit_day, d)
    active = [d for d in h.days if d.weekday() in wanted]
    quiet = [d for d in active
             if any(date.fromisoformat(a["from"]) <= d <= date.fromisoformat(a["to"]) for a in absences)]
    weeks = {(d - h.start).days // 7 for d in hits if d <= h.days[-1]}
    n = len(hits)
    span = (max(hits) - min(hits)).days if hits else 0
    offsets = sorted(hits.values())
    return {
        "occurrences": n, "matching_days": len(active), "share": n / max(1, len(active)),
        "share_outside_absences": len([d for d in hits if d not in quiet]) / max(1, len(active) - len(quiet)),
        "weeks": len(weeks), "span_days": span,
        "last_two_weeks": bool(weeks & {len(h.days) // 7 - 1}) and bool(weeks & {len(h.days) // 7 - 2}),
        "median": (centre + statistics.median(offsets)) % 1440 if offsets else None,
    }


def durations(h, device):
    out, on_at = [], None
    for t, rec in h.local_events():
        if rec.get("device") != device:
            continue
        if rec["action"] in ("on", "open"):
            on_at = t
        elif on_at is not None:
            out.append((t - on_at).total_seconds() / 60)
            on_at = None
    return out


def sequence_days(h, a, b, within):
    evs = [(t, rec) for t, rec in h.local_events() if rec.get("action") in ("on", "open")]
    days = set()
    for i, (t, rec) in enumerate(evs):
        if rec.get("device") != a:
            continue
        for t2, rec2 in evs[i + 1:]:
            if (t2 - t).total_seconds() > within * 60:
                break
            if rec2.get("device") == b:
                days.add(t.date())
                break
    return days


def together_days(h, devices, within=2):
    evs = [(t, rec["device"]) for t, rec in h.local_events() if rec.get("action") == "on" and "device" in rec]
    days = set()
    for i, (t, dev) in enumerate(evs):
        if dev not in devices:
            continue
        seen = {dev}
        for t2, dev2 in evs[i + 1:]:
            if (t2 - t).total_seconds() > within * 60:
                break
            seen.add(dev2)
        if set(devices) <= seen:
            days.add(t.date())
    return days


def fmt(minutes):
    return "--:--" if minutes is None else f"{int(minutes) // 60:02d}:{int(minutes) % 60:02d}"


def check(h, expected):
    """Returns (report lines, problems)."""
    lines, problems = [], []
    ndays = len(h.days)
    for must, entries in (("find", expected["must_find"]), ("not", expected["must_not_find"])):
        for e in entries:
            kinds = e.get("kind")
            kinds = [kinds] if isinstance(kinds, str) else (kinds or [])
            label = f"  {must:4} {json.dumps({k: v for k, v in e.items() if k not in ('max_matches', 'needs_confirmation')})}"
            if "max_on" in kinds and "duration_minutes" not in e:
                ds = durations(h, e["device"])
                iqr = statistics.quantiles(ds, n=4) if len(ds) >= 4 else [0, 0, 0]
                ok = len(ds) < 7 or iqr[2] > 1.5 * max(1, iqr[0]) + 10
                lines.append(f"{label}\n         durations n={len(ds)} quartiles {iqr[0]:.0f}/{iqr[1]:.0f}/{iqr[2]:.0f} min")
                if must == "not" and not ok:
                    problems.append(f"{h.name}: durations of {e['device']} look regular")
            elif "max_on" in kinds:
                ds = durations(h, e["device"])
                near = [d for d in ds if abs(d - e["duration_minutes"]) <= e["duration_tolerance_minutes"]]
                share = len(near) / max(1, len(ds))
                lines.append(f"{label}\n         durations n={len(ds)}, {len(near)} within tolerance ({share:.0%}), median {statistics.median(ds):.0f} min")
                if must == "find" and (len(near) < 7 or share < 0.75):
                    problems.append(f"{h.name}: max_on {e['device']} not regular enough")
                if must == "not" and len(near) >= 7 and share >= 0.5:
                    problems.append(f"{h.name}: max_on {e['device']} {e['duration_minutes']} is real")
            elif "sequence" in kinds:
                a, b = e["devices"]
                within = e.get("within_minutes", 5)
                days = sequence_days(h, a, b, within)
                lines.append(f"{label}\n         on {len(days)} of {ndays} days")
                if must == "find" and (len(days) < 7 or len(days) < 0.5 * ndays):
                    problems.append(f"{h.name}: sequence {a}->{b} too rare")
                if must == "not" and len(days) >= 7 and len(days) >= 0.3 * ndays:
                    problems.append(f"{h.name}: sequence {a}->{b} is real")
            elif "mode" in kinds and "devices" in e:
                days = together_days(h, e["devices"])
                lines.append(f"{label}\n         together on {len(days)} of {ndays} days")
                if must == "find" and (len(days) < 7 or len(days) < 0.5 * ndays * 5 / 7):
                    problems.append(f"{h.name}: {e['devices']} not together often enough")
                if must == "not" and len(days) >= 7:
                    problems.append(f"{h.name}: {e['devices']} are together")
            elif "around" in e:
                s = time_stats(h, e, expected.get("absences", ()))
                lines.append(
                    f"{label}\n         {s['occurrences']} of {s['matching_days']} days ({s['share']:.0%}; "
                    f"{s['share_outside_absences']:.0%} outside absences), in {s['weeks']} of "
                    f"{ndays // 7} weeks, span {s['span_days']} days, median {fmt(s['median'])}")
                if must == "find":
                    if (s["occurrences"] < 7 or s["span_days"] < 14 or s["share_outside_absences"] < 0.7
                            or s["weeks"] < 0.75 * ndays // 7 or not s["last_two_weeks"]):
                        problems.append(f"{h.name}: must_find {e} is not a clear habit")
                elif e.get("reason") == "wrong_days":
                    # the habit is real on the `instead` days: the other days of this set must lack it
                    extra = sorted(day_set(e["days"]) - day_set(e["instead"]))
                    other = time_stats(h, {**e, "days": [WEEKDAY_NAMES[i] for i in extra]})
                    lines.append(f"         on the other days ({', '.join(WEEKDAY_NAMES[i] for i in extra)}): "
                                 f"{other['occurrences']} of {other['matching_days']} days")
                    if other["share"] >= 0.2:
                        problems.append(f"{h.name}: must_not_find {e}: the other days have it too")
                elif s["occurrences"] >= 7 and s["span_days"] >= 14 and s["share"] >= 0.35:
                    problems.append(f"{h.name}: must_not_find {e} looks like a habit")
            else:
                n = sum(1 for _, rec in h.local_events() if subject_matches(e, rec))
                lines.append(f"{label}\n         {n} events")
    return lines, problems


def noise_scan(h):
    """For the pure-noise history: the strongest 30-minute cluster of at least 7 occurrences of any
    device/action, mode or routine on any weekday set. Must stay far below 'most of the days'."""
    sets = {"every day": set(range(7)), "weekdays": set(range(5)), "weekends": {5, 6}}
    sets.update({n: {i} for i, n in enumerate(WEEKDAY_NAMES)})
    best = (0, None)
    subjects = defaultdict(list)
    for t, rec in h.local_events():
        key = rec.get("device", "") + ":" + rec.get("action", "") if "device" in rec else \
            ("mode:" + rec["mode"] if "mode" in rec else "routine:" + rec["routine"])
        subjects[key].append(t)
    for key, times in subjects.items():
        for centre in range(0, 1440, 10):
            for sname, ds in sets.items():
                hit = {t.date() for t in times
                       if t.weekday() in ds and abs(circ(t.hour * 60 + t.minute - centre)) <= 15}
                total = sum(1 for d in h.days if d.weekday() in ds)
                share = len(hit) / total
                if len(hit) >= 7 and share > best[0]:
                    best = (share, f"{key} {sname} {fmt(centre)}: {len(hit)} of {total} days")
    return best


def main():
    check_only = "--check" in sys.argv[1:]
    all_problems, differences = [], []
    for make in SCENARIOS:
        h, expected = make()
        lines = h.lines()
        assert len(lines) < 3000, (h.name, len(lines))
        for ln in lines:
            rec = json.loads(ln)
            assert "device" not in rec or rec["device"] in DEVICES or rec["device"] == "porch-light", rec
        report, problems = check(h, expected)
        if h.name == "pure_noise":
            share, what = noise_scan(h)
            report.append(f"  strongest chance cluster: {what} ({share:.0%})")
            if share >= 0.35:
                problems.append(f"pure_noise: chance cluster {what}")
        all_problems += problems
        first, last = lines[0], lines[-1]
        print(f"{h.name}: {len(lines)} events, {json.loads(first)['time']} .. {json.loads(last)['time']}, now {expected['now']}")
        print("\n".join(report))
        body = "\n".join(lines) + "\n"
        exp = json.dumps(expected, indent=2) + "\n"
        for path, text in ((OUT / f"{h.name}.jsonl", body), (OUT / f"{h.name}.expected.json", exp)):
            if check_only:
                if not path.exists() or path.read_text() != text:
                    differences.append(path.name)
            else:
                path.write_text(text)
    if all_problems:
        print("\nPROBLEMS:\n  " + "\n  ".join(all_problems))
    if differences:
        print("\nDIFFERENT FROM THE FILES: " + ", ".join(differences))
    sys.exit(1 if all_problems or differences else 0)


if __name__ == "__main__":
    main()
