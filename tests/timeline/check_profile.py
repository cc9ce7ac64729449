#!/usr/bin/env python3
"""check_profile.py PROFILE.json [PROGRAM.c]: validate a LIBOMPTARGET_PROFILE
file against the Chrome Trace Event Format, then check the "profile:" lines
of PROGRAM.c against its events. Prints what is wrong; exit 1 when anything.

Format rules checked (the parts of the Trace Event Format the file uses):
  - the file is a JSON array of objects (the format's "JSON Array Format");
  - every event has ph, ts, pid, tid, name (ts a number, pid/tid integers);
  - ph is one of X (complete; needs a "dur" >= 0), i (instant; "s" is g, p
    or t when present), B/E (begin/end: per
    (pid, tid) every E closes the latest open B, none stays open), M
    (metadata: process_name, process_sort_index, thread_name,
    thread_sort_index, with their args);
  - every (pid, tid) with a timed event is named by a thread_name event and
    its pid by a process_name event;
  - args, when present, is an object.

Program expectations, one per comment line "// profile: KIND ...":
  copy DIRECTION BYTES [VAR]   a copy event with these args (VAR: a prefix
                               of the copied expression)
  copies N                     exactly N copy events
  kernel NAME                  a kernel event whose name contains NAME
  construct TEXT               a construct event whose name contains TEXT
  overlap CAT N                N events of category CAT (on different
                               tracks) all running at one moment
  track TEXT                   a thread_name containing TEXT
  refcount VAR BEFORE AFTER    a reference count change of VAR
"""
import json
import sys

KNOWN_META = {"process_name": "name", "process_sort_index": "sort_index",
              "thread_name": "name", "thread_sort_index": "sort_index"}


def validate(events):
    errors = []
    if not isinstance(events, list):
        return ["the file is not a JSON array of events"]
    open_b = {}
    named_threads, named_procs, used = set(), set(), set()
    for i, e in enumerate(events):
        where = "event %d" % i
        if not isinstance(e, dict):
            errors.append("%s: not an object" % where)
            continue
        for field in ("ph", "ts", "pid", "tid", "name"):
            if field not in e:
                errors.append("%s: no %r: %s" % (where, field, json.dumps(e)[:120]))
        if not all(f in e for f in ("ph", "ts", "pid", "tid", "name")):
            continue
        if not isinstance(e["ts"], (int, float)) or isinstance(e["ts"], bool):
            errors.append("%s: ts is not a number" % where)
        if not isinstance(e["pid"], int) or not isinstance(e["tid"], int):
            errors.append("%s: pid and tid must be integers" % where)
        if "args" in e and not isinstance(e["args"], dict):
            errors.append("%s: args is not an object" % where)
        track = (e["pid"], e["tid"])
        ph = e["ph"]
        if ph == "X":
            d = e.get("dur")
            if not isinstance(d, (int, float)) or d < 0:
                errors.append("%s: X event %r without a duration >= 0" % (where, e["name"]))
            used.add(track)
        elif ph == "i":
            if e.get("s", "t") not in ("g", "p", "t"):
                errors.append("%s: instant event with scope %r" % (where, e.get("s")))
            used.add(track)
        elif ph == "B":
            open_b.setdefault(track, []).append((e["name"], e["ts"]))
            used.add(track)
        elif ph == "E":
            stack = open_b.get(track, [])
            if not stack:
                errors.append("%s: E event on %s without an open B" % (where, track))
            else:
                name, ts = stack.pop()
                if e["ts"] < ts:
                    errors.append("%s: E of %r before its B" % (where, name))
        elif ph == "M":
            key = KNOWN_META.get(e["name"])
            if key is None:
                errors.append("%s: unknown metadata event %r" % (where, e["name"]))
            elif key not in e.get("args", {}):
                errors.append("%s: %s without args.%s" % (where, e["name"], key))
            elif e["name"] == "thread_name":
                named_threads.add(track)
            elif e["name"] == "process_name":
                named_procs.add(e["pid"])
        else:
            errors.append("%s: phase %r is not one this profile writes" % (where, ph))
    for track, stack in open_b.items():
        for name, _ in stack:
            errors.append("B event %r on %s never ends" % (name, track))
    for track in sorted(used):
        if track not in named_threads:
            errors.append("track %s has events but no thread_name" % (track,))
        if track[0] not in named_procs:
            errors.append("pid %s has events but no process_name" % track[0])
    return errors


def expectations(program):
    out = []
    for line in open(program):
        s = line.strip()
        if s.startswith("// profile:"):
            out.append(s[len("// profile:"):].split())
    return out


def check(events, exp):
    timed = [e for e in events if isinstance(e, dict) and e.get("ph") == "X"]
    cat = lambda c: [e for e in timed if e.get("cat") == c]
    errors = []
    for words in exp:
        kind, rest = words[0], words[1:]
        if kind == "copy":
            direction, nbytes = rest[0], int(rest[1])
            var = rest[2] if len(rest) > 2 else None
            found = [e for e in cat("copy")
                     if e["args"].get("direction") == direction and e["args"].get("bytes") == nbytes
                     and (var is None or e["args"].get("var", "").startswith(var))]
            if not found:
                errors.append("no copy %s of %d bytes%s; copies: %s" % (
                    direction, nbytes, " of " + var if var else "",
                    [(e["args"].get("direction"), e["args"].get("bytes"), e["args"].get("var")) for e in cat("copy")]))
        elif kind == "copies":
            if len(cat("copy")) != int(rest[0]):
                errors.append("%d copy events, expected %s: %s" % (
                    len(cat("copy")), rest[0], [e["name"] for e in cat("copy")]))
        elif kind in ("kernel", "construct"):
            text = " ".join(rest)
            if not any(text in e["name"] for e in cat(kind)):
                errors.append("no %s event naming %r: %s" % (kind, text, [e["name"] for e in cat(kind)]))
        elif kind == "track":
            text = " ".join(rest)
            if not any(e.get("ph") == "M" and e.get("name") == "thread_name"
                       and text in e["args"]["name"] for e in events):
                errors.append("no track named %r" % text)
        elif kind == "refcount":
            var, before, after = rest[0], int(rest[1]), int(rest[2])
            counts = [e for e in events if isinstance(e, dict) and e.get("ph") == "i"
                      and e.get("cat") == "refcount"]
            if not any(e["args"].get("var") == var and e["args"].get("before") == before
                       and e["args"].get("after") == after for e in counts):
                errors.append("no reference count change of %s from %d to %d: %s" % (
                    var, before, after, [e["name"] for e in counts]))
        elif kind == "overlap":
            c, n = rest[0], int(rest[1])
            evs = cat(c)
            best = 0
            for e in evs:  # how many run at e's start, on distinct tracks
                t = e["ts"]
                tracks = {(o["pid"], o["tid"]) for o in evs if o["ts"] <= t < o["ts"] + o["dur"]}
                best = max(best, len(tracks))
            if best < n:
                errors.append("at most %d %s events overlap, expected %d" % (best, c, n))
        else:
            errors.append("unknown expectation %r" % " ".join(words))
    return errors


def main():
    try:
        with open(sys.argv[1]) as f:
            events = json.load(f)
    except (OSError, ValueError) as e:
        print("not valid JSON: %s" % e)
        return 1
    errors = validate(events)
    if not errors and len(sys.argv) > 2:
        errors = check(events, expectations(sys.argv[2]))
    for e in errors[:10]:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
