#!/usr/bin/env python3
"""Compares what `fabsweep ready --json` says with what the same check
prints as text, with the database it judged from and, for the pairs of
hosts, with partitions computed here from P_Key tables read elsewhere.

    ready_compare.py DB RUN...

Each RUN is a directory that tests/integration/checks.sh's ready_keep made
of one check run twice: ready.txt (the text output), ready.json (--json),
and `args`, "key value" a line:
  what TEXT     what the run is (named in the differences);
  exit N        the exit code of the text run (0 ready, 1 not ready, 3 not
                checked); json_exit the --json run's: both must be the
                JSON verdict's;
  hosts A,B     optional: the hosts as asked; the JSON's must be these, in order;
  quiet 1       the text run had --quiet (no summary line);
  pkeys FILE    optional, in RUN: "HOST PKEY PKEY..." a line (e.g. what
                smpquery pkeys prints): the failing partition pairs must be
                exactly those computed from these tables (both members, one
                full: docs/partitions.md), in partition `want` (a P_Key, its
                membership bit ignored; 0: any).

What must agree:
- every text line is accounted for: the host problem lines are the JSON
  hosts' problems in order; the pair lines the JSON pairs in order (cause,
  limited_only, the partition asked, the hop and its text, the fault); the
  hop lines the JSON links with text; the notes, the counts and the
  summary line (hosts per verdict, scan id and time);
- each host's verdict: not_ready with a not_ready problem or in a failing
  pair, else unknown with a problem, else ready; a ready host's ports were
  all answered and active;
- the database: the scan (id, times, status, source, host, label); every
  JSON port is a port of that scan with the node's GUID and name and
  the LID it is asked at (a switch's: port 0's); every cabled port of a
  host's CAs and its peer were probed; a host the scan lacks has only a
  "not in scan" problem; each hop's ends are the two ends of one cable; the
  pairs checked are the pairs of hosts with a P_Key table in the scan, the
  others counted.
Exit 0 when every run agrees (one line a run saying how much was
compared), 1 otherwise, one line per difference naming the run.
"""
import json
import os
import re
import sqlite3
import sys

from fabnames import shown_names

errors = []


def bad(msg):
    errors.append(msg)


def eq(what, got, want):
    if got != want:
        bad(f"{what}: got {got!r}, want {want!r}")


def names_host(host, desc):
    """ready's matching: the description's first word is the host, or the
    host and a domain (case ignored)."""
    w = desc.split(" ", 1)[0].lower()
    h = host.lower()
    return w == h or w.startswith(h + ".")


def member(tab, part):
    m = 0
    for k in tab:
        if k & 0x7FFF == 0 or k & 0x7FFF != part:
            continue
        m = max(m, 2 if k & 0x8000 else 1)
    return m


def can_talk(a, b, want):
    """(talk, limited_only) of two tables."""
    parts = [want] if want else sorted({k & 0x7FFF for k in a + b if k & 0x7FFF})
    lim = False
    for p in parts:
        x, y = member(a, p), member(b, p)
        if x and y and 2 in (x, y):
            return True, False
        lim = lim or bool(x and y)
    return False, lim


