#!/usr/bin/env python3
"""Compares a fabsweep Prometheus textfile with the database it came from.

    prom_db.py --db DB --file FILE --scan S [--baseline B]
    prom_db.py --db DB --file FILE --scan X --watch-since P [--topology T]
        [--expect 'family{label="v",...}=VALUE']... [--version V] [--name GUID=NAME]...

Every series of every InfiniBand family is computed here, independently of
fabsweep's C code, from the rows of the public SQL interface (docs/schema.md)
and the counter model written out by hand (docs/counters.md: widths, resets,
saturation, rates, the bit error rate over each speed's lane signalling
rate): the scan's facts, nodes, ports, links, counters (the detail counters,
per-VL waits and unsupported attributes too), SMs and findings. The file must have exactly the expected series with the expected
values (relative tolerance 1e-9), no other series and no other family.

Which samples are compared:
  - export (`export prometheus --scan S [--baseline B]`, `sweep`): each
    port's latest sample of S (a sweep: the latest row of its chain) against
    B's latest of the same node GUID and port, else S's first sample when S
    took two (scan --interval), each with its own sampled_at;
  - watch (`watch --prometheus`, the file written after sweep X, when the
    write before was that of scan P: the previous complete sweep of the
    chain, or the full scan): each port's latest row of the chain at X
    against its latest row at P, the counters a row lacks (a sweep's row has
    no data counters) taken from the row before; a sample's time is the
    sweep's finished_at when that is later than its own (a full scan's own
    samples keep theirs).
    --topology T: the full scan whose header, SMs and findings the file
    carries (default: S).

--expect checks a series against a value the caller computed by hand (the
counters it injected): the series must exist and have that value.
Prints one line: what was compared; exit 0 when everything matched, 1 with
up to 20 differences otherwise.
"""
import argparse
import datetime
import math
import re
import sqlite3
import sys

from fabnames import shown_names

ERRORS = [("SymbolErrorCounter", 16), ("LinkErrorRecoveryCounter", 8),
          ("LinkDownedCounter", 8), ("PortRcvErrors", 16),
          ("PortRcvRemotePhysicalErrors", 16), ("PortRcvSwitchRelayErrors", 16),
          ("PortXmitDiscards", 16), ("PortXmitConstraintErrors", 8),
          ("PortRcvConstraintErrors", 8), ("LocalLinkIntegrityErrors", 4),
          ("ExcessiveBufferOverrunErrors", 4), ("VL15Dropped", 16)]
# data and packets: 32 bits in PortCounters, 64 in PortCountersExtended
FLOWS = [("fabsweep_port_data_bytes_total", "fabsweep_port_data_rate_bytes_per_second",
          "PortXmitData", "PortRcvData", 4),
         ("fabsweep_port_packets_total", "fabsweep_port_packet_rate_per_second",
          "PortXmitPkts", "PortRcvPkts", 1)]
# the detail counters (16 bits), read only where an error counter is not 0
DETAILS = ["PortLocalPhysicalErrors", "PortMalformedPacketErrors", "PortBufferOverrunErrors",
           "PortDLIDMappingErrors", "PortVLMappingErrors", "PortLoopingErrors",
           "PortInactiveDiscards", "PortNeighborMTUDiscards", "PortSwLifetimeLimitDiscards",
           "PortSwHOQLifetimeLimitDiscards"]
UNSUPPORTED = [(1, "PortRcvErrorDetails"), (2, "PortXmitDiscardDetails"), (4, "PortVLXmitWaitCounters")]
COUNTERS = [c for c, _ in ERRORS] + ["PortXmitWait", "PortXmitData", "PortRcvData",
                                     "PortXmitPkts", "PortRcvPkts"] + DETAILS
STATES = {"down": 1, "init": 2, "armed": 3, "active": 4}
PHYS = {"sleep": 1, "polling": 2, "disabled": 3, "training": 4, "linkup": 5,
        "errorrecovery": 6, "phytest": 7}
LANES = {"1X": 1, "2X": 2, "4X": 4, "8X": 8, "12X": 12}
LANE_GBPS = {"SDR": 2.5, "DDR": 5, "QDR": 10, "FDR10": 10, "FDR": 14, "EDR": 25,
             "HDR": 50, "NDR": 100, "XDR": 200}
# the signalling rate of a lane (Gb/s), what a bit error rate is over
LANE_GBAUD = {"SDR": 2.5, "DDR": 5, "QDR": 10, "FDR10": 10.3125, "FDR": 14.0625,
              "EDR": 25.78125, "HDR": 53.125, "NDR": 106.25, "XDR": 212.5}
