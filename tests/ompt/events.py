#!/usr/bin/env python3
"""events.py - read what tests/ompt/record_tool.c recorded.

  events.py check FILE           structural checks (see README.md); exit 1
                                 with the broken rule on failure
  events.py trace-check FILE      with OMPT_RECORD_TRACE=1: every data
                                 operation and kernel that ended on a traced
                                 device has its trace record, with the same
                                 host_op_id and fields, timed, delivered
                                 before the device's finalize
  events.py kernel-time FILE MS   with OMPT_RECORD_TRACE=1, for a program
                                 whose kernels each take at least MS ms but
                                 those of its last target construct: every
                                 kernel record spans at least MS ms and lies
                                 within its target construct (a nowait one:
                                 from its begin to the last construct's)
  events.py constructs FILE       the constructs, each normalized on its own,
                                 sorted: for programs whose host threads
                                 interleave
  events.py normalize FILE [--llvm-diff]
                                 the events with run-dependent values named
                                 (addresses, ids, codeptr_ra, module ids);
                                 --llvm-diff also drops what differs from
                                 LLVM's runtime by design (README.md)
"""
import re
import sys

FIELD = re.compile(r'(\w+)=(\S+)')


def parse(path):
    events = []
    for line in open(path):
        words = line.split()
        if len(words) < 2:
            continue
        ev = {'thread': words[0], 'event': words[1], 'rest': words[2:]}
        ev['end'] = words[2] if len(words) > 2 and words[2] in (
            'begin', 'end') else None
        ev.update(dict(FIELD.findall(line)))
        events.append(ev)
    return events


def fail(msg):
    print('ompt check: ' + msg)
    sys.exit(1)


def check(events):
    """Begin/end pairs nest per thread with the same ids; data operations
    and kernels lie inside a target construct or are memory routines;
    devices are initialised before use and finalized once; a copy names
    the device of its construct."""
    stack = {}
    ready = set()
    finalized = set()
    for i, ev in enumerate(events):
        where = 'event %d (%s %s)' % (i + 1, ev['thread'], ev['event'])
        st = stack.setdefault(ev['thread'], [])
        e = ev['event']
        if e == 'device_initialize':
            ready.add(ev['dev'])
        elif e == 'device_finalize':
            if ev['dev'] not in ready or ev['dev'] in finalized:
                fail(where + ': device_finalize without device_initialize')
            finalized.add(ev['dev'])
        elif e in ('device_load', 'device_unload'):
            if ev['dev'] not in ready:
                fail(where + ': %s before device_initialize' % e)
        elif e in ('target_emi', 'data_op_emi', 'submit_emi'):
            key = (e, ev.get('target'), ev.get('host_op'), ev.get('kind'),
                   ev.get('op'))
            if e == 'target_emi' and ev['dev'] not in ready:
                fail(where + ': a construct on device %s before its '
                     'device_initialize' % ev['dev'])
            if e != 'target_emi' and st and st[-1][0][0] == 'target_emi' and \
                    ev.get('target') != st[-1][0][1]:
                fail(where + ': target data %s inside construct %s' %
                     (ev.get('target'), st[-1][0][1]))
            if e == 'submit_emi' and ev['end'] == 'begin' and \
                    not (st and st[-1][0][0] == 'target_emi'):
                fail(where + ': a kernel outside any target construct')
            if ev['end'] == 'begin':
                st.append((key, ev))
            else:
                if not st or st[-1][0] != key:
                    fail(where + ': end %s does not match the open %s' %
                         (key, st[-1][0] if st else 'nothing'))
                st.pop()
        elif e == 'tool_finalize':
            if i != len(events) - 1:
                fail(where + ': events after the tool was finalized')
        elif e == 'MISMATCH':
            fail(where + ': ' + ' '.join(ev['rest']))
    for t, st in stack.items():
        if st:
            fail('thread %s ends with %s open' % (t, st[-1][0]))
    if ready - finalized:
        fail('devices %s were never finalized' % sorted(ready - finalized))


class Names:
    def __init__(self, prefix):
        self.prefix, self.names = prefix, {}

    def __call__(self, value):
        if value not in self.names:
            self.names[value] = '%s%d' % (self.prefix, len(self.names) + 1)
        return self.names[value]


def host_of(events):
    """The host's device number: the source of an allocation or copy."""
    for ev in events:
        if ev['event'] in ('data_op_emi', 'data_op') and \
                ev.get('op') in ('alloc', 'to_device'):
            return ev['sdev']
    return None