def compare(db, run):
    a = dict(l.rstrip("\n").split(" ", 1) for l in open(os.path.join(run, "args"), encoding="utf-8") if " " in l)
    d = json.load(open(os.path.join(run, "ready.json"), encoding="utf-8"))
    lines = [l for l in open(os.path.join(run, "ready.txt"), encoding="utf-8").read().split("\n") if l]
    hosts = [h["host"] for h in d["hosts"]]
    scan = d["scan"]["id"]

    # ---- the overall verdict, the hosts asked
    verdict_of = {"0": "ready", "1": "not_ready", "3": "unknown"}
    eq("exit code of the text run vs the JSON verdict", verdict_of.get(a["exit"], "exit " + a["exit"]), d["verdict"])
    eq("exit code of the --json run vs the text run's", a["json_exit"], a["exit"])
    verdicts = [h["verdict"] for h in d["hosts"]]
    eq("the overall verdict from the hosts'", d["verdict"],
       "not_ready" if "not_ready" in verdicts else "unknown" if "unknown" in verdicts else "ready")
    if "hosts" in a:
        eq("the hosts, in the order asked", hosts, a["hosts"].split(","))

    # ---- the scan
    row = db.execute("SELECT started_at, finished_at, source, host, status, label FROM scans WHERE scan_id = ?",
                     (scan,)).fetchone()
    if not row:
        bad(f"scan {scan} of the JSON is not in the database")
    else:
        for k, v in zip(("started_at", "finished_at", "source", "host", "status", "label"), row):
            eq(f"scan.{k} vs the database", d["scan"][k], v)

    # ---- the text, line by line
    pos = 0
    problems_text = {h: [] for h in hosts}
    while pos < len(lines):
        h = next((h for h in hosts if lines[pos].startswith(h + ": ")), None)
        if h is None:
            break
        problems_text[h].append(lines[pos][len(h) + 2:])
        pos += 1
    for h in d["hosts"]:
        eq(f"{h['host']}: problems, JSON vs text", [p["text"] for p in h["problems"]],
           problems_text[h["host"]])

    links = d.get("hops", {}).get("links", [])
    pairs = d.get("pairs", {})
    hops = d.get("hops", {})
    while pos < len(lines) and (m := re.match(r"hop (\d+): (not ready|not checked): (.*)$", lines[pos])):
        n = int(m[1])
        if not 1 <= n <= len(links):
            bad(f"text names hop {n}; the JSON has {len(links)}")
        else:
            eq(f"hop {n}: verdict", links[n - 1]["verdict"], "not_ready" if m[2] == "not ready" else "unknown")
            eq(f"hop {n}: text", links[n - 1]["text"], m[3])
        pos += 1
    said = [int(re.match(r"hop (\d+):", l)[1]) for l in lines if re.match(r"hop \d+: not ", l)]
    eq("the hops with a text (JSON) are the hop lines", [i + 1 for i, x in enumerate(links) if x["text"]], said)
    for part in (hops, pairs):
        if part and not part["judged"]:
            if pos < len(lines) and lines[pos] == "ready: " + str(part["note"]):
                pos += 1
            else:
                bad(f"the note '{part['note']}' is not the next line: {lines[pos:pos + 1]}")
        elif part and part["note"] is not None:
            bad(f"judged, yet a note: {part['note']}")

    failing = pairs.get("failing", [])
    for i, x in enumerate(failing):
        if pos >= len(lines):
            bad(f"pair {x['a']} / {x['b']} of the JSON has no line")
            break
        l = lines[pos]
        pos += 1
        if x["cause"] == "partition":
            why = ("they share a partition only as limited members" if x["limited_only"]
                   else "they do not share the partition" if pairs["partition"] else "they share no partition")
            eq(f"pair line {i + 1}", l, f"{x['a']} <-> {x['b']}: not ready: {why}")
            hosts.index(x["a"]) < hosts.index(x["b"]) or bad(f"pair {x['a']} <-> {x['b']}: not in host order")
        elif x["cause"] == "hop":
            h = x["hop"]
            text = links[h - 1]["text"] if h and 1 <= h <= len(links) else "?"
            eq(f"pair line {i + 1}", l, f"{x['a']} -> {x['b']}: not ready: the route crosses hop {h} ({text})")
        else:
            eq(f"pair line {i + 1}", l,
               f"{x['a']} -> {x['b']}: not ready: the forwarding tables break the route ({x['fault']})")
    if pairs:
        n_part = sum(x["cause"] == "partition" for x in failing)
        n_route = len(failing) - n_part
        more = pairs["failing_partition"] + pairs["failing_route"] - len(failing)
        if more > 0:
            eq("the pairs not listed", lines[pos:pos + 1], [f"ready: {more} more failing pairs not listed"])
            pos += 1
        else:
            eq("failing_partition vs the pairs listed", pairs["failing_partition"], n_part)
            eq("failing_route vs the pairs listed", pairs["failing_route"], n_route)
    bad_hops = sum(x["verdict"] != "ready" for x in links)
    if hops:
        eq("hops.bad vs the links' verdicts", hops["bad"], bad_hops)
        if hops["bad"]:
            n = len(links)
            eq("the hops line", lines[pos:pos + 1],
               [f"ready: {n} hop{'' if n == 1 else 's'} between the hosts probed, {hops['bad']} not ready or not checked"])
            pos += 1
    if pairs.get("partition") and pairs["failing_partition"]:
        eq("the partition line", lines[pos:pos + 1],
           [f"ready: partition {pairs['partition']}: {pairs['failing_partition']} of {pairs['checked']} pairs cannot talk in it"])
        pos += 1
    if pairs.get("hosts_without_table"):
        n = pairs["hosts_without_table"]
        eq("the no-table line", lines[pos:pos + 1],
           [f"ready: {n} host{'' if n == 1 else 's'} without a P_Key table in the sweep: {'its' if n == 1 else 'their'} pairs not checked"])
        pos += 1
    if a.get("quiet") != "1":
        cnt = {v: verdicts.count(v) for v in ("ready", "not_ready", "unknown")}
        n = len(hosts)
        eq("the summary line", lines[pos:pos + 1],
           [f"ready: {n} host{'' if n == 1 else 's'}: {cnt['ready']} ready, {cnt['not_ready']} not ready, "
            f"{cnt['unknown']} not checked (scan {scan} of {d['scan']['started_at']})"])
        pos += 1
    if pos < len(lines):
        bad(f"text lines the JSON does not account for: {lines[pos:]}")

    # ---- each host's verdict from its problems and its pairs
    in_pair = {x[k] for x in failing for k in ("a", "b")}
    for h in d["hosts"]:
        pv = [p["verdict"] for p in h["problems"]]
        want = ("not_ready" if "not_ready" in pv or h["host"] in in_pair
                else "unknown" if pv else "ready")
        eq(f"{h['host']}: verdict from its problems and pairs", h["verdict"], want)

    # ---- the ports against the database
    rows = db.execute("SELECT node_guid, node_type, description, lid FROM nodes WHERE scan_id = ?"
                      " ORDER BY node_idx", (scan,)).fetchall()
    node = {g: (t, desc, lid) for g, t, desc, lid in rows}
    shown = shown_names([{"node_guid": r[0], "description": r[2]} for r in rows])
    port = {(g, n): (lid, rg, rp) for g, n, lid, rg, rp in
            db.execute("SELECT node_guid, port_num, lid, remote_guid, remote_port FROM ports WHERE scan_id = ?",
                       (scan,))}
    probed = {}
    for p in d["ports"]:
        k = (p["node_guid"], p["port"])
        probed[k] = p
        if p["node_guid"] not in node or k not in port:
            bad(f"port {k} of the JSON is not in scan {scan}")
            continue
        t, desc, nlid = node[p["node_guid"]]
        eq(f"{k}: node", p["node"], shown[p["node_guid"]])
        eq(f"{k}: the LID asked at", p["lid"], nlid if t == "switch" else port[k][0])
    # ---- what the problems say of a port, against the JSON's ports and the database
    by_label = {f"{p['node']}/{p['port']}": p for p in d["ports"]}
    cols = {(g, n): (w, sp) for g, n, w, sp in
            db.execute("SELECT node_guid, port_num, width_active, speed_active FROM ports WHERE scan_id = ?", (scan,))}

    def pt(label, what):
        if label not in by_label:
            bad(f"{what}: names {label}, which is not a port probed")
            return None
        return by_label[label]

    facts = 0
    for h in d["hosts"]:
        for pr in h["problems"]:
            x = pr["text"]
            facts += sum(bool(re.search(r, x)) for r in (r"^link \S+ <-> \S+ (is|runs) ", r" is \w+/\w+ at ",
                                                          r"did not answer", r" error counters rose "))
            if m := re.match(r"link (\S+) <-> (\S+) (is|runs) ", x):
                a_, b_ = pt(m[1], x), pt(m[2], x)
                if a_ and b_:
                    eq(f"{x}: the two ends are one cable in scan {scan}",
                       port.get((a_["node_guid"], a_["port"]), (0, 0, 0))[1:], (b_["node_guid"], b_["port"]))
            if m := re.search(r" is (\w+)/\w+ at (\S+) \(active at scan", x):
                if q := pt(m[2], x):
                    eq(f"{x}: the state of {m[2]} (JSON)", (q["port_info"], q["state"]), (True, m[1]))
            if m := re.search(r"^(\S+) \(LID (\d+)\) did not answer", x):
                if q := pt(m[1], x):
                    eq(f"{x}: {m[1]} (JSON)", (q["port_info"], q["lid"]), (False, int(m[2])))
            if m := re.match(r"link (\S+) <-> \S+ runs (at )?(\S+) \((\S+) at scan (\d+)\)$", x):
                if q := pt(m[1], x):
                    was = cols.get((q["node_guid"], q["port"]), (None, None))[1 if m[2] else 0]
                    eq(f"{x}: what {m[1]} ran at scan {m[5]} (database)", m[4], was)
            if m := re.match(r"(\S+) error counters rose since scan (\d+): (.*)$", x):
                if q := pt(m[1], x):
                    eq(f"{x}: the counters of {m[1]} were read (JSON)", q["counters"], True)
                    for name, inc, old, new in re.findall(r"(\w+) \+(\d+) \((\d+) -> (\d+)", m[3]):
                        row = db.execute(
                            "SELECT value FROM counters WHERE scan_id = ? AND node_guid = ? AND port_num = ? AND"
                            " counter = ? ORDER BY sample DESC LIMIT 1", (int(m[2]), q["node_guid"], q["port"],
                                                                         name)).fetchone()
                        eq(f"{x}: {name} of {m[1]} at scan {m[2]} (database)", int(old), row and row[0])
                        eq(f"{x}: {name}'s rise", int(inc), int(new) - int(old))
    for h in d["hosts"]:
        cas = [g for g, (t, desc, _) in node.items() if t == "ca" and names_host(h["host"], desc)]
        if not cas:
            eq(f"{h['host']} (not in scan {scan}): its problems",
               [p["text"].startswith(f"not in scan {scan}:") for p in h["problems"]], [True])
            continue
        for (g, n), (_, rg, rp) in port.items():
            if g not in cas or rg is None:
                continue
            for k in ((g, n), (rg, rp)):
                if k not in probed:
                    bad(f"{h['host']}: port {k} (a cabled CA port or its peer) was not probed")
                elif h["verdict"] == "ready":
                    p = probed[k]
                    eq(f"{h['host']} is ready: port {k} answered and active",
                       (p["node_info"], p["port_info"], p["counters"], p["state"]), (True, True, True, "active"))
    for i, x in enumerate(links):
        f, t = x["from"], x["to"]
        ends = {f"{f['node']}/{f['port']}": f, f"{t['node']}/{t['port']}": t}
        if x["text"] and (m := re.match(r"(\S+) <-> (\S+)(:| is | runs )", x["text"])):
            facts += 1
            eq(f"hop {i + 1}: its text names from <-> to", (m[1], m[2]),
               (f"{f['node']}/{f['port']}", f"{t['node']}/{t['port']}"))
        if x["text"] and (m := re.search(r" runs (at )?(\S+) \((\S+) at scan (\d+)\)$", x["text"])):
            was = {cols.get((e["node_guid"], e["port"]), (None, None))[1 if m[1] else 0] for e in (f, t)}
            m[3] in was or bad(f"hop {i + 1}: {x['text']}: neither end ran {m[3]} at scan {m[4]} (database: {was})")
        if x["text"] and (m := re.search(r"error counters rose at (\S+): ", x["text"])):
            e = ends.get(m[1])
            e or bad(f"hop {i + 1}: {x['text']}: {m[1]} is not one of its ends")
            if e and (e["node_guid"], e["port"]) in probed:
                eq(f"hop {i + 1}: the counters of {m[1]} were read (JSON)", probed[(e["node_guid"], e["port"])]["counters"],
                   True)
        k = (f["node_guid"], f["port"])
        eq(f"hop {i + 1}: its ends are one cable", port.get(k, (None, None, None))[1:], (t["node_guid"], t["port"]))
        for e in (f, t):
            (e["node_guid"], e["port"]) in probed or bad(f"hop {i + 1}: end {e} not probed")

    # ---- the pairs: who has a table in the scan; the oracle's verdicts
    if pairs.get("judged"):
        tabled = set()
        for h in hosts:
            for g, n, status in db.execute(
                    "SELECT t.node_guid, t.port_num, t.status FROM port_pkey_tables t JOIN nodes n USING (scan_id, node_guid)"
                    " WHERE t.scan_id = ? AND n.node_type = 'ca'", (scan,)):
                if names_host(h, node[g][1]) and status != "failed" and port.get((g, n), (0, None))[1]:
                    tabled.add(h)
        k = len(tabled)
        eq("pairs.checked: pairs of hosts with a table", pairs["checked"], k * (k - 1) // 2)
        eq("pairs.hosts_without_table", pairs["hosts_without_table"], len(hosts) - k)
        want = int(a.get("want", "0"), 0) & 0x7FFF
        eq("pairs.partition vs --want", pairs["partition"], f"0x{want:04x}" if want else None)
    if "pkeys" in a:
        tabs = {}
        for l in open(os.path.join(run, a["pkeys"]), encoding="utf-8"):
            w = l.split()
            if w:
                tabs[w[0]] = [int(x, 0) for x in w[1:]]
        want = int(a.get("want", "0"), 0) & 0x7FFF
        expect = []
        for i, x in enumerate(hosts):
            for y in hosts[i + 1:]:
                if x in tabs and y in tabs:
                    talk, lim = can_talk(tabs[x], tabs[y], want)
                    if not talk:
                        expect.append((x, y, lim))
        got = [(x["a"], x["b"], x["limited_only"]) for x in failing if x["cause"] == "partition"]
        eq(f"the failing partition pairs vs those computed from {a['pkeys']}", sorted(got), sorted(expect))
        eq("pairs.failing_partition vs the computed", pairs["failing_partition"], len(expect))

    return (f"{len(hosts)} hosts, {len(d['ports'])} ports, {len(failing)} failing pairs, {len(links)} hops, "
            f"{len(lines)} text lines, {facts} facts of problems and hops")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
    failed = 0
    for run in sys.argv[2:]:
        errors.clear()
        what = run
        try:
            what = dict(l.rstrip("\n").split(" ", 1) for l in open(os.path.join(run, "args"), encoding="utf-8")
                        if " " in l).get("what", run)
            said = compare(db, run)
        except Exception as e:  # a document that lacks what it must have
            bad(f"{type(e).__name__}: {e}")
        if errors:
            failed += 1
            for e in errors:
                print(f"ready_compare: {what}: {e}")
        else:
            print(f"ready_compare: {what}: agree ({said})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