SM_STATES = {"notactive": 0, "discovering": 1, "standby": 2, "master": 3}
FAMILIES = [
    "fabsweep_build_info", "fabsweep_scan_id", "fabsweep_scan_timestamp_seconds",
    "fabsweep_scan_duration_seconds", "fabsweep_scan_status", "fabsweep_scan_missed_items",
    "fabsweep_scan_checked", "fabsweep_nodes", "fabsweep_links", "fabsweep_node_info",
    "fabsweep_port_state", "fabsweep_port_phys_state", "fabsweep_port_link_width_lanes",
    "fabsweep_port_link_lane_speed_bytes_per_second",
    "fabsweep_port_link_rate_bytes_per_second", "fabsweep_port_errors_total",
    "fabsweep_port_error_saturated", "fabsweep_port_error_increase",
    "fabsweep_port_error_reset", "fabsweep_port_error_rate_per_second",
    "fabsweep_port_xmit_wait_total", "fabsweep_port_data_bytes_total",
    "fabsweep_port_packets_total", "fabsweep_port_data_rate_bytes_per_second",
    "fabsweep_port_packet_rate_per_second", "fabsweep_port_error_details_total",
    "fabsweep_port_vl_xmit_wait_total", "fabsweep_port_pma_unsupported", "fabsweep_port_ber",
    "fabsweep_port_ber_at_least", "fabsweep_sm_state", "fabsweep_sm_priority",
    "fabsweep_sm_failed", "fabsweep_sm_masters", "fabsweep_findings",
    "fabsweep_findings_by_severity"]


def ms(text):
    """'2026-12-01T02:53:55.123Z' -> Unix milliseconds."""
    t = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ")
    t = t.replace(tzinfo=datetime.timezone.utc)
    return round(t.timestamp() * 1000)


def width(counter, extended):
    for name, bits in ERRORS:
        if name == counter:
            return bits
    if counter == "PortXmitWait":
        return 32
    return 64 if extended else 32


def grew(was, now, bits):
    """(increase, reset, saturated): docs/counters.md's table."""
    saturated = bits < 64 and now == (1 << bits) - 1
    if saturated:
        return (now - was if now >= was else 0), False, True
    if now < was:
        return now, True, False
    return now - was, False, False


# ---- the file ---------------------------------------------------------------

LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')


def key(name, labels):
    return name + "{" + ",".join('%s="%s"' % kv for kv in labels) + "}"


def parse(path):
    series, families = {}, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("# TYPE "):
                families.append(line.split()[2])
                continue
            if line.startswith("#"):
                continue
            m = LINE.match(line)
            if not m:
                raise SystemExit("prom_db: not a sample line: %r" % line)
            labels = []
            if m.group(2):
                pos = 0
                for lm in LABEL.finditer(m.group(2)):
                    if lm.start() != pos:
                        raise SystemExit("prom_db: bad labels: %r" % line)
                    pos = lm.end()
                    labels.append((lm.group(1), lm.group(2)))
                if pos != len(m.group(2)):
                    raise SystemExit("prom_db: bad labels: %r" % line)
            k = key(m.group(1), labels)
            if k in series:
                raise SystemExit("prom_db: series twice: %s" % k)
            series[k] = float(m.group(3))
    return series, families


# ---- the database -----------------------------------------------------------

class Db:
    def __init__(self, path):
        self.c = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
        self.c.row_factory = sqlite3.Row

    def q(self, sql, *args):
        return self.c.execute(sql, args).fetchall()

    def one(self, sql, *args):
        r = self.q(sql, *args)
        return r[0][0] if r else None

    def scan(self, s):
        r = self.q("SELECT * FROM scans WHERE scan_id = ?", s)
        if not r:
            raise SystemExit("prom_db: no scan %s in the database" % s)
        return r[0]

    def sample(self, row, t=None):
        """A counter row -> {counter: value}, time, extended."""
        v = {c: row[c] for c in COUNTERS if row[c] is not None}
        vl = {n: row["VLXmitWait%d" % n] for n in range(16) if row["VLXmitWait%d" % n] is not None}
        at = ms(row["sampled_at"])
        return {"v": v, "vl": vl, "unsupported": row["unsupported"] or 0,
                "at": max(at, t) if t else at, "extended": bool(row["extended"])}

    def latest(self, s, t=None, keep=False):
        """(node_guid, port) -> the latest sample of scan s: its own latest,
        or for a sweep the latest row of its chain. t: the time a watch
        write gives the samples (see the module text). keep: watch's file,
        where the counters a later row lacks keep their earlier value (a
        sweep stores the error counters, the data counters stay as the full
        scan read them)."""
        sc = self.scan(s)
        topo = sc["topology_scan_id"] or s
        rows = self.q("SELECT c.* FROM port_counters c JOIN scans s USING (scan_id)"
                      " WHERE coalesce(s.topology_scan_id, s.scan_id) = ? AND c.scan_id <= ?"
                      " ORDER BY c.scan_id, c.sample", topo, s)
        out = {}
        for r in rows:  # later rows replace earlier ones
            k, new = (r["node_guid"], r["port_num"]), self.sample(r, t)
            if keep and k in out:
                kept = {c: v for c, v in out[k]["v"].items() if c not in new["v"]}
                new["v"].update(kept)
                new["extended"] = new["extended"] or (bool(kept) and out[k]["extended"])
            out[k] = new
        return out

    def first(self, s):
        """(node_guid, port) -> sample 0 of a scan that took two, for the ports that have both."""
        rows = self.q("SELECT * FROM port_counters WHERE scan_id = ? AND sample = 0"
                      " AND EXISTS (SELECT 1 FROM port_counters d WHERE d.scan_id = port_counters.scan_id"
                      " AND d.node_idx = port_counters.node_idx AND d.port_num = port_counters.port_num"
                      " AND d.sample = 1)", s)
        return {(r["node_guid"], r["port_num"]): self.sample(r) for r in rows}