def normalize(events, llvm_diff, host_num=None):
    host_num = host_num or host_of(events)
    hosts, ids, code = Names('H'), Names('#'), Names('C')
    allocs = {}  # device allocation base -> (end, name)
    pending = []  # non-EMI allocations: their address shows in a later op
    count = [0]

    def dev_addr(a):
        x = int(a, 16)
        for base, (end, name) in allocs.items():
            if base <= x < max(end, base + 1):
                return name if x == base else '%s+%d' % (name, x - base)
        if pending:
            allocs[x] = (x + pending[0][0], pending[0][1])
            return pending.pop(0)[1]
        return 'D?'

    def dev(d):
        return 'host' if d == host_num else d

    out = []
    for ev in events:
        e = ev['event']
        if llvm_diff and e.startswith('device_'):
            continue
        if e == 'tool_initialize':
            out.append('tool_initialize')
            continue
        f = [ev['thread'], e] + ([ev['end']] if ev['end'] else [])
        if 'kind' in ev:
            k = ev['kind']
            f.append('kind=' + (k.replace('_nowait', '') if llvm_diff else k))
        if 'op' in ev:
            op = ev['op']
            f.append('op=' + op)
            src_host = op in ('alloc', 'to_device', 'associate',
                              'disassociate')
            bytes_ = int(ev['bytes'])
            if op == 'alloc' and ev['end'] == 'end' and ev['dst'] != '(nil)':
                count[0] += 1
                allocs[int(ev['dst'], 16)] = (int(ev['dst'], 16) + bytes_,
                                              'D%d' % count[0])
            if op == 'alloc' and ev['end'] is None:
                count[0] += 1
                pending.append((bytes_, 'D%d' % count[0]))
            for side, is_host in (('src', src_host), ('dst', not src_host)):
                a = ev[side]
                name = '(nil)' if a == '(nil)' else hosts(a) if is_host \
                    else dev_addr(a)
                f.append('%s=%s@%s' % (side, name,
                                       dev(ev['sdev' if side == 'src'
                                                 else 'ddev'])))
            f.append('bytes=%d' % bytes_)
            if op == 'delete' and ev['end'] != 'begin':
                allocs.pop(int(ev['src'], 16), None)
        if 'dev' in ev and e != 'device_load':
            f.append('dev=' + ev['dev'])
        if e == 'device_load':
            f.append('dev=' + ev['dev'])
        for key in ('target', 'host_op'):
            if key in ev:
                f.append('%s=%s' % (key, ids(ev[key]) if ev[key] != '0'
                                    else '0'))
        if 'teams' in ev:
            f.append('teams=' + ev['teams'])
        if 'codeptr' in ev:
            f.append('codeptr=' + code(ev['codeptr']))
        out.append(' '.join(f))
    return out


def constructs(events, llvm_diff):
    """Each target construct's events as one block, named within it."""
    open_ = {}
    blocks = []
    for ev in events:
        t = ev['thread']
        if ev['event'] == 'target_emi' and ev['end'] == 'begin':
            open_[t] = []
        if t in open_:
            open_[t].append(ev)
        if ev['event'] == 'target_emi' and ev['end'] == 'end':
            block = [dict(e, thread='t') for e in open_.pop(t)]
            blocks.append(' | '.join(normalize(block, llvm_diff, host_of(
                events))))
    return sorted(blocks)


def trace_check(events):
    started, finalized = set(), set()
    want, got = {}, {}  # (dev, host_op) -> what the callbacks / records say
    last_dev = {}  # thread -> the device of its open construct
    for i, ev in enumerate(events):
        where = 'event %d (%s %s)' % (i + 1, ev['thread'], ev['event'])
        e = ev['event']
        if e == 'trace_start':
            if ev['set'] != '5' or ev['started'] != '1' or \
                    ev['time_translates'] != '1':
                fail(where + ': tracing did not start: ' + ' '.join(ev['rest']))
            started.add(ev['dev'])
        elif e == 'device_finalize':
            finalized.add(ev['dev'])
        elif e == 'target_emi' and ev['end'] == 'begin':
            last_dev[ev['thread']] = ev['dev']
        elif e == 'data_op_emi' and ev['end'] == 'end':
            dev = ev['sdev'] if ev['op'] in ('from_device', 'delete') \
                else ev['ddev']
            if dev in started:
                want[(dev, ev['host_op'])] = ('data_op', ev['op'], ev['src'],
                                              ev['dst'], ev['bytes'])
        elif e == 'submit_emi' and ev['end'] == 'end':
            dev = last_dev.get(ev['thread'])
            if dev in started:
                want[(dev, ev['host_op'])] = ('kernel', ev['teams'])
        elif e == 'trace_record':
            if ev['dev'] in finalized:
                fail(where + ': a record after its device was finalized')
            if ev.get('timed') != '1':
                fail(where + ': end_time before time')
            got[(ev['dev'], ev['host_op'])] = \
                ('data_op', ev['op'], ev['src'], ev['dst'], ev['bytes']) \
                if ev['type'] == 'data_op' else ('kernel', ev['teams'])
    if not started:
        fail('no device started tracing')
    for key in sorted(set(want) | set(got)):
        if want.get(key) != got.get(key):
            fail('device %s host_op %s: the callbacks said %s, the trace '
                 'record %s' % (key + (want.get(key), got.get(key))))
    print('ompt trace: %d records as the callbacks said' % len(got))


