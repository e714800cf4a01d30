#!/usr/bin/env python3
"""What scripts/longrun.sh reads of a long run's state, in one place.

  longrun-state.py clock HOME                  the newest checkpoint and the run clock
  longrun-state.py seconds HOME                the run clock of the newest checkpoint, in seconds
  longrun-state.py pack HOME MINUTES WINDOW    the files `pack` keeps, one a line, relative to
                                               HOME: everything but the games, the checkpoints
                                               between MINUTES marks, the optimizer state of all
                                               but the newest and the shards older than the
                                               newest WINDOW samples
  longrun-state.py pace HOME [MINUTES]         from the run's log.txt: generations done at each
                                               MINUTES mark of run clock (10 unless given), a
                                               minute's generations in each hour, and where the
                                               clock went (self-play, training, i/o, evaluation)
"""

import json
import pathlib
import re
import sys


def runs(out):
    """The run directories of bench learning's --out (those with checkpoints)."""
    if not out.is_dir():
        return []
    return [p for p in out.iterdir() if (p / "checkpoints").is_dir()]


def checkpoints(run):
    """Generation -> run clock in seconds (time.json's `trained_at`) of a run's checkpoints."""
    times = {}
    for t in (run / "checkpoints").glob("*/time.json"):
        # only numbered directories: a save cut short leaves others beside them
        if t.parent.name.isdigit():
            times[int(t.parent.name)] = json.loads(t.read_text())["trained_at"]
    return times


def newest(home):
    """(generation, run clock in seconds) of the newest checkpoint under HOME/out."""
    best = (0, 0.0)
    for run in runs(home / "out"):
        for generation, seconds in checkpoints(run).items():
            best = max(best, (generation, seconds))
    return best


def clock(home):
    generation, seconds = newest(home)
    print(f"generation {generation}, {seconds / 60:.1f} minutes of run clock")


def kept_generations(times, every):
    """Generation 0, the newest and the last one at or before each `every`-second mark."""
    gens = sorted(times)
    if not gens:
        return {0}, None
    newest = gens[-1]
    chosen = {0, newest}
    mark = every
    while mark < times[newest] + every:
        before = [g for g in gens if times[g] <= mark]
        if before:
            chosen.add(before[-1])
        mark += every
    return chosen, newest


def recent_shards(run, window):
    """Stems of the newest generations' shards until `window` samples are covered."""
    recent, total = set(), 0
    for done in sorted((run / "shards").glob("gen*.done"), reverse=True):
        if total >= window:
            break
        recent.add(done.stem)
        total += json.loads(done.read_text()).get("samples", 0)
    return recent


def pack(home, every, window):
    out = home / "out"
    inside = runs(out)
    keep = []
    for run in inside:
        chosen, newest = kept_generations(checkpoints(run), every)
        recent = recent_shards(run, window)
        for path in sorted(run.rglob("*")):
            if not path.is_file() or path.name == ".learner.lock":
                continue
            rel = path.relative_to(run)
            if rel.parts[0] == "games":
                continue
            if rel.parts[0] == "checkpoints" and len(rel.parts) > 2 and rel.parts[1].isdigit():
                generation = int(rel.parts[1])
                if generation not in chosen:
                    continue
                # only the newest checkpoint resumes training; the others are kept to be rated
                if generation != newest and path.name == "optimizer.bpk":
                    continue
            if rel.parts[0] == "shards" and path.suffix != ".done":
                if not any(path.name.startswith(r) for r in recent):
                    continue
            keep.append(path)
    if out.is_dir():
        for path in sorted(out.rglob("*")):
            if path.is_file() and not any(path.is_relative_to(r) for r in inside):
                keep.append(path)
    for path in keep:
        print(path.relative_to(home))


GENERATION = re.compile(r"^generation (\d+):")
TIMES = re.compile(
    r"time: self-play ([\d.]+)s, training ([\d.]+)s, i/o ([\d.]+)s, evaluation ([\d.]+)s; "
    r"run clock ([\d.]+)( min|s)"
)
PARTS = ("self-play", "training", "i/o", "evaluation")


def logged_generations(log):
    """Generation -> (run clock in minutes, seconds of each of PARTS) from a run's log.txt."""
    generations, current = {}, None
    for line in log.read_text().splitlines():
        if m := GENERATION.match(line):
            current = int(m.group(1))
        elif (m := TIMES.search(line)) and current is not None:
            seconds = tuple(float(v) for v in m.groups()[:4])
            # the clock is written in seconds below a minute
            minutes = float(m.group(5)) / (60 if m.group(6) == "s" else 1)
            generations[current] = (minutes, seconds)
    return generations


def pace(home, every):
    for run in runs(home / "out"):
        generations = logged_generations(run / "log.txt")
        if not generations:
            print(f"{run.name}: no generation logged")
            continue
        clock = sorted((minutes, g) for g, (minutes, _) in generations.items())
        last = clock[-1][0]
        marks, mark = [], every
        while mark <= last:
            marks.append((mark, max((g for minutes, g in clock if minutes <= mark), default=0)))
            mark += every
        print(f"{run.name}: {len(generations)} generations logged, run clock {last:.1f} min")
        print("  generations at each " + f"{every:g} minutes: " + ", ".join(f"{g} ({m:g})" for m, g in marks))
        hour = 0
        while hour * 60 < last:
            inside = [g for minutes, g in clock if hour * 60 < minutes <= (hour + 1) * 60]
            span = min(last, (hour + 1) * 60) - hour * 60
            print(f"  hour {hour + 1}: {len(inside)} generations, {len(inside) / span:.1f} a minute")
            hour += 1
        totals = [sum(parts[i] for _, parts in generations.values()) for i in range(len(PARTS))]
        whole = sum(totals)
        split = ", ".join(f"{name} {t:,.0f} s ({100 * t / whole:.0f}%)" for name, t in zip(PARTS, totals))
        print(f"  where the clock went: {split}")


def main():
    command, home = sys.argv[1], pathlib.Path(sys.argv[2])
    if command == "clock":
        clock(home)
    elif command == "seconds":
        print(newest(home)[1])
    elif command == "pack":
        pack(home, float(sys.argv[3]) * 60, int(sys.argv[4]))
    elif command == "pace":
        pace(home, float(sys.argv[3]) if len(sys.argv) > 3 else 10.0)
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main()