# ---- what the file must say -------------------------------------------------

def expected(db, args):
    e = {}

    def put(name, labels, value):
        e[key(name, labels)] = float(value)

    s = args.scan
    head = args.topology or s
    sc = db.scan(head)
    if args.version:
        put("fabsweep_build_info", [("version", args.version)], 1)
    put("fabsweep_scan_id", [], head)
    start = ms(sc["started_at"])
    end = ms(sc["finished_at"]) if sc["finished_at"] else 0
    put("fabsweep_scan_timestamp_seconds", [], start / 1000)
    put("fabsweep_scan_duration_seconds", [], (end - start) / 1000 if end > start else 0)
    for st in ("complete", "partial", "failed"):
        put("fabsweep_scan_status", [("status", st)], sc["status"] == st)
    put("fabsweep_scan_missed_items", [], db.one("SELECT count(*) FROM scan_errors WHERE scan_id = ?", head))
    put("fabsweep_scan_checked", [], db.one("SELECT count(*) FROM checks WHERE scan_id = ?", head) > 0)

    nodes = db.q("SELECT * FROM nodes WHERE scan_id = ? ORDER BY node_idx", s)
    for t in ("switch", "ca", "router"):
        put("fabsweep_nodes", [("type", t)], sum(n["node_type"] == t for n in nodes))
    put("fabsweep_links", [], db.one("SELECT count(*) FROM links WHERE scan_id = ?", s))
    first_idx = {}
    for n in nodes:  # devices that share a GUID: the first of them
        first_idx.setdefault(n["node_guid"], n["node_idx"])
    shown = shown_names(nodes, args.names)
    for n in nodes:
        if first_idx[n["node_guid"]] == n["node_idx"]:
            name = shown[n["node_guid"]]
            put("fabsweep_node_info", [("node_guid", n["node_guid"]), ("node", name),
                                       ("description", n["description"]), ("type", n["node_type"])], 1)
    port_rows = {}
    ports = db.q("SELECT p.* FROM ports p JOIN nodes n ON n.scan_id = p.scan_id AND n.node_guid = p.node_guid"
                 " WHERE p.scan_id = ? AND n.node_idx = (SELECT min(node_idx) FROM nodes m"
                 " WHERE m.scan_id = p.scan_id AND m.node_guid = p.node_guid)", s)
    wanted = set()
    for p in ports:
        pl = [("node_guid", p["node_guid"]), ("port", str(p["port_num"]))]
        wanted.add((p["node_guid"], p["port_num"]))
        port_rows[(p["node_guid"], p["port_num"])] = p
        put("fabsweep_port_state", pl, STATES.get(p["state"], 0))
        put("fabsweep_port_phys_state", pl, PHYS.get(p["phys_state"], 0))
        lanes = LANES.get(p["width_active"] or "", 0)
        gbps = LANE_GBPS.get(p["speed_active"] or "", 0)
        if p["state"] == "active" and lanes and gbps:
            put("fabsweep_port_link_width_lanes", pl, lanes)
            put("fabsweep_port_link_lane_speed_bytes_per_second", pl, gbps * 1e9 / 8)
            put("fabsweep_port_link_rate_bytes_per_second", pl, lanes * gbps * 1e9 / 8)

    # the samples compared
    if args.watch_since is not None:
        def written(x):  # a sweep's write stamps its finished_at; a full scan's keeps its own
            x_row = db.scan(x)
            return ms(x_row["finished_at"]) if x_row["topology_scan_id"] else None
        latest = db.latest(s, written(s), keep=True)
        earlier = db.latest(args.watch_since, written(args.watch_since), keep=True)
    else:
        latest = db.latest(s)
        earlier = db.latest(args.baseline) if args.baseline else db.first(s)
    stats = {"rates": 0, "resets": 0, "saturated": 0}
    for (g, pn), to in sorted(latest.items()):
        if (g, pn) not in wanted:
            continue
        pl = [("node_guid", g), ("port", str(pn))]
        for c, bits in ERRORS:
            if c in to["v"]:
                put("fabsweep_port_errors_total", pl + [("counter", c)], to["v"][c])
                if to["v"][c] == (1 << bits) - 1:
                    put("fabsweep_port_error_saturated", pl + [("counter", c)], 1)
                    stats["saturated"] += 1
        if "PortXmitWait" in to["v"]:
            put("fabsweep_port_xmit_wait_total", pl, to["v"]["PortXmitWait"])
        for c in DETAILS:
            if c in to["v"]:
                put("fabsweep_port_error_details_total", pl + [("counter", c)], to["v"][c])
        for n, x in to["vl"].items():
            put("fabsweep_port_vl_xmit_wait_total", pl + [("vl", str(n))], x)
        for bit, attr in UNSUPPORTED:
            if to["unsupported"] & bit:
                put("fabsweep_port_pma_unsupported", pl + [("attribute", attr)], 1)
        for fam, _, x, r, scale in FLOWS:
            for d, c in (("xmit", x), ("rcv", r)):
                if c in to["v"]:
                    put(fam, pl + [("direction", d)], to["v"][c] * scale)
        fr = earlier.get((g, pn))
        if not fr or not set(fr["v"]) & set(to["v"]):
            continue
        secs = (to["at"] - fr["at"]) / 1000 if fr["at"] > 0 and to["at"] > fr["at"] else 0
        for c, bits in ERRORS:
            if c not in fr["v"] or c not in to["v"]:
                continue
            inc, reset, _ = grew(fr["v"][c], to["v"][c], bits)
            cl = pl + [("counter", c)]
            put("fabsweep_port_error_increase", cl, inc)
            put("fabsweep_port_error_reset", cl, reset)
            stats["resets"] += reset
            if secs > 0:
                put("fabsweep_port_error_rate_per_second", cl, inc / secs)
                stats["rates"] += inc > 0
        # the bit error rate: symbol errors / (lanes x lane signalling rate x secs)
        p = port_rows[(g, pn)]
        lanes = LANES.get(p["width_active"] or "", 0)
        gbaud = LANE_GBAUD.get(p["speed_active"] or "", 0)
        c = "SymbolErrorCounter"
        if c in fr["v"] and c in to["v"] and secs > 0 and lanes and gbaud:
            inc, reset, sat = grew(fr["v"][c], to["v"][c], 16)
            put("fabsweep_port_ber", pl, inc / (lanes * gbaud * 1e9 * secs))
            put("fabsweep_port_ber_at_least", pl, reset or sat)
        for _, fam, x, r, scale in FLOWS:
            for d, c in (("xmit", x), ("rcv", r)):
                if c in fr["v"] and c in to["v"] and secs > 0:
                    inc, _, _ = grew(fr["v"][c], to["v"][c], width(c, to["extended"]))
                    put(fam, pl + [("direction", d)], inc * scale / secs)

    # the subnet managers, each port GUID once
    sms = {}
    for r in db.q("SELECT * FROM sms WHERE scan_id = ?", head):
        sms.setdefault(r["port_guid"], r)
    masters = 0
    for pg, r in sms.items():
        sl = [("port_guid", pg), ("node_guid", r["node_guid"] or "")]
        put("fabsweep_sm_failed", sl, r["failed"])
        if not r["failed"]:
            put("fabsweep_sm_state", sl, SM_STATES[r["state"]])
            put("fabsweep_sm_priority", sl, r["priority"])
            masters += r["state"] == "master"
    put("fabsweep_sm_masters", [], masters)
    by_sev = {"info": 0, "warning": 0, "error": 0}
    for r in db.q("SELECT rule_id, severity, count(*) AS n FROM findings WHERE scan_id = ?"
                  " GROUP BY rule_id, severity", head):
        put("fabsweep_findings", [("rule", r["rule_id"]), ("severity", r["severity"])], r["n"])
        by_sev[r["severity"]] += r["n"]
    for sev, n in by_sev.items():
        put("fabsweep_findings_by_severity", [("severity", sev)], n)
    stats["families"] = physical(db, head, put)
    return e, stats


