#!/usr/bin/env python3
"""Classify a conformance run's superseded predictions: is each one a status the
shadowed operator itself ever gave that object (issue 49: "no prediction of a
state OLM never writes")? docs/conformance.md, session 25.

usage: superseded_states.py RUN_DIR [--recon BIN] [--window D] [--list]

RUN_DIR is an olm.sh output directory (audit.log, store/). The report and the
predictions are computed by BIN from the store (`recon shadow report`, `recon
replay`), so a newer binary re-judges an older run (the predictions of a shadow
log change nothing OLM did); the events come from `recon log export`.

A superseded prediction's status is compared, conditions by type, status and
reason (times, messages and generated names aside; a plan by phase and step
statuses), with every status of the same object that the watch showed or that
OLM sent on the audit log:
  written    the watch showed it, or OLM's write of it was taken (2xx)
  attempted  OLM sent exactly it and the server refused it (409 and the like)
  elsewhere  OLM never gave it to this object, but to another object of the
             kind in this run (CSV names abstracted)
  never      neither
Standard library only.
"""
import argparse
import collections
import json
import os
import subprocess
import sys

DROP = ('lastUpdated', 'lastTransitionTime', 'resourceVersion', 'lastUpdateTime', 'startTime', 'uid',
        'catalogHealth', 'message')
KINDS = {'subscriptions': 'Subscription', 'installplans': 'InstallPlan', 'operatorgroups': 'OperatorGroup'}


def strip(o):
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items() if k not in DROP}
    if isinstance(o, list):
        return [strip(x) for x in o]
    return o


def norm(kind, status):
    st = strip(status)
    if kind == 'Subscription':
        st = {k: st.get(k) for k in ('state', 'currentCSV', 'installedCSV', 'conditions')}
        if isinstance(st.get('conditions'), list):
            st['conditions'] = sorted(st['conditions'], key=lambda c: str(c.get('type')))
    elif kind == 'InstallPlan':
        st = {'phase': st.get('phase'), 'steps': [s.get('status') for s in st.get('plan', [])]}
    return json.dumps(st, sort_keys=True)


def shape(v):
    d = json.loads(v)
    for k in ('currentCSV', 'installedCSV'):
        if k in d:
            d[k] = bool(d[k])
    return json.dumps(d, sort_keys=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('run_dir')
    ap.add_argument('--recon', default='build/recon')
    ap.add_argument('--window', default='2m', help="olm.sh's WINDOW")
    ap.add_argument('--list', action='store_true', help='print each prediction not written')
    a = ap.parse_args()
    store = os.path.join(a.run_dir, 'store')
    run = lambda *args: subprocess.run([a.recon, *args], check=True, capture_output=True, text=True).stdout
    # Exit 1 means findings other than match/superseded/pending: expected here.
    shadow = subprocess.run([a.recon, 'shadow', 'report', '--store', store, '--domains', 'olm', '--shadow-window',
                             a.window, '-o', 'json'], capture_output=True, text=True)
    if shadow.returncode not in (0, 1):
        sys.exit(f'recon shadow report: {shadow.stderr.strip()}')
    report = json.loads(shadow.stdout)
    actions, index = {}, collections.Counter()
    for line in run('replay', '--store', store, '--quiet').splitlines():
        act = json.loads(line)
        i = index[act['cause']]
        index[act['cause']] += 1
        actions[f"{act['cause']}.{i}"] = act
    seen, refused = collections.defaultdict(set), collections.defaultdict(set)
    shapes = collections.defaultdict(set)

    def note(kind, key, status, into):
        v = norm(kind, status)
        into[key].add(v)
        shapes[kind].add(shape(v))

    for line in run('log', 'export', '--store', store).splitlines():
        e = json.loads(line)
        o = e.get('object')
        if not o or e['type'] not in ('Added', 'Modified') or not isinstance(o.get('status'), dict):
            continue
        m = o.get('metadata', {})
        note(o['kind'], (o['kind'], m.get('namespace'), m.get('name')), o['status'], seen)
    with open(os.path.join(a.run_dir, 'audit.log')) as f:
        for line in f:
            e = json.loads(line)
            ref = e.get('objectRef', {})
            kind = KINDS.get(ref.get('resource'))
            if e.get('stage') != 'ResponseComplete' or e.get('verb') not in ('update', 'patch') or not kind:
                continue
            status = (e.get('requestObject') or {}).get('status')
            if not isinstance(status, dict):
                continue
            ok = e.get('responseStatus', {}).get('code', 0) < 300
            note(kind, (kind, ref.get('namespace'), ref.get('name')), status, seen if ok else refused)
    counts = collections.Counter()
    for f in report['findings']:
        if f['result'] != 'superseded':
            continue
        obj = f['object']
        if f['verb'] != 'updateStatus':  # an update of the object's spec or metadata: not judged here
            counts[(obj['kind'], f"{f['verb']} (not a status)")] += 1
            continue
        key = (obj['kind'], obj['namespace'], obj['name'])
        v = norm(obj['kind'], actions[f['action']]['object'].get('status', {}))
        cls = ('written' if v in seen[key] else 'attempted' if v in refused[key]
               else 'elsewhere' if shape(v) in shapes[obj['kind']] else 'never')
        counts[(obj['kind'], cls)] += 1
        if a.list and cls in ('elsewhere', 'never'):
            print(f"{cls:9} {obj['kind']} {obj['namespace']}/{obj['name']} action {f['action']}: {v}")
    for (kind, cls), n in sorted(counts.items()):
        print(f'{n:4} {kind} {cls}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
