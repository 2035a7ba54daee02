#!/usr/bin/env python3
"""Reference side of the grammar differential test.

Loads a home-assistant-intents language file (e.g. data/en.json) with hassil,
adds the house's slot lists from LISTS_JSON, samples sentences per template
group with hassil's own sampler (deterministic for a given --seed), recognizes
each sentence the way Home Assistant's default agent does (strict pass:
hassil.recognize_best with best_metadata_key="hass_custom_sentence" and
best_slot_name="name", plus the speaker's area as intent_context), and writes
one JSON line per sentence:
  {"text", "intent" (or null), "slots" {name: str}, "template_intent"}
A summary (counts, skipped wildcard templates, misses) goes to stderr.

Sampling: each "template group" (one `data` block of an intent: templates that
share slots/requires_context) gets up to --per-intent distinct sentences, drawn
round-robin over its templates.  One draw = hassil.sample.sample_sentence on a
copy of the template whose alternatives, optionals, permutations and list
values were shuffled with a seeded RNG, taking its first sentence (i.e. a
random walk through the template).  {name} values are restricted to those the
block's requires_context admits (the same filter hassil's matcher applies);
range lists give one random number (in digits) per draw.  Templates using
wildcard lists are skipped.

Usage: hassil_reference.py GRAMMAR_JSON LISTS_JSON OUT_JSONL
         [--per-intent N] [--seed S] [--intents A,B] [--max-sentences M]
         [--jobs J]
"""

import argparse
import json
import logging
import multiprocessing
import os
import random
import sys
import time
from collections import Counter

from hassil import Intents
from hassil.errors import MissingListError
from hassil.expression import (Alternative, Group, Permutation, RuleReference,
                               Sentence, TextChunk)
from hassil.intents import (RangeSlotList, TextSlotList, TextSlotValue,
                            WildcardSlotList)
from hassil.recognize import recognize_best
from hassil.sample import sample_sentence
from hassil.util import check_required_context, normalize_text

logging.getLogger("hassil.sample").setLevel(logging.ERROR)  # "No values for list"


def load_lists(path):
    """LISTS_JSON -> ({list_name: TextSlotList}, intent_context)."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    lists = {}
    for name, values in data.get("lists", {}).items():
        # Like HA: names are literal text, never templates.
        lists[name] = TextSlotList(name=name, values=[
            TextSlotValue(text_in=TextChunk(normalize_text(v["in"])),
                          value_out=v.get("out", v["in"]),
                          context=v.get("context")) for v in values])
    return lists, data.get("context") or {}


def shuffled(expr, rules, rng):
    """Copy of expr with rules inlined and every choice put in random order."""
    if isinstance(expr, RuleReference):
        return shuffled(rules[expr.rule_name].expression, rules, rng)
    if isinstance(expr, Group):
        items = [shuffled(item, rules, rng) for item in expr.items]
        if isinstance(expr, (Alternative, Permutation)):
            rng.shuffle(items)
        copy = type(expr)(items=items)
        if isinstance(expr, Alternative):
            copy.is_optional = expr.is_optional
        return copy
    return expr


def draw_lists(lists, requires_context, rng):
    """Slot lists for one draw: filtered by requires_context, shuffled."""
    out = {}
    for name, slot_list in lists.items():
        if isinstance(slot_list, RangeSlotList):
            n = rng.choice(list(slot_list.get_numbers()))  # as digits
            out[name] = TextSlotList.from_strings(
                [f"{n:g}" if isinstance(n, float) else str(n)], name=name)
        elif isinstance(slot_list, TextSlotList):
            values = [v for v in slot_list.values
                      if not requires_context
                      or check_required_context(requires_context, v.context,
                                                allow_missing_keys=True)]
            values = [TextSlotValue(shuffled(v.text_in, {}, rng), v.value_out,
                                    v.context) for v in values]
            rng.shuffle(values)
            out[name] = TextSlotList(name=name, values=values)
        else:
            out[name] = slot_list
    return out


def first_sentence(sentence, lists, rules, rng):
    """One random sentence from a template via hassil's sampler, or None."""
    expr = shuffled(sentence.expression, rules, rng)
    for text in sample_sentence(Sentence(expr), lists, rules):
        return " ".join(text.split())
    return None  # an empty list on the path (e.g. no {name} of this domain)


def slot_str(value):
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)


_WORKER = {}