MODULE_FAMILIES = ["fabsweep_module_info", "fabsweep_module_temperature_celsius",
                   "fabsweep_module_supply_voltage_volts", "fabsweep_module_lane_rx_power_watts",
                   "fabsweep_module_lane_tx_power_watts", "fabsweep_module_lane_tx_bias_amperes"]


def physical(db, s, put):
    """The InfiniBand modules and cables (the modules and module_lanes
    views) and bit error ratios (port_ber): docs/workflows.md's families,
    in base units. Returns the families the file must have for them."""
    fams = []
    mods = db.q("SELECT * FROM modules WHERE scan_id = ?", s)
    if mods:
        fams += MODULE_FAMILIES
    for m in mods:
        if m["fabric"] != "ib":
            continue
        pl = [("node_guid", m["node_guid"]), ("port", str(m["port_num"]))]
        put("fabsweep_module_info", pl + [(k, m[c] or "") for k, c in (
            ("spec", "spec"), ("type", "type"), ("vendor", "vendor"), ("part_number", "part_number"),
            ("serial", "serial_number"), ("revision", "revision"))] +
            [("refused", "true" if m["refused"] else "false")], 1)
        if m["refused"]:
            continue
        for fam, c in (("fabsweep_module_temperature_celsius", "temperature_c"),
                       ("fabsweep_module_supply_voltage_volts", "voltage_v")):
            if m[c] is not None:
                put(fam, pl, m[c])
    for l in db.q("SELECT l.* FROM module_lanes l JOIN modules m USING (scan_id, fabric, module_idx)"
                  " WHERE l.scan_id = ? AND l.fabric = 'ib' AND NOT m.refused", s):
        pl = [("node_guid", l["node_guid"]), ("port", str(l["port_num"])), ("lane", str(l["lane"]))]
        for fam, c in (("fabsweep_module_lane_rx_power_watts", "rx_power_mw"),
                       ("fabsweep_module_lane_tx_power_watts", "tx_power_mw"),
                       ("fabsweep_module_lane_tx_bias_amperes", "tx_bias_ma")):
            if l[c] is not None:
                put(fam, pl, l[c] / 1000)
    ber = db.q("SELECT * FROM port_ber WHERE scan_id = ?", s)
    if ber:
        fams.append("fabsweep_port_bit_error_ratio")
    for b in ber:
        for kind in ("raw", "effective", "symbol"):
            if b[kind + "_ber"] is not None:
                put("fabsweep_port_bit_error_ratio", [("node_guid", b["node_guid"]), ("port", str(b["port_num"])),
                                                      ("kind", kind)], b[kind + "_ber"])
    return fams


