#!/usr/bin/env python3
"""Reads fabsweep's --json documents back and compares every value with two
independent sources: the database they were made from (python's sqlite3 over
the public relations of docs/schema.md, never fabsweep's code) and the text
output of the same command (each JSON value rendered in the text's layout).

    json_vs_db.py scans  DB DOC TEXT               fabsweep scans [--json]
    json_vs_db.py check  DB SCAN DOC TEXT [CONF]   fabsweep check --limit 0 [--json]
    json_vs_db.py diff   DB OLD NEW DOC TEXT [MAP] fabsweep diff OLD NEW [--json]
    json_vs_db.py dbinfo DB DOC TEXT               fabsweep db info [--json]
    json_vs_db.py rules  DOC TEXT [CONF]           fabsweep rules [--json]
    json_vs_db.py rule   DOC TEXT [CONF]           fabsweep rules show ID [--json]

CONF is the --config file the commands were given, MAP the --node-name-map:
both are read here too (their lines found by a parse of our own), so that a
severity, a parameter, a suppression or a name they set is seen to arrive.
Prints one line per disagreement (at most 20) and exits 1 when there is one;
on success one line saying how much it compared.
"""
import collections
import json
import re
import sqlite3
import sys
import urllib.parse

from fabnames import shown_names

problems = []


def bad(msg):
    problems.append(msg)


def same(what, got, want):
    if got != want:
        bad("%s: the JSON says %r, want %r" % (what, got, want))
    return got == want


def same_text(what, text, rendered):
    """The text output against the JSON rendered in its layout: the first line that differs."""
    if text == rendered:
        return True
    for i in range(max(len(text), len(rendered))):
        t = text[i] if i < len(text) else "(no line)"
        r = rendered[i] if i < len(rendered) else "(no line)"
        if t != r:
            bad("%s, line %d: the text says %r, the JSON gives %r" % (what, i + 1, t, r))
            return False
    return False


def finish(summary):
    for p in problems[:20]:
        print(p)
    if len(problems) > 20:
        print("... and %d more" % (len(problems) - 20))
    if problems:
        sys.exit(1)
    print(summary)


def connect(path):
    uri = "file:%s?mode=ro" % urllib.parse.quote(path)
    db = sqlite3.connect(uri, uri=True)
    db.row_factory = sqlite3.Row
    return db


def load(path):
    with open(path, encoding="ascii") as f:
        return json.load(f)