def _init_worker(grammar_path, lists_path):
    with open(grammar_path, encoding="utf-8") as f:
        _WORKER["intents"] = Intents.from_dict(json.load(f))
    _WORKER["lists"], _WORKER["context"] = load_lists(lists_path)


def _recognize(text):
    """HA default agent, strict pass -> (intent or None, {slot: str})."""
    intents = _WORKER["intents"]
    result = recognize_best(
        text, intents, slot_lists=_WORKER["lists"],
        intent_context=_WORKER["context"], language=intents.language,
        best_metadata_key="hass_custom_sentence", best_slot_name="name")
    if result is None:
        return None, {}
    return result.intent.name, {k: slot_str(e.value)
                                for k, e in result.entities.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("grammar"), ap.add_argument("lists"), ap.add_argument("out")
    ap.add_argument("--per-intent", type=int, default=20,
                    help="distinct sentences per template group (data block)")
    ap.add_argument("--seed", default="0")
    ap.add_argument("--intents", help="comma-separated intent names")
    ap.add_argument("--max-sentences", type=int, help="stop after M sentences")
    ap.add_argument("--jobs", type=int, help="recognizer processes (default: CPUs)")
    args = ap.parse_args()

    t0 = time.monotonic()
    with open(args.grammar, encoding="utf-8") as f:
        intents = Intents.from_dict(json.load(f))
    house_lists, intent_context = load_lists(args.lists)
    only = set(args.intents.split(",")) if args.intents else None

    samples, seen = [], set()
    skipped_wild, skipped_empty = Counter(), Counter()
    for intent_name, intent in intents.intents.items():
        if only and intent_name not in only:
            continue
        for block_idx, block in enumerate(intent.data):
            rules = {**intents.expansion_rules, **block.expansion_rules}
            lists = {**intents.slot_lists, **block.slot_lists, **house_lists}
            templates = []
            for sentence in block.sentences:
                names = set(sentence.list_names(rules))
                if any(isinstance(lists.get(n), WildcardSlotList) for n in names):
                    skipped_wild[intent_name] += 1
                else:
                    templates.append(sentence)
            # The seed string is hashed with SHA-512: same draws everywhere.
            rng = random.Random(f"{args.seed}:{intent_name}:{block_idx}")
            got, tries = 0, 0
            alive = list(templates)
            while alive and got < args.per_intent and tries < 5 * args.per_intent:
                sentence = alive[tries % len(alive)]
                tries += 1
                try:
                    text = first_sentence(sentence, draw_lists(
                        lists, block.requires_context, rng), rules, rng)
                except MissingListError:
                    text = None
                if text is None:  # no value can fill a list: drop template
                    alive = [s for s in alive if s is not sentence]
                    skipped_empty[intent_name] += 1
                    continue
                if text not in seen:
                    seen.add(text)
                    samples.append((intent_name, text))
                    got += 1
    if args.max_sentences:
        samples = samples[: args.max_sentences]
    t_sample = time.monotonic() - t0

    misses, wrong = [], []
    jobs = args.jobs or os.cpu_count() or 1
    with multiprocessing.Pool(jobs, _init_worker, (args.grammar, args.lists)) \
            as pool, open(args.out, "w", encoding="utf-8") as out:
        texts = [text for _, text in samples]
        results = pool.imap(_recognize, texts, chunksize=16)
        for (template_intent, text), (intent, slots) in zip(samples, results):
            if intent is None:
                misses.append(text)
            elif intent != template_intent:
                wrong.append(f"{text!r}: {template_intent} -> {intent}")
            out.write(json.dumps({"text": text, "intent": intent,
                                  "slots": slots,
                                  "template_intent": template_intent},
                                 ensure_ascii=False) + "\n")

    log = lambda *a: print(*a, file=sys.stderr)
    log(f"{intents.language}: {len(samples)} sentences from "
        f"{len({i for i, _ in samples})} intents; sampling {t_sample:.1f}s, "
        f"total {time.monotonic() - t0:.1f}s")
    log(f"skipped wildcard templates: {sum(skipped_wild.values())} "
        f"{dict(skipped_wild)}")
    log(f"templates with no fitting list value: {sum(skipped_empty.values())} "
        f"{dict(skipped_empty)}")
    log(f"not recognized: {len(misses)}; other intent: {len(wrong)}")
    for line in [repr(m) for m in misses[:10]] + wrong[:10]:
        log("  " + line)


if __name__ == "__main__":
    main()