def kernel_time(events, min_ms):
    """The trace records' device times against the tool's own clock."""
    begins, ends, kinds, target_of = {}, {}, {}, {}
    last = None
    for ev in events:
        if ev['event'] == 'target_emi':
            t = ev['target']
            if ev['end'] == 'begin':
                begins[t], kinds[t], last = int(ev['mono']), ev['kind'], t
            else:
                ends[t] = int(ev['mono'])
        elif ev['event'] == 'submit_emi' and ev['end'] == 'begin':
            target_of[ev['host_op']] = ev['target']
    seen = {'target': 0, 'target_nowait': 0}
    for ev in events:
        if ev['event'] != 'trace_record' or ev['type'] != 'kernel':
            continue
        t = target_of.get(ev['host_op'])
        if t is None or t not in begins:
            fail('kernel record host_op %s: no target construct' %
                 ev['host_op'])
        if t == last:
            continue
        start, end = int(ev['time']), int(ev['end'])
        bound = ends.get(t, 0) if kinds[t] == 'target' else begins[last]
        what = 'kernel record host_op %s (%s, target %s)' % (
            ev['host_op'], kinds[t], t)
        if end - start < min_ms * 1000000:
            fail('%s: ran %.3f ms on the device, less than %d' %
                 (what, (end - start) / 1e6, min_ms))
        if start < begins[t] or end > bound:
            fail('%s: [%d, %d] outside the host\'s [%d, %d]' %
                 (what, start, end, begins[t], bound))
        seen[kinds[t]] = seen.get(kinds[t], 0) + 1
    if not seen['target'] or not seen['target_nowait']:
        fail('kernel time: records of %s' % seen)
    copies = copies_after_kernels(events, target_of)
    print('ompt kernel time: %s kernel records timed on the device, %d '
          'copies back after their kernel' % (seen, copies))


def copies_after_kernels(events, target_of):
    """A copy from the device is timed where it was done: after its
    construct's kernel ended on the device, also when a nowait construct
    queued it before the kernel ran. Returns how many were checked."""
    kernel_end, op_target = {}, {}
    for ev in events:
        if ev['event'] == 'data_op_emi' and ev['end'] == 'begin':
            op_target[ev['host_op']] = ev['target']
        elif ev['event'] == 'trace_record' and ev['type'] == 'kernel':
            kernel_end[target_of[ev['host_op']]] = int(ev['end'])
    checked = 0
    for ev in events:
        if ev['event'] != 'trace_record' or ev.get('op') != 'from_device':
            continue
        t = op_target.get(ev['host_op'])
        if t not in kernel_end:
            continue
        if int(ev['time']) < kernel_end[t]:
            fail('copy record host_op %s (target %s): began at %s, before '
                 'its kernel ended on the device at %d' %
                 (ev['host_op'], t, ev['time'], kernel_end[t]))
        checked += 1
    if not checked:
        fail('kernel time: no copy back after a kernel')
    return checked


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        sys.exit(2)
    events = parse(sys.argv[2])
    if sys.argv[1] == 'check':
        check(events)
    elif sys.argv[1] == 'trace-check':
        trace_check(events)
    elif sys.argv[1] == 'kernel-time':
        kernel_time(events, int(sys.argv[3]))
    elif sys.argv[1] == 'constructs':
        for line in constructs(events, '--llvm-diff' in sys.argv):
            print(line)
    else:
        for line in normalize(events, '--llvm-diff' in sys.argv):
            print(line)


main()