def text_lines(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return f.read().split("\n")[:-1]


# ---- what the database says ------------------------------------------------

def scan_row(db, scan_id):
    r = db.execute("SELECT s.*, c.checked_at FROM scans s LEFT JOIN checks c USING (scan_id)"
                   " WHERE s.scan_id = ?", (scan_id,)).fetchone()
    if r is None:
        sys.exit("json_vs_db: scan %s is not in the database" % scan_id)
    return r


def compare_scan(what, doc_scan, db, scan_id):
    """common.schema.json's scan object against the scans (and checks) row."""
    r = scan_row(db, scan_id)
    want = {"id": r["scan_id"], "started_at": r["started_at"], "finished_at": r["finished_at"],
            "checked_at": r["checked_at"], "status": r["status"], "source": r["source"],
            "label": r["label"], "host": r["host"]}
    for k, v in want.items():
        same("%s.%s" % (what, k), doc_scan.get(k), v)


# ---- scans -------------------------------------------------------------------

SCANS_ROW = re.compile(r"^(\d+) +(\S+) +(\S+) +(\d+) +(\d+) +(\d+) +(\S+) +(\d+)  (.*)$")


def cmd_scans(dbpath, docpath, textpath):
    db, doc = connect(dbpath), load(docpath)
    same("command", doc["command"], "scans")
    same("database", doc["database"], dbpath)
    want = []
    for r in db.execute("SELECT s.*, EXISTS (SELECT 1 FROM checks c WHERE c.scan_id = s.scan_id) AS checked"
                        " FROM scans s ORDER BY scan_id"):
        i = r["scan_id"]
        count = lambda sql: db.execute(sql, (i,)).fetchone()[0]
        findings = count("SELECT count(*) FROM findings WHERE scan_id = ?")
        want.append({
            "id": i, "started_at": r["started_at"], "finished_at": r["finished_at"],
            "status": r["status"], "label": r["label"], "host": r["host"], "source": r["source"],
            "nodes": count("SELECT count(*) FROM nodes WHERE scan_id = ?"),
            "ports": count("SELECT count(*) FROM ports WHERE scan_id = ?"),
            "links": count("SELECT count(*) FROM links WHERE scan_id = ?"),
            "checked": bool(r["checked"]),
            # null: never checked, which is not the same as none
            "findings": findings if r["checked"] else None,
            "scan_errors": count("SELECT count(*) FROM scan_errors WHERE scan_id = ?"),
        })
    got = doc["scans"]
    same("number of scans", len(got), len(want))
    for g, w in zip(got, want):
        for k, v in w.items():
            same("scan %s: %s" % (w["id"], k), g.get(k), v)
    # the text: one line per scan, the same values
    lines = text_lines(textpath)
    rows = [SCANS_ROW.match(l) for l in lines[1:]]
    if not lines or not lines[0].startswith("SCAN ") or not all(rows) or len(rows) != len(got):
        bad("the text of 'scans' is not a header and %d rows: %r" % (len(got), lines[:3]))
    else:
        for g, m in zip(got, rows):
            text = (int(m[1]), m[2], m[3], int(m[4]), int(m[5]), int(m[6]), m[7], int(m[8]), m[9])
            js = (g["id"], g["started_at"] or "-", g["status"] or "-", g["nodes"], g["ports"],
                  g["links"], "-" if g["findings"] is None else str(g["findings"]),
                  g["scan_errors"], g["label"] or "")
            if text != js:
                bad("scan %s: the text says %r, the JSON %r" % (g["id"], text, js))
    finish("scans: %d scans, every field as the database and the text have it" % len(got))


# ---- db info -----------------------------------------------------------------

def cmd_dbinfo(dbpath, docpath, textpath):
    db, doc = connect(dbpath), load(docpath)
    d = doc["database"]
    pragma = lambda p: db.execute("PRAGMA " + p).fetchone()[0]
    n, first, last = db.execute("SELECT count(*), min(scan_id), max(scan_id) FROM scans").fetchone()
    page = pragma("page_size")
    want = {"path": dbpath, "schema_version": pragma("user_version"),
            "journal_mode": pragma("journal_mode"), "scans": n, "first_scan": first,
            "last_scan": last, "size_bytes": page * pragma("page_count"),
            "free_bytes": page * pragma("freelist_count")}
    for k, v in want.items():
        same("database.%s" % k, d.get(k), v)
    span = " (scan %d to %d)" % (d["first_scan"], d["last_scan"]) if d["scans"] else ""
    text = ["database:       %s" % d["path"], "schema version: %d" % d["schema_version"],
            "journal mode:   %s" % d["journal_mode"], "snapshots:      %d%s" % (d["scans"], span),
            "size:           %d bytes (%d free)" % (d["size_bytes"], d["free_bytes"])]
    same_text("db info", text_lines(textpath), text)
    finish("db info: %d fields as PRAGMA and the scans table say, and as the text" % len(want))


# ---- check -------------------------------------------------------------------

SEVERITIES = ["error", "warning", "info"]
FINDING_KEYS = ["rule", "severity", "subject", "node", "port", "peer_node", "peer_port",
                "message", "evidence"]


def config_lines(path):
    """A configuration file's (section, key) -> [(value, line)], a parse of our own."""
    out = collections.defaultdict(list)
    if not path:
        return out
    section = None
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            line = re.sub(r"(^|\s)#.*$", "", line).strip()
            if not line:
                continue
            m = re.match(r"^\[(.+)\]$", line)
            if m:
                section = m[1]
                continue
            key, _, value = line.partition("=")
            out[(section, key.strip())].append((value.strip(), no))
    return out


def check_text(doc, conf):
    """The text 'check --limit 0' prints, rendered from the JSON."""
    r, c = doc["rules"], doc["counts"]
    s = doc["scan"]
    plural = lambda n, w: "%d %s%s" % (n, w, "" if n == 1 else "s")
    head = "scan %d (%s, %s): %d rules run" % (s["id"], s["started_at"], s["source"] or "-",
                                             r["ran"] + r["site_ran"])
    if r["site_ran"]:
        head += " (%d site)" % r["site_ran"]
    if r["site_failed"]:
        head += ", %s failed" % plural(r["site_failed"], "site rule")
    if r["skipped"]:
        head += ", %d skipped" % len(r["skipped"])
    if r["disabled"] + r["site_disabled"]:
        head += ", %d disabled" % (r["disabled"] + r["site_disabled"])
    head += "; %s: %s, %s, %d info" % (plural(c["findings"], "finding"), plural(c["error"], "error"),
                                       plural(c["warning"], "warning"), c["info"])
    out = [head]
    d = doc["counter_deltas"]
    if d:
        if d["baseline_scan"] is not None:
            out.append("counter deltas: since the baseline, scan %d (%ss)" % (d["baseline_scan"], gfmt(d["seconds"])))
        else:
            out.append("counter deltas: between the scan's two samples (%ss)" % gfmt(d["seconds"]))
    for f in doc["findings"]:
        out.append("%-7s %-22s %s: %s" % (f["severity"], f["rule"], f["subject"] or "-", f["message"]))
    # skipped rules, one line per reason, in rule order
    groups = collections.OrderedDict()
    for k in r["skipped"]:
        groups.setdefault(k["why"], []).append(k["rule"])
    for why, ids in groups.items():
        if len(ids) == 1:
            out.append("skipped %s: %s" % (ids[0], why or "?"))
        else:
            out.append("skipped %d rules (%s): %s" % (len(ids), why or "?", ", ".join(ids)))
    sp = doc["suppressions"]
    if sp["suppressed"]:
        out.append("%s suppressed by %s" % (plural(sp["suppressed"], "finding"), conf))
    for e in sp["expired"]:
        out.append("note: %s:%d: the suppression of %s for '%s' expired on %s" %
                   (e["file"], e["line"], e["rule"], e["pattern"], e["until"]))
    x = doc["expected_topology"]
    if x:
        what = "scan %d" % x["scan"] if x["scan"] is not None else x["source"]
        out.append("expected topology: %s (%d nodes, %d links)" % (what, x["nodes"], x["links"]))
    return out


def ms(t):
    """An ISO time of the database in milliseconds."""
    import datetime
    dt = datetime.datetime.strptime(t, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
    return round(dt.timestamp() * 1000)


def delta_seconds(db, scan_id, base_id):
    """Seconds between the samples the counter rules compare: the first port
    (in scan order) with a sample in both (the baseline's latest and the
    scan's latest, or the scan's first and latest)."""
    def samples(i):
        out = collections.defaultdict(dict)
        for r in db.execute("SELECT node_guid, port_num, sample, min(sampled_at) AS at FROM counters"
                            " WHERE scan_id = ? GROUP BY 1, 2, 3", (i,)):
            out[(r["node_guid"], r["port_num"])][r["sample"]] = ms(r["at"])
        return out
    now = samples(scan_id)
    base = samples(base_id) if base_id is not None else None
    for r in db.execute("SELECT p.node_guid, p.port_num FROM ports p JOIN nodes n USING (scan_id, node_guid)"
                        " WHERE p.scan_id = ? ORDER BY n.node_idx, p.port_num", (scan_id,)):
        k = (r["node_guid"], r["port_num"])
        if k not in now:
            continue
        to = now[k][max(now[k])]
        if base is not None:
            if k not in base:
                continue
            frm = base[k][max(base[k])]
        elif len(now[k]) > 1:
            frm = now[k][min(now[k])]
        else:
            continue
        return (to - frm) / 1000.0 if 0 < frm < to else 0.0
    return 0.0


def gfmt(v):
    """C's %g."""
    return "%g" % v


def expected_summary(rows, shown):
    """check --summary's groups, worked out from the findings' rows: by rule
    and by node (findings.node), worst first, then the most findings, then
    the id or name."""
    rank = lambda s: SEVERITIES.index(s)  # 0: error

    def group(key):
        g = collections.OrderedDict()
        for r in rows:
            g.setdefault(key(r), []).append(r)
        return g
    by_rule = []
    for rule, rs in group(lambda r: r["rule_id"]).items():
        c = collections.Counter(r["severity"] for r in rs)
        by_rule.append({"rule": rule, "worst": min((r["severity"] for r in rs), key=rank),
                        "findings": len(rs), "nodes": len({r["node"] for r in rs if r["node"] is not None}),
                        "error": c["error"], "warning": c["warning"], "info": c["info"]})
    by_rule.sort(key=lambda x: (rank(x["worst"]), -x["findings"], x["rule"]))
    by_node = []
    for node, rs in group(lambda r: r["node"]).items():
        c = collections.Counter(r["severity"] for r in rs)
        per, of_rule = [], collections.OrderedDict()
        for r in rs:
            of_rule.setdefault(r["rule_id"], []).append(r)
        for rule, rr in of_rule.items():
            per.append({"rule": rule, "worst": min((r["severity"] for r in rr), key=rank),
                        "findings": len(rr)})
        per.sort(key=lambda x: (rank(x["worst"]), -x["findings"], x["rule"]))
        by_node.append({"node": node, "name": shown.get(node, node) if node is not None else None,
                        "worst": min((r["severity"] for r in rs), key=rank), "findings": len(rs),
                        "error": c["error"], "warning": c["warning"], "info": c["info"], "rules": per})
    by_node.sort(key=lambda x: (rank(x["worst"]), -x["findings"], x["name"] is not None, x["name"] or "",
                                x["node"] or ""))
    return {"by_rule": by_rule, "by_node": by_node}


def cmd_check(dbpath, scan_id, docpath, textpath, conf=None):
    db, doc = connect(dbpath), load(docpath)
    scan_id = int(scan_id)
    same("command", doc["command"], "check")
    compare_scan("scan", doc["scan"], db, scan_id)
    # every finding as stored: the same rows, every field, evidence included
    rows = db.execute("SELECT rule_id, severity, subject, node, port, peer_node, peer_port, message,"
                      " evidence FROM findings WHERE scan_id = ?", (scan_id,)).fetchall()
    want = collections.Counter(tuple(r) for r in rows)
    got = collections.Counter(tuple(f[k] for k in FINDING_KEYS) for f in doc["findings"])
    for t in (got - want):
        bad("a finding in the JSON that the database does not have: %r" % (t,))
    for t in (want - got):
        bad("a finding in the database that the JSON does not have: %r" % (t,))
    by = collections.Counter(r["severity"] for r in rows)
    same("counts.findings", doc["counts"]["findings"], len(rows))
    for s in SEVERITIES:
        same("counts.%s" % s, doc["counts"][s], by[s])
    # the worst first
    order = [SEVERITIES.index(f["severity"]) for f in doc["findings"]]
    if order != sorted(order):
        bad("findings are not listed worst first")
    # fail_on and failed: findings at or above the level
    fo = doc["fail_on"]
    worst = min(order) if order else 3
    same("failed (fail_on %s)" % fo, doc["failed"], fo != "never" and worst <= SEVERITIES.index(fo))
    r = doc["rules"]
    same("rules.skipped: each once", len({k["rule"] for k in r["skipped"]}), len(r["skipped"]))
    # the configuration's suppressions: the expired ones, by file and line
    cl = config_lines(conf)
    expired = []
    for (sec, key), vals in cl.items():
        if sec != "suppress":
            continue
        for value, line in vals:
            m = re.match(r"^(.*?)\s+until\s+(\d{4}-\d\d-\d\d)$", value)
            if m and m[2] < scan_row(db, scan_id)["checked_at"][:10]:
                expired.append({"file": conf, "line": line, "rule": key, "pattern": m[1], "until": m[2]})
    same("suppressions.expired", sorted(doc["suppressions"]["expired"], key=lambda e: e["line"]), expired)
    # counter deltas: the seconds between the first port's two samples compared
    d = doc["counter_deltas"]
    if d is not None:
        same("counter_deltas.since", d["since"], "samples" if d["baseline_scan"] is None else "baseline")
        same("counter_deltas.seconds", d["seconds"], delta_seconds(db, scan_id, d["baseline_scan"]))
    # each finding's node_name and peer_name: the node's name in every output
    nodes = db.execute("SELECT node_guid, description FROM nodes WHERE scan_id = ? ORDER BY node_idx",
                       (scan_id,)).fetchall()
    shown = shown_names(nodes)
    for f in doc["findings"]:
        for k, n in (("node", "node_name"), ("peer_node", "peer_name")):
            if n in f or f[k] is not None:
                same("%s of %s %s" % (n, f["rule"], f[k]), f.get(n), shown.get(f[k], f[k]))
    if "summary" in doc:
        same("summary", doc["summary"], expected_summary(rows, shown))
    same_text("check", text_lines(textpath), check_text(doc, conf))
    finish("check: %d findings (%s), every field as the database and the text have them" %
           (len(rows), ", ".join("%d %s" % (by[s], s) for s in SEVERITIES)))


# ---- diff --------------------------------------------------------------------

STATES = {"down": "down", "init": "init", "armed": "armed", "active": "active"}
ERROR_COUNTERS = {  # name: bits in PortCounters (IBA 16.1.3.5)
    "SymbolErrorCounter": 16, "LinkErrorRecoveryCounter": 8, "LinkDownedCounter": 8,
    "PortRcvErrors": 16, "PortRcvRemotePhysicalErrors": 16, "PortRcvSwitchRelayErrors": 16,
    "PortXmitDiscards": 16, "PortXmitConstraintErrors": 8, "PortRcvConstraintErrors": 8,
    "LocalLinkIntegrityErrors": 4, "ExcessiveBufferOverrunErrors": 4, "VL15Dropped": 16,
}
SM_STATES = {0: "notactive", 1: "discovering", 2: "standby", 3: "master"}


def name_map(path):
    """ibdiags node-name-map: '0xGUID "name"' lines."""
    out = {}
    if path:
        with open(path, encoding="utf-8") as f:
            for line in f:
                m = re.match(r'^\s*(0x[0-9a-fA-F]+)\s+"([^"]*)"', line)
                if m:
                    out[int(m[1], 16)] = m[2]
    return out


class Scan:
    """One scan as the public relations give it."""

    def __init__(self, db, i):
        self.id = i
        q = lambda sql: db.execute(sql, (i,)).fetchall()
        self.nodes = {}
        rows = q("SELECT * FROM nodes WHERE scan_id = ? ORDER BY node_idx")
        for r in rows:
            self.nodes.setdefault(r["node_guid"], r)  # the first of a GUID
        self.shown = shown_names(rows)
        self.ports = {(r["node_guid"], r["port_num"]): r for r in q("SELECT * FROM ports WHERE scan_id = ?")}
        self.links = {(r["a_guid"], r["a_port"], r["b_guid"], r["b_port"]): r
                      for r in q("SELECT * FROM links WHERE scan_id = ?")}
        self.counters = {}
        for r in q("SELECT node_guid, port_num, counter, value, sample FROM counters WHERE scan_id = ?"
                   " ORDER BY sample"):
            self.counters.setdefault((r["node_guid"], r["port_num"]), {})[r["counter"]] = r["value"]
        self.tables = {r["node_guid"]: r for r in q("SELECT * FROM switch_tables WHERE scan_id = ?")}
        self.fwd = collections.defaultdict(dict)
        for r in q("SELECT node_guid, lid, port FROM forwarding WHERE scan_id = ?"):
            self.fwd[r["node_guid"]][r["lid"]] = r["port"]
        self.modules = {}  # by fabric, then its port: (GUID, port) or (system, interface)
        for r in q("SELECT * FROM modules WHERE scan_id = ?"):
            k = (r["node_guid"], r["port_num"]) if r["fabric"] == "ib" else (r["system"], r["ifname"])
            self.modules.setdefault(r["fabric"], {})[k] = r
        self.sms = {}
        for r in q("SELECT * FROM sms WHERE scan_id = ? ORDER BY port_guid"):
            self.sms.setdefault(r["port_guid"], r)
        self.sl2vl = collections.defaultdict(dict)
        for r in q("SELECT node_guid, in_port, out_port, sl, vl FROM sl2vl WHERE scan_id = ?"):
            self.sl2vl[(r["node_guid"], r["in_port"], r["out_port"])][r["sl"]] = r["vl"]
        self.vlarb = collections.defaultdict(lambda: {"high": [], "low": []})
        for r in q("SELECT node_guid, port_num, priority, idx, vl, weight FROM vlarb WHERE scan_id = ?"
                   " ORDER BY node_guid, port_num, priority, idx"):
            self.vlarb[(r["node_guid"], r["port_num"])][r["priority"]].append((r["vl"], r["weight"]))
        # multicast (docs/schema.md "Multicast"): groups by MGID, each switch's
        # entries by MLID; has_mcast: the scan read it
        self.has_mcast = bool(db.execute("SELECT 1 FROM scan_mcast WHERE scan_id = ?", (i,)).fetchall())
        self.groups = {r["mgid"]: r for r in q("SELECT * FROM mcast_groups WHERE scan_id = ?")}
        self.mc_tables = {r["node_guid"]: r for r in q("SELECT * FROM mcast_switch_tables WHERE scan_id = ?")}
        self.mc = collections.defaultdict(lambda: collections.defaultdict(set))
        for r in q("SELECT node_guid, mlid, port FROM mcast_forwarding WHERE scan_id = ?"):
            self.mc[r["node_guid"]][r["mlid"]].add(r["port"])

    def end(self, guid, port, names):
        n = self.nodes.get(guid)
        if n is None:
            return None
        return {"guid": guid, "port": port, "type": n["node_type"],
                "name": names.get(int(guid, 16), self.shown[guid]), "description": n["description"]}

    def remote(self, guid, port, names):
        p = self.ports.get((guid, port))
        if p is None or p["remote_guid"] is None:
            return None
        return self.end(p["remote_guid"], p["remote_port"], names)


def expected_changes(db, old_id, new_id, names):
    """The changes between two scans, worked out from the database."""
    o, n = Scan(db, old_id), Scan(db, new_id)
    out = []

    def add(kind, subject, peer=None, old=None, new=None, **extra):
        out.append(dict(kind=kind, subject=subject, peer=peer, old=old, new=new, **extra))

    for g in n.nodes.keys() - o.nodes.keys():
        add("node-added", n.end(g, 0, names))
    for g in o.nodes.keys() - n.nodes.keys():
        add("node-removed", o.end(g, 0, names))
    for g in n.nodes.keys() & o.nodes.keys():
        a, b = o.nodes[g], n.nodes[g]
        if a["description"] != b["description"]:
            add("node-description", n.end(g, 0, names), old=a["description"], new=b["description"])
        if b["node_type"] == "switch" and a["lid"] and b["lid"] and a["lid"] != b["lid"]:
            add("lid", n.end(g, 0, names), old=str(a["lid"]), new=str(b["lid"]))
        if b["node_type"] == "switch" and g in o.tables and g in n.tables and \
                "failed" not in (o.tables[g]["status"], n.tables[g]["status"]):
            top = max(o.tables[g]["fdb_top"], n.tables[g]["fdb_top"])
            compared = moved = 0
            for lid in range(1, top + 1):
                ea = 255 if lid > o.tables[g]["fdb_top"] else o.fwd[g].get(lid)
                eb = 255 if lid > n.tables[g]["fdb_top"] else n.fwd[g].get(lid)
                if ea is None or eb is None:
                    continue  # a block one of them did not read
                compared += 1
                moved += ea != eb
            if moved:
                add("routes", n.end(g, 0, names), old=str(compared), new=str(moved))
    for (g, pn), b in n.ports.items():
        a = o.ports.get((g, pn))
        if a is None:
            continue
        if (a["state"], a["phys_state"]) != (b["state"], b["phys_state"]):
            add("port-state", n.end(g, pn, names), n.remote(g, pn, names) or o.remote(g, pn, names),
                old=a["state"] or "unknown", new=b["state"] or "unknown",
                old_phys=a["phys_state"], new_phys=b["phys_state"])
        if n.nodes[g]["node_type"] != "switch" and a["lid"] and b["lid"] and a["lid"] != b["lid"] \
                and "down" not in (a["state"], b["state"]):
            add("lid", n.end(g, pn, names), old=str(a["lid"]), new=str(b["lid"]))
        ca, cb = o.counters.get((g, pn)), n.counters.get((g, pn))
        for c, bits in ERROR_COUNTERS.items():
            if not ca or not cb or c not in ca or c not in cb or ca[c] == cb[c]:
                continue
            full = (1 << bits) - 1
            if cb[c] < ca[c]:  # went down: cleared in between; at least the new value since
                add("counter-reset", n.end(g, pn, names), n.remote(g, pn, names), old=str(ca[c]),
                    new=str(cb[c]), counter=c, increase=cb[c], at_least=True, saturated=cb[c] == full)
            else:
                add("counter-increase", n.end(g, pn, names), n.remote(g, pn, names), old=str(ca[c]),
                    new=str(cb[c]), counter=c, increase=cb[c] - ca[c], at_least=cb[c] == full,
                    saturated=cb[c] == full)
        # virtual lanes: OperationalVLs of up ports, VLArbitration tables both read
        up = ("init", "armed", "active")
        if a["state"] in up and b["state"] in up and a["op_vls"] and b["op_vls"] and a["op_vls"] != b["op_vls"]:
            add("op-vls", n.end(g, pn, names), n.remote(g, pn, names), old=VLS.get(a["op_vls"], "unknown"),
                new=VLS.get(b["op_vls"], "unknown"))
        va, vb = o.vlarb.get((g, pn)), n.vlarb.get((g, pn))
        if va and vb and va != vb:
            add("vlarb", n.end(g, pn, names), n.remote(g, pn, names), old=lanes(weighted(va)),
                new=lanes(weighted(vb)))
    # SL2VL tables both scans read, counted by the port packets leave by
    per_out = collections.defaultdict(lambda: [0, 0])
    for k, t in n.sl2vl.items():
        if k in o.sl2vl and (k[0], k[2]) in n.ports:
            per_out[(k[0], k[2])][0] += 1
            per_out[(k[0], k[2])][1] += o.sl2vl[k] != t
    for (g, pn), (compared, changed) in per_out.items():
        if changed:
            add("sl2vl", n.end(g, pn, names), n.remote(g, pn, names), old=str(compared), new=str(changed))
    for k in o.links.keys() - n.links.keys():
        l = o.links[k]
        add("link-removed", o.end(k[0], k[1], names), o.end(k[2], k[3], names),
            width=l["width"] or "?", speed=l["speed"] or "?")
    for k in n.links.keys() - o.links.keys():
        l = n.links[k]
        add("link-added", n.end(k[0], k[1], names), n.end(k[2], k[3], names),
            width=l["width"] or "?", speed=l["speed"] or "?")
    for k in n.links.keys() & o.links.keys():
        for col, kind in (("width", "link-width"), ("speed", "link-speed")):
            if o.links[k][col] != n.links[k][col]:
                add(kind, n.end(k[0], k[1], names), n.end(k[2], k[3], names),
                    old=o.links[k][col], new=n.links[k][col])
    # subnet managers, by port GUID
    master = lambda s: next((g for g, r in s.sms.items() if not r["failed"] and r["state"] == "master"), None)
    sm_end = lambda s, r: s.end(r["node_guid"], r["port_num"], names) if r is not None else None
    om, nm = master(o), master(n)
    if om != nm:
        add("sm-master", sm_end(n, n.sms.get(nm)), sm_end(o, o.sms.get(om)), old=om or "none",
            new=nm or "none", **({"sm_guid": nm} if nm else {}))
    for g in o.sms.keys() - n.sms.keys():
        add("sm-vanished", sm_end(o, o.sms[g]), old=o.sms[g]["state"] or "unknown", sm_guid=g)
    for g in n.sms.keys() - o.sms.keys():
        add("sm-appeared", sm_end(n, n.sms[g]), new=n.sms[g]["state"] or "unknown", sm_guid=g)
    for g in n.sms.keys() & o.sms.keys():
        a, b = o.sms[g], n.sms[g]
        if a["failed"] or b["failed"]:
            continue
        if a["state"] != b["state"]:
            add("sm-state", sm_end(n, b), old=a["state"], new=b["state"], sm_guid=g)
        if a["priority"] != b["priority"]:
            add("sm-priority", sm_end(n, b), old=str(a["priority"]), new=str(b["priority"]), sm_guid=g)
    # modules and cables, by port: another one, or plugged or pulled when both
    # scans have modules of that fabric; a refused dump is no evidence
    ident = lambda m: " ".join(m[c] if m[c] is not None else "?"
                               for c in ("vendor", "part_number", "serial_number"))
    for fabric in ("ib", "eth"):
        om, nm = o.modules.get(fabric, {}), n.modules.get(fabric, {})
        for k in om.keys() | nm.keys():
            a, b = om.get(k), nm.get(k)
            if (a and a["refused"]) or (b and b["refused"]) or (not a or not b) and not (om and nm):
                continue
            if a and b and ident(a) == ident(b):
                continue
            where = {"subject": (n if b else o).end(k[0], k[1], names)} if fabric == "ib" else \
                {"subject": None, "eth_port": {"system": k[0], "ifname": k[1]}}
            add("module", old=ident(a) if a else "none", new=ident(b) if b else "none", **where)
    # multicast groups by MGID: created, deleted, and those whose tree moved
    # (switches whose entry differs, read in both scans; a switch only one
    # scan has counts when its entry there names a port)
    if o.has_mcast and n.has_mcast:
        hx = lambda v: "0x%04x" % v
        for g in n.groups.keys() - o.groups.keys():
            add("mcast-group-added", None, new=str(n.groups[g]["members"]), mgid=g, mlid=hx(n.groups[g]["mlid"]))
        for g in o.groups.keys() - n.groups.keys():
            add("mcast-group-removed", None, old=str(o.groups[g]["members"]), mgid=g, mlid=hx(o.groups[g]["mlid"]))
        ok = lambda s, sw: sw in s.mc_tables and s.mc_tables[sw]["status"] == "ok"
        for g in n.groups.keys() & o.groups.keys():
            om, nm = o.groups[g]["mlid"], n.groups[g]["mlid"]
            moved = 0
            for sw in n.mc_tables:
                if not ok(n, sw):
                    continue
                if sw not in o.nodes or sw not in o.mc_tables:
                    moved += bool(n.mc[sw].get(nm))
                elif ok(o, sw) and o.mc[sw].get(om, set()) != n.mc[sw].get(nm, set()):
                    moved += 1
            moved += sum(1 for sw in o.mc_tables if sw not in n.nodes and ok(o, sw) and o.mc[sw].get(om))
            if moved:
                size = lambda s, m: str(sum(1 for sw in s.mc if s.mc[sw].get(m)))
                add("mcast-tree", None, old=size(o, om), new=size(n, nm), mgid=g, mlid=hx(nm),
                    old_mlid=hx(om), switches_changed=moved)
    return out


VLS = {1: "VL0", 2: "VL0-1", 3: "VL0-3", 4: "VL0-7", 5: "VL0-14"}  # OperationalVLs (IBA 14.2.5.6)


def weighted(t):
    """The data VLs a port's VLArbitration tables give weight."""
    return {vl for vl, w in t["high"] + t["low"] if w and vl < 15}


def lanes(s):
    """'0-3,5' of a set of lanes, 'none' when empty."""
    out, v = [], sorted(s)
    while v:
        a = b = v.pop(0)
        while v and v[0] == b + 1:
            b = v.pop(0)
        out.append("%d-%d" % (a, b) if b > a else "%d" % a)
    return ",".join(out) or "none"


def canon(c):
    return json.dumps(c, sort_keys=True)


def end_text(e):
    if e is None:
        return "(not in the topology)"
    return '"%s" %s%s' % (e["name"], e["guid"], " port %d" % e["port"] if e["port"] else "")


TITLES = {
    "node-added": "nodes added", "node-removed": "nodes removed",
    "node-description": "node descriptions changed", "link-added": "links added",
    "link-removed": "links removed", "link-width": "link widths changed",
    "link-speed": "link speeds changed", "lid": "LIDs changed", "port-state": "port states changed",
    "sm-master": "master SM changed", "sm-appeared": "SMs appeared", "sm-vanished": "SMs vanished",
    "sm-state": "SM states changed", "sm-priority": "SM priorities changed",
    "counter-increase": "error counters increased",
    "counter-reset": "error counters reset (went down: cleared in between)",
    "routes": "forwarding tables changed",
    "op-vls": "operational virtual lanes changed", "sl2vl": "SL2VL tables changed",
    "vlarb": "VL arbitration tables changed",
    "module": "modules or cables changed (vendor, part or serial number), plugged or pulled",
    "mcast-group-added": "multicast groups created", "mcast-group-removed": "multicast groups deleted",
    "mcast-tree": "multicast trees changed",
}


def change_text(c):
    s, p, o, n = end_text(c["subject"]), end_text(c["peer"]), c["old"], c["new"]
    k = c["kind"]
    if k in ("node-added", "node-removed"):
        return "  %s (%s)" % (s, c["subject"]["type"])
    if k == "node-description":
        return '  %s: "%s" -> "%s"' % (s, o, n)
    if k in ("link-added", "link-removed"):
        return "  %s <-> %s (%s %s)" % (s, p, c["width"], c["speed"])
    if k in ("link-width", "link-speed"):
        return "  %s <-> %s: %s -> %s" % (s, p, o, n)
    if k == "lid":
        return "  %s: LID %s -> %s" % (s, o, n)
    if k == "routes":
        return "  %s: %s of %s LIDs leave by another port" % (s, n, o)
    if k == "op-vls":
        return "  %s: %s -> %s" % (s, o, n)
    if k == "sl2vl":
        return "  %s: %s of %s tables of packets leaving here map an SL to another VL" % (s, n, o)
    if k == "vlarb":
        return "  %s: weighted VLs %s -> %s" % (s, o, n)
    if k == "module":
        e = c.get("eth_port")
        return "  %s: %s -> %s" % ("%s/%s" % (e["system"], e["ifname"]) if e else s, o, n)
    if k in ("mcast-group-added", "mcast-group-removed"):
        m = int(n if k == "mcast-group-added" else o)
        return "  %s (MLID %s, %d member%s)" % (c["mgid"], c["mlid"], m, "" if m == 1 else "s")
    if k == "mcast-tree":
        w = c["switches_changed"]
        return "  %s (MLID %s%s): the entries of %d switch%s changed; %s -> %s switches in the tree" % (
            c["mgid"], c["mlid"], "" if c["old_mlid"] == c["mlid"] else ", was " + c["old_mlid"], w,
            "" if w == 1 else "es", o, n)
    if k == "port-state":
        t = "  %s: %s/%s -> %s/%s" % (s, o, c["old_phys"] or "unknown", n, c["new_phys"] or "unknown")
        return t + (" (cabled to %s)" % p if c["peer"] else "")
    if k == "sm-master":
        return "  %s%s -> %s%s" % (o, " on " + p if c["peer"] else "", n, " on " + s if c["subject"] else "")
    if k in ("sm-appeared", "sm-vanished"):
        return "  SM %s on %s (%s)" % (c["sm_guid"], s, n if k == "sm-appeared" else o)
    if k == "sm-state":
        return "  SM %s on %s: %s -> %s" % (c["sm_guid"], s, o, n)
    if k == "sm-priority":
        return "  SM %s on %s: priority %s -> %s" % (c["sm_guid"], s, o, n)
    if k == "counter-increase":
        return "  %s %s: %s -> %s (+%d)%s" % (s, c["counter"], o, n, c["increase"],
                                              ", saturated: at least that many" if c["saturated"] else "")
    if k == "counter-reset":
        return "  %s %s: %s -> %s (reset; %d since)" % (s, c["counter"], o, n, c["increase"])
    return None


def cmd_diff(dbpath, old_id, new_id, docpath, textpath, mappath=None):
    db, doc = connect(dbpath), load(docpath)
    old_id, new_id = int(old_id), int(new_id)
    same("command", doc["command"], "diff")
    compare_scan("old", doc["old"], db, old_id)
    compare_scan("new", doc["new"], db, new_id)
    changes = doc["changes"]
    same("n_changes", doc["n_changes"], len(changes))
    kinds = collections.Counter(c["kind"] for c in changes)
    for k, v in doc["counts"].items():
        same("counts[%s]" % k, v, kinds[k])
    for k in kinds:
        if k not in TITLES:
            bad("a change of kind %s, which this oracle does not work out from the database" % k)
    # every change as the database gives it (kinds this oracle knows)
    want = collections.Counter(canon(c) for c in expected_changes(db, old_id, new_id, name_map(mappath)))
    got = collections.Counter(canon(c) for c in changes if c["kind"] in TITLES)
    for c in (got - want):
        bad("a change the database does not show: %s" % c)
    for c in (want - got):
        bad("a change in the database that the JSON lacks: %s" % c)
    # the text: the same changes, in the same order, under a title per kind
    sc = lambda s: "scan %d (%s%s)" % (s["id"], s["started_at"],
                                       "" if s["status"] == "complete" else ", " + (s["status"] or "unknown"))
    text = ["%s -> %s: %s" % (sc(doc["old"]), sc(doc["new"]),
                              "%d change%s" % (len(changes), "" if len(changes) == 1 else "s")
                              if changes else "no changes")]
    for i, c in enumerate(changes):
        if not i or changes[i - 1]["kind"] != c["kind"]:
            text.append("%s (%d):" % (TITLES.get(c["kind"], c["kind"]), kinds[c["kind"]]))
        text.append(change_text(c))
    same_text("diff", text_lines(textpath), text)
    finish("diff: %d changes (%s), every field as the database and the text have them" %
           (len(changes), ", ".join("%d %s" % (v, k) for k, v in sorted(kinds.items()))))


# ---- rules -------------------------------------------------------------------

def rule_config_checks(doc, conf):
    """Severities and parameters the configuration sets, and the lines it sets them at."""
    cl = config_lines(conf)
    n = 0
    for r in doc["rules"]:
        set_ = cl.get(("rules", r["id"]))
        if set_:
            value, line = set_[0]
            same("%s: severity" % r["id"], r["severity"],
                 r["default_severity"] if value == "on" else value)
            same("%s: set_at_line" % r["id"], r["set_at_line"], line)
            n += 1
        else:
            same("%s: severity (not set)" % r["id"], r["severity"], r["default_severity"])
            same("%s: set_at_line (not set)" % r["id"], r["set_at_line"], None)
        for p in r["parameters"]:
            set_ = cl.get((p["section"], p["key"]))
            if set_:
                same("%s: [%s] %s" % (r["id"], p["section"], p["key"]), p["value"], set_[0][0])
                same("%s: [%s] %s line" % (r["id"], p["section"], p["key"]), p["set_at_line"], set_[0][1])
                n += 1
            else:
                same("%s: [%s] %s (not set)" % (r["id"], p["section"], p["key"]), p["value"], p["default"])
                same("%s: [%s] %s line (not set)" % (r["id"], p["section"], p["key"]), p["set_at_line"], None)
    return n


def cmd_rules(docpath, textpath, conf=None):
    doc = load(docpath)
    same("command", doc["command"], "rules")
    same("config", doc["config"], conf)
    n = rule_config_checks(doc, conf)
    # the text list: every rule not retired, in the table's order
    text = ["%-22s %-9s %-11s %s" % ("ID", "SEVERITY", "CATEGORY", "TITLE")]
    mine = False
    for r in doc["rules"]:
        if r["retired"]:
            continue
        mine |= r["set_at_line"] is not None
        text.append("%-22s %-9s %-11s %s" % (r["id"], r["severity"] + ("*" if r["set_at_line"] else ""),
                                             r["category"], r["title"]))
    if mine:
        text += ["", "* set in %s" % conf]
    # the site rules: the severity the configuration gives, the file, the title
    cl = config_lines(conf)
    if doc["site_rules_dir"] is not None:
        text += ["", "Site rules in %s:" % doc["site_rules_dir"]]
        if not doc["site_rules"]:
            text.append("  none (no *.sql file)")
        else:
            text.append("%-22s %-9s %-22s %s" % ("ID", "SEVERITY", "FILE", "TITLE"))
        mine = False
        for r in doc["site_rules"]:
            set_ = cl.get(("rules", r["id"]))
            if r["status"] != "broken":
                same("%s: severity" % r["id"], r["severity"], set_[0][0] if set_ else r["severity"])
                same("%s: set_at_line" % r["id"], r["set_at_line"], set_[0][1] if set_ else None)
                n += bool(set_)
            mine |= r["set_at_line"] is not None
            text.append("%-22s %-9s %-22s %s" % (r["id"], (r["severity"] or "broken") + ("*" if r["set_at_line"] else ""),
                                                 r["file"].rsplit("/", 1)[-1], r["title"]))
        if mine:
            text += ["", "* set in %s" % conf]
    lines = text_lines(textpath)
    same_text("rules", lines[:len(text)], text)
    finish("rules: %d rules and %d site rules, %d values set by the configuration, as the text lists them" %
           (len(doc["rules"]), len(doc["site_rules"]), n))


def wrapped(text, indent):
    """The text layout's wrap at 76 columns."""
    out, line = [], ""
    for w in [w for w in text.split(" ") if w]:
        if line and len(line) + 1 + len(w) > 76:
            out.append(line)
            line = ""
        line = indent + w if not line else line + " " + w
    if line:
        out.append(line)
    return out


def cmd_rule(docpath, textpath, conf=None):
    doc = load(docpath)
    if len(doc["rules"]) != 1:
        bad("rules show --json: %d rules, want 1" % len(doc["rules"]))
        finish("")
    n = rule_config_checks(doc, conf)
    r = doc["rules"][0]
    text = ["%s: %s" % (r["id"], r["title"]), ""]
    sev = "severity:  %s" % r["severity"]
    if r["set_at_line"]:
        sev += " (default %s; set at %s:%d)" % (r["default_severity"], conf, r["set_at_line"])
    text += [sev, "category:  %s" % r["category"],
             "needs:     %s" % (", ".join(r["needs"]) or "the topology only")]
    if r["retired"]:
        text.append("status:    retired (kept for its id; never runs)")
    text += ["", "Why it matters:"] + wrapped(r["rationale"], "  ") + [""]
    if not r["parameters"]:
        text.append("Parameters: none")
    else:
        text.append("Parameters (config file: [section] key = value):")
        for p in r["parameters"]:
            where = ", set at line %d" % p["set_at_line"] if p["set_at_line"] else ""
            text.append("  [%s] %s = %s  (default %s%s)" % (p["section"], p["key"], p["value"],
                                                           p["default"], where))
            text += wrapped(p["help"], "      ")
    text += ["", "What to do:"] + wrapped(r["remediation"], "  ") + ["", "More: %s" % r["doc"]]
    same_text("rules show", text_lines(textpath), text)
    finish("rules show %s: %d parameters, %d values set by the configuration, as the text shows them" %
           (r["id"], len(r["parameters"]), n))


COMMANDS = {"scans": (cmd_scans, 3), "check": (cmd_check, 4), "diff": (cmd_diff, 5),
            "dbinfo": (cmd_dbinfo, 3), "rules": (cmd_rules, 2), "rule": (cmd_rule, 2)}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.exit(__doc__)
    fn, nargs = COMMANDS[sys.argv[1]]
    args = sys.argv[2:]
    if not nargs <= len(args) <= nargs + 1:
        sys.exit(__doc__)
    fn(*args)
