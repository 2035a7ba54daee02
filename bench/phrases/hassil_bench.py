"""hassil's half of the phrase benchmark.

Usage: hassil_bench.py INTENTS.json CORPUS.txt ANSWERS.jsonl [MIN_SECONDS] [LISTS.json]
With LISTS.json (the community grammar's mode: INTENTS.json is a home-assistant-intents language
file), the house's lists come from it and each sentence is read as Home Assistant's Assist reads it
(recognize_best, Tests/Grammar/hassil_reference.py). Prints hassil's rate (sentences per second) as the last line "rate N" and writes one JSON answer
per sentence: {"text", "intent" (or null), "slots"}.
"""
import json
import os
import sys
import time

from hassil import Intents, recognize
from hassil.recognize import recognize_best

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Tests", "Grammar"))


def main() -> None:
    intents_path, corpus_path, answers_path = sys.argv[1:4]
    min_seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 3.0
    with open(intents_path, encoding="utf-8") as f:
        intents = Intents.from_dict(json.load(f))
    read = recognize
    if len(sys.argv) > 5:
        from hassil_reference import load_lists  # the differential test's reading of the lists

        slot_lists, context = load_lists(sys.argv[5])

        def read(text, intents):  # Assist's strict pass
            return recognize_best(text, intents, slot_lists=slot_lists, intent_context=context,
                                  language=intents.language, best_metadata_key="hass_custom_sentence",
                                  best_slot_name="name")
    with open(corpus_path, encoding="utf-8") as f:
        sentences = [line.rstrip("\n") for line in f if line.strip()]

    with open(answers_path, "w", encoding="utf-8") as out:
        for text in sentences:
            result = read(text, intents)
            if result is None:
                out.write(json.dumps({"text": text, "intent": None, "slots": {}}) + "\n")
                continue
            slots = {name: str(entity.value) for name, entity in result.entities.items()}
            out.write(json.dumps({"text": text, "intent": result.intent.name, "slots": slots}) + "\n")

    # One sentence's time: each timed on its own over three passes, its fastest kept; the 99th
    # percentile of those, as housectl measures its own.
    fastest = [float("inf")] * len(sentences)
    for _ in range(3):
        for i, text in enumerate(sentences):
            t0 = time.perf_counter()
            read(text, intents)
            fastest[i] = min(fastest[i], time.perf_counter() - t0)
    ordered = sorted(fastest)
    p99 = ordered[min(len(ordered) - 1, -(-len(ordered) * 99 // 100) - 1)] if ordered else 0.0

    # Passes over the corpus for at least min_seconds; the fastest pass is the one least disturbed
    # by other load on the machine (both sides are measured the same way).
    done = 0
    best = float("inf")
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < min_seconds or done == 0:
        pass_start = time.perf_counter()
        for text in sentences:
            read(text, intents)
        best = min(best, time.perf_counter() - pass_start)
        done += len(sentences)
        elapsed = time.perf_counter() - start
    print(f"hassil: best pass {len(sentences) / best:.0f} sentences/s, mean {done / elapsed:.0f} ({len(sentences)} sentences, {done} matched in {elapsed:.2f} s)")
    print(f"rate {len(sentences) / best:.3f}")
    print(f"mean {done / elapsed:.3f}")
    print(f"p99 {p99 * 1e6:.3f}")


if __name__ == "__main__":
    main()
