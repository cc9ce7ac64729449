#!/usr/bin/env python3
"""compare_timelines.py [--trace] PROFILE.json OMPT.json: the LIBOMPTARGET_PROFILE
timeline of a run and the timeline tools/simtarget-ompt-timeline wrote from
the OMPT events of the same run hold the same events.

Compared (not their times, which differ by the few instructions between a
callback and the profile's write): per host thread, its constructs in order
(construct kind, nowait, device); per device and host thread, its
allocations (bytes), frees, copies (direction, bytes) and kernels in order.
Events of other categories (the profile's device start, waits, reference
counts, nowait lanes; the tool's associates) are not compared. --trace: the
OMPT timeline was drawn from device-tracing records, where a queued
(nowait) kernel's record comes when its queue completed, after those of the
copies queued behind it: per device and host thread the kernels are then
compared in order on their own, apart from the allocations, frees and
copies (in order too). Prints the
first differences; exit 1 when there is one, 2 when a file is unreadable.
"""
import json
import sys


def load(path):
    try:
        with open(path) as f:
            events = json.load(f)
    except (OSError, ValueError) as e:
        sys.stderr.write("compare_timelines: %s: %s\n" % (path, e))
        sys.exit(2)
    if not isinstance(events, list):
        sys.stderr.write("compare_timelines: %s: not a JSON array\n" % path)
        sys.exit(2)
    return events


def item(ev, trace=False):
    """(sequence key, what is compared) of one event, or None."""
    cat, args = ev.get("cat"), ev.get("args", {})
    if ev.get("ph") != "X":
        return None
    if cat == "construct":
        return (("host thread", ev["tid"]),
                ("%s%s" % (args.get("construct"),
                           " nowait" if args.get("nowait") else ""),
                 args.get("device")))
    if cat not in ("alloc", "free", "copy", "kernel"):
        return None
    key = ("device %d" % (ev["pid"] - 2), args.get("host_tid"))
    if cat == "alloc":
        return key, ("alloc %s B" % args.get("bytes"), None)
    if cat == "copy":
        return key, ("%s %s B" % (args.get("direction"), args.get("bytes")),
                     None)
    return key + (("kernels",) if trace else ()), (cat, None)


def same(p, o):
    """A profile event and an OMPT one agree: the same text, and the same
    device for a construct (the profile's -1, the default device, is the
    device OMPT names: any)."""
    return p[0] == o[0] and (p[1] is None or p[1] < 0 or p[1] == o[1])


def show(e):
    if e is None:
        return "none"
    return e[0] if e[1] is None else "%s on device %s" % e


def sequences(events, trace):
    seqs = {}
    for ev in events:  # file order: the order of writes
        it = item(ev, trace) if isinstance(ev, dict) else None
        if it:
            seqs.setdefault(it[0], []).append(it[1])
    return seqs


def main():
    args = sys.argv[1:]
    trace = args[:1] == ["--trace"]
    args = args[1:] if trace else args
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 2
    prof, ompt = (sequences(load(p), trace) for p in args)
    if not prof:
        print("the profile holds no construct, copy or kernel")
        return 1
    bad = 0
    for key in sorted(set(prof) | set(ompt), key=str):
        a, b = prof.get(key, []), ompt.get(key, [])
        if len(a) == len(b) and all(same(p, o) for p, o in zip(a, b)):
            continue
        bad += 1
        where = "host thread tid %s" % key[1] if key[0] == "host thread" \
            else "%s (host tid %s)" % key[:2] + \
            (" kernels" if len(key) > 2 else "")
        i = next((i for i in range(min(len(a), len(b)))
                  if not same(a[i], b[i])),
                 min(len(a), len(b)))
        print("%s: %d events in the profile, %d in the OMPT timeline; "
              "event %d: profile %s, OMPT %s" %
              (where, len(a), len(b), i, show(a[i] if i < len(a) else None),
               show(b[i] if i < len(b) else None)))
    if bad:
        return 1
    n = sum(len(v) for v in prof.values())
    print("%d events on %d tracks agree" % (n, len(prof)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