def close(a, b):
    return a == b or abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", required=True)
    ap.add_argument("--file", required=True)
    ap.add_argument("--scan", type=int, required=True)
    ap.add_argument("--baseline", type=int)
    ap.add_argument("--watch-since", type=int)
    ap.add_argument("--topology", type=int)
    ap.add_argument("--version")
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("--name", action="append", default=[], help="GUID=NAME: a node-name-map name")
    args = ap.parse_args()
    args.names = dict(n.split("=", 1) for n in args.name)
    got, families = parse(args.file)
    want, stats = expected(Db(args.db), args)
    bad = []
    if families != FAMILIES + stats["families"]:
        bad.append("families: %s, want %s" % (families, FAMILIES + stats["families"]))
    if not args.version:  # the version is the caller's to check
        for k in [k for k in got if k.startswith("fabsweep_build_info{")]:
            want[k] = 1.0
    for k in sorted(set(want) | set(got)):
        if k not in got:
            bad.append("missing %s (want %r)" % (k, want[k]))
        elif k not in want:
            bad.append("unexpected %s %r" % (k, got[k]))
        elif not close(got[k], want[k]):
            bad.append("%s = %r, want %r" % (k, got[k], want[k]))
    for x in args.expect:
        k, _, v = x.rpartition("=")
        if k not in got:
            bad.append("--expect: no series %s" % k)
        elif not close(got[k], float(v)):
            bad.append("--expect: %s = %r, want %s (by hand)" % (k, got[k], v))
    for b in bad[:20]:
        print("  " + b)
    if bad:
        print("  (%d differences)" % len(bad))
        return 1
    print("%d series as the database says (%d non-zero error rates, %d resets, %d saturated, %d physical-layer"
          " families), %d by hand" % (len(got), stats["rates"], stats["resets"], stats["saturated"],
                                      len(stats["families"]), len(args.expect)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
