#!/usr/bin/env python3
"""Compares what `fabsweep import` stored with an independent parse of the
file it read: python's csv module over ibdiagnet2.db_csv, regular
expressions over an ibnetdiscover file; never fabsweep's own output.

    import_vs_source.py ibdiagnet2    DB SCAN DIR [SCAN DIR...]    DIR/ibdiagnet2.db_csv
    import_vs_source.py ibnetdiscover DB SCAN FILE [SCAN FILE...]

Every node (GUID, type, ports, description, LID, NodeInfo ids, firmware),
every port (GUID, LID, LMC, SM LID, state, physical state, widths and
speeds active/enabled/supported, MTUs, OpVLs, VLCap, VLHighLimit, the VLArbitration
caps, CapabilityMask, the cable's
other end), every link (both ends, width, speed), every counter value
(PM_INFO, extended values where ibdiagnet read them), every SM and the
scan's row (time, status, what was skipped) are compared with the public
relations of docs/schema.md. Prints one line per disagreement (at most 20),
exit 1 when there is one; on success one line saying what it compared.
"""
import collections
import csv
import datetime
import os
import re
import sqlite3
import sys
import urllib.parse

problems = []
compared = collections.Counter()


def bad(msg):
    problems.append(msg)


def finish(what):
    """The end of one input: what was compared."""
    print("%s: %s compared" % (what, ", ".join("%d %s" % (n, k) for k, n in compared.items())))
    compared.clear()


def connect(path):
    db = sqlite3.connect("file:%s?mode=ro" % urllib.parse.quote(path), uri=True)
    db.row_factory = sqlite3.Row
    return db


def rows(db, sql, scan):
    return db.execute(sql, (scan,)).fetchall()


def guid(v):
    return "0x%016x" % int(v, 16) if v.lower().startswith("0x") else "0x%016x" % int(v)


def num(v):
    """A db_csv number: decimal or 0x hex; None for N/A."""
    if v == "N/A":
        return None
    return int(v, 16) if v.lower().startswith("0x") else int(v)


def compare(what, stored, want):
    """stored and want: {key: {column: value}}."""
    kind = what.split()[0]
    for k in sorted(want.keys() - stored.keys()):
        bad("%s %s: in the file, not in the database" % (what, k))
    for k in sorted(stored.keys() - want.keys()):
        bad("%s %s: in the database, not in the file" % (what, k))
    for k in sorted(want.keys() & stored.keys()):
        for col, v in want[k].items():
            if stored[k][col] != v:
                bad("%s %s: %s is %r in the database, %r in the file" % (what, k, col, stored[k][col], v))
        compared[kind] += 1


def stored(db, sql, scan, key, cols):
    return {tuple(r[c] for c in key) if len(key) > 1 else r[key[0]]: {c: r[c] for c in cols}
            for r in rows(db, sql, scan)}


# ---- the names of docs/schema.md ------------------------------------------------

WIDTHS = [(1, "1X", 1), (16, "2X", 2), (2, "4X", 4), (4, "8X", 8), (8, "12X", 12)]  # narrowest first
SPEEDS = [("SDR", 2.5), ("DDR", 5), ("QDR", 10), ("FDR10", 10), ("FDR", 14), ("EDR", 25), ("HDR", 50),
          ("NDR", 100), ("XDR", 200)]
STATES = {1: "down", 2: "init", 3: "armed", 4: "active"}
PHYS = {1: "sleep", 2: "polling", 3: "disabled", 4: "training", 5: "linkup", 6: "errorrecovery",
        7: "phytest"}
MTUS = {1: 256, 2: 512, 3: 1024, 4: 2048, 5: 4096}
TYPES = {1: "ca", 2: "switch", 3: "router"}
SM_STATES = {0: "notactive", 1: "discovering", 2: "standby", 3: "master"}


def width_list(mask):
    return ",".join(n for bit, n, _ in WIDTHS if mask & bit) or None


def speed_list(names):
    return ",".join(n for n, _ in SPEEDS if n in names) or None


def rate(width, speed):
    lanes = {n: l for _, n, l in WIDTHS}.get(width)
    per = dict(SPEEDS).get(speed)
    return float(lanes * per) if lanes and per else None


def clean(raw):
    """The description as the store keeps it: printable ASCII as it is, any
    other byte as \\xNN (the fixtures' descriptions are ASCII; a stricter
    sanitizer is tests/unit/core's business)."""
    return "".join(chr(b) if 0x20 <= b < 0x7f else "\\x%02x" % b for b in raw)


# ---- ibdiagnet2.db_csv -------------------------------------------------------------

# ibdiagnet's speed word: base speeds in the low byte, extended ones above
# (docs/imports.md), FDR10 in Mellanox's bit
IBD_SPEED_BITS = [(0x1, "SDR"), (0x2, "DDR"), (0x4, "QDR"), (0x10000, "FDR10"), (0x100, "FDR"),
                  (0x200, "EDR"), (0x400, "HDR"), (0x800, "NDR"), (0x1000, "XDR")]
SPEED_ORDER = [n for n, _ in SPEEDS]
COUNTERS = ["SymbolErrorCounter", "LinkErrorRecoveryCounter", "LinkDownedCounter", "PortRcvErrors",
            "PortRcvRemotePhysicalErrors", "PortRcvSwitchRelayErrors", "PortXmitDiscards",
            "PortXmitConstraintErrors", "PortRcvConstraintErrors", "LocalLinkIntegrityErrors",
            "ExcessiveBufferOverrunErrors", "VL15Dropped", "PortXmitWait", "PortXmitData", "PortRcvData",
            "PortXmitPkts", "PortRcvPkts"]
EXTENDED = {"PortXmitData": "PortXmitDataExtended", "PortRcvData": "PortRcvDataExtended",
            "PortXmitPkts": "PortXmitPktsExtended", "PortRcvPkts": "PortRcvPktsExtended"}
CASTS = {"PortUnicastXmitPkts": "PortUniCastXmitPkts", "PortUnicastRcvPkts": "PortUniCastRcvPkts",
         "PortMulticastXmitPkts": "PortMultiCastXmitPkts", "PortMulticastRcvPkts": "PortMultiCastRcvPkts"}


def ibd_speeds(word):
    return [n for bit, n in IBD_SPEED_BITS if word & bit]


def sections(path):
    """{NAME: [row dicts]}: START_NAME, a header, rows, END_NAME."""
    out, name, header = {}, None, None
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if name is None:
                if line.startswith("START_"):
                    name, header = line[6:], None
                    out[name] = []
                continue
            if line == "END_" + name:
                name = None
                continue
            fields = next(csv.reader([line]))
            if header is None:
                header = [h.strip() for h in fields]
            else:
                out[name].append(dict(zip(header, fields)))
    return out


def cmd_ibdiagnet2(dbpath, scan, directory):
    db, s = connect(dbpath), sections(os.path.join(directory, "ibdiagnet2.db_csv"))
    # the scan: the run's time, partial when stages were skipped
    run = s["RUN_INFO"][0]
    when = datetime.datetime.strptime(run["Date"][:19], "%Y-%m-%d %H:%M:%S")
    skipped = re.search(r"--skip (\S+)", run.get("Args", ""))
    sc = db.execute("SELECT * FROM scans WHERE scan_id = ?", (scan,)).fetchone()
    want = {"started_at": when.strftime("%Y-%m-%dT%H:%M:%S.000Z"), "finished_at": when.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
            "status": "partial" if skipped else "complete", "source": "ibdiagnet2:" + directory, "host": None}
    compare("scan", {scan: {k: sc[k] for k in want}}, {scan: want})
    errs = [(r["what"], r["message"]) for r in rows(db, "SELECT * FROM scan_errors WHERE scan_id = ?", scan)]
    if skipped:
        if errs != [("import", "ibdiagnet ran with --skip %s: what those stages read is not here" % skipped[1])]:
            bad("scan_errors %r: want the one import row naming --skip %s" % (errs, skipped[1]))
    elif errs:
        bad("scan_errors %r: want none (no --skip)" % errs)

    # nodes, with their firmware
    fw = {}
    for r in s.get("NODES_INFO", []):
        x = [num(r["FWInfo_Extended_" + k]) for k in ("Major", "Minor", "SubMinor")]
        c = [num(r["FWInfo_" + k]) for k in ("Major", "Minor", "SubMinor")]
        v = x if any(x) else c
        fw[guid(r["NodeGUID"])] = ("%d.%d.%d" % tuple(v) if any(v) else None, r["FWInfo_PSID"][:16] or None)
    ports = {}
    for r in s["PORTS"]:
        ports[(guid(r["NodeGuid"]), int(r["PortNum"]))] = r
    nodes = {}
    for r in s["NODES"]:
        g, t = guid(r["NodeGUID"]), TYPES[int(r["NodeType"])]
        own = sorted((p for (ng, p) in ports if ng == g))
        if t == "switch":
            lid = num(ports[(g, 0)]["LID"]) if (g, 0) in ports else None
        else:  # the first active port's
            lid = next((num(ports[(g, p)]["LID"]) for p in own if num(ports[(g, p)]["PortState"]) == 4), None)
        nodes[g] = {"node_type": t, "num_ports": int(r["NumPorts"]), "description": clean(r["NodeDesc"].encode()[:64]),
                    "sys_guid": guid(r["SystemImageGUID"]), "vendor_id": num(r["VendorID"]),
                    "device_id": num(r["DeviceID"]), "revision": num(r["revision"]), "lid": lid or None,
                    "fw_version": fw.get(g, (None, None))[0], "psid": fw.get(g, (None, None))[1]}
    compare("node", stored(db, "SELECT * FROM nodes WHERE scan_id = ?", scan, ["node_guid"], nodes[next(iter(nodes))].keys()), nodes)

    # cables: each LINKS row, both ends
    remote, links = {}, {}
    for r in s.get("LINKS", []):
        a, b = (guid(r["NodeGuid1"]), int(r["PortNum1"])), (guid(r["NodeGuid2"]), int(r["PortNum2"]))
        remote[a], remote[b] = b, a
        a, b = min(a, b), max(a, b)
        p = ports[a]
        w = width_list(num(p["LinkWidthActv"]))
        sp = ibd_speeds(num(p["LinkSpeedActv"]))
        sp = max(sp, key=SPEED_ORDER.index) if sp else None
        links[a + b] = {"width": w, "speed": sp, "rate_gbps": rate(w, sp)}
    compare("link", stored(db, "SELECT * FROM links WHERE scan_id = ?", scan,
                           ["a_guid", "a_port", "b_guid", "b_port"], ["width", "speed", "rate_gbps"]), links)

    # ports: 1..N in ports, a switch's port 0 in mgmt_ports
    want, mgmt = {}, {}
    for (g, pn), r in ports.items():
        is_switch = nodes[g]["node_type"] == "switch"
        lid = num(ports[(g, 0)]["LID"]) if is_switch and (g, 0) in ports else num(r["LID"])
        if pn == 0:
            mgmt[g] = {"port_guid": guid(r["PortGuid"]), "lid": lid, "lmc": num(r["LMC"]),
                       "sm_lid": num(r["MSMLID"]), "cap_mask": num(r["CapMsk"])}
            continue
        active = ibd_speeds(num(r["LinkSpeedActv"]))
        sp = max(active, key=SPEED_ORDER.index) if active else None
        w = width_list(num(r["LinkWidthActv"]))
        state, phys = STATES.get(num(r["PortState"])), PHYS.get(num(r["PortPhyState"]))
        far = remote.get((g, pn))
        want[(g, pn)] = {
            "port_guid": guid(r["PortGuid"]), "lid": lid, "lmc": num(r["LMC"]), "sm_lid": num(r["MSMLID"]),
            "state": state, "phys_state": phys, "width_active": w,
            "width_enabled": width_list(num(r["LinkWidthEn"])),
            "width_supported": width_list(num(r["LinkWidthSup"])), "speed_active": sp,
            "speed_enabled": speed_list(ibd_speeds(num(r["LinkSpeedEn"]))),
            "speed_supported": speed_list(ibd_speeds(num(r["LinkSpeedSup"]))),
            "rate_gbps": rate(w, sp) if state and state != "down" else None,
            "mtu_active": MTUS.get(num(r["NMTU"])), "mtu_cap": MTUS.get(num(r["MTUCap"])),
            "op_vls": num(r["OpVLs"]), "cap_mask": num(r["CapMsk"]),
            "vl_cap": num(r["VLCap"]), "vl_high_limit": num(r["VLHighLimit"]),
            "vlarb_high_cap": num(r["VLArbHighCap"]), "vlarb_low_cap": num(r["VLArbLowCap"]),
            "remote_guid": far[0] if far else None, "remote_port": far[1] if far else None,
            "no_remote": int(phys == "linkup" and far is None),
        }
    compare("port", stored(db, "SELECT * FROM ports WHERE scan_id = ?", scan, ["node_guid", "port_num"],
                           next(iter(want.values())).keys()), want)
    compare("mgmt_port", stored(db, "SELECT * FROM mgmt_ports WHERE scan_id = ?", scan, ["node_guid"],
                                ["port_guid", "lid", "lmc", "sm_lid", "cap_mask"]), mgmt)

    # counters: PM_INFO, one sample at the run's time
    want = {}
    for r in s.get("PM_INFO", []):
        key = (guid(r["NodeGUID"]), int(r["PortNumber"]))
        ext = all(r.get(c, "N/A") != "N/A" for c in EXTENDED.values())
        vals = {c: num(r[c]) for c in COUNTERS if r.get(c, "N/A") != "N/A"}
        if ext:
            vals.update({c: num(r[e]) for c, e in EXTENDED.items()})
            vals.update({c: num(r[e]) for c, e in CASTS.items() if r.get(e, "N/A") != "N/A"})
        for c, v in vals.items():
            want[key + (c,)] = {"value": v, "sample": 0, "extended": int(ext),
                                "sampled_at": when.strftime("%Y-%m-%dT%H:%M:%S.000Z")}
    compare("counter", stored(db, "SELECT * FROM counters WHERE scan_id = ?", scan,
                              ["node_guid", "port_num", "counter"], ["value", "sample", "extended", "sampled_at"]), want)

    # subnet managers
    want = {}
    for r in s.get("SM_INFO", []):
        g, pn = guid(r["NodeGUID"]), int(r["PortNumber"])
        p = ports.get((g, pn))
        lid = num(ports[(g, 0)]["LID"]) if p and nodes[g]["node_type"] == "switch" else (num(p["LID"]) if p else None)
        want[guid(r["PortGUID"])] = {"state": SM_STATES[num(r["SmState"])], "priority": num(r["Priority"]),
                                     "act_count": num(r["ActCount"]), "node_guid": g if p else None,
                                     "port_num": pn if p else None, "lid": lid, "failed": 0}
    compare("sm", stored(db, "SELECT * FROM sms WHERE scan_id = ?", scan, ["port_guid"],
                         ["state", "priority", "act_count", "node_guid", "port_num", "lid", "failed"]), want)
    cables = os.path.join(directory, "ibdiagnet2.cables")
    if os.path.exists(cables):
        compare_cables(db, scan, cables, ports)
    finish("ibdiagnet2 %s" % directory)


# ---- ibdiagnet2.cables ------------------------------------------------------------


def cables_records(path):
    """Each record: its header's port and GUID, then "Key: value" lines."""
    recs, cur = [], None
    for line in open(path, encoding="utf-8", errors="surrogateescape"):
        line = line.rstrip("\n")
        m = re.match(r"^Port=(\d+) Lid=\S+ GUID=(0x[0-9a-fA-F]+)", line)
        if m:
            cur = {"_port": int(m[1]), "_guid": guid(m[2])}
            recs.append(cur)
        elif cur is not None and ":" in line and not line.startswith(("#", "-")):
            k, v = line.split(":", 1)
            cur.setdefault(k.strip(), v.strip())
    return recs


def unknown(v):
    """ibdiagnet's words for unknown, and its -999.999 mW."""
    return v in ("N/A", "NA", "") or v.startswith("inf") or v.startswith("-999.999")


def first_number(v):
    m = re.match(r"^-?\d+(\.\d+)?", v)
    return float(m[0]) if m and not unknown(v) else None


def compare_cables(db, scan, path, ports):
    """Every record whose port the run lists (by node GUID and port number,
    else a CA's port GUID): identity, monitors, thresholds and every lane."""
    by_port_guid = {guid(r["PortGuid"]): (guid(r["NodeGuid"]), int(r["PortNum"])) for r in ports.values()}
    want, lanes = {}, {}
    for r in cables_records(path):
        key = (r["_guid"], r["_port"])
        if key not in ports:
            alt = by_port_guid.get(r["_guid"])
            key = alt if alt and alt[1] == r["_port"] else None
        if key is None or key in want:
            continue
        temp, volt = first_number(r["Temperature"]), first_number(r["Supply Voltage Reporting"])
        mon = not (temp == 0 and volt == 0)
        ident = re.sub(r"\s*\(.*", "", r["Identifier"])
        date = r["DateCode"]

        def lim(name, scale=1.0, dbm=False):
            v = r.get(name, "N/A")
            if unknown(v):
                return None
            x = first_number(v)
            return (x - 65536 if dbm and x >= 32768 else x) * scale

        th = {"temp": ("AlarmTemperatureHighThresh", "AlarmTemperatureLowThresh", "WarnTemperatureHighThresh",
                       "WarnTemperatureLowThresh", 1.0, False),
              "vcc": ("AlarmVoltageHighThresh", "AlarmVoltageLowThresh", "WarnVoltageHighThresh",
                      "WarnVoltageLowThresh", 1e-6, False),
              "bias": ("TXBiasHighThresh", "TXBiasLowThresh", None, None, 0.002, False),
              "tx_power": ("TXPowerHighThresh", "TXPowerLowThresh", None, None, 1.0, True),
              "rx_power": ("RXPowerHighThresh", "RXPowerLowThresh", None, None, 1.0, True)}
        cols = {}
        for mon_name, (ha, la, hw, lw, scale, dbm) in th.items():
            vals = [lim(n, scale, dbm) if n else None for n in (ha, la, hw, lw)]
            if all(v in (None, 0) for v in vals):  # all 0: none
                vals = [None] * 4
            sfx = {"bias": "_ma", "tx_power": "_dbm", "rx_power": "_dbm"}.get(mon_name, "")
            for kind, v in zip(("hi_alarm", "lo_alarm", "hi_warn", "lo_warn"), vals):
                cols["%s_%s%s" % (mon_name, kind, sfx)] = v
        want[key] = dict(cols, **{
            "type": ident or None, "vendor": r["Vendor"] or None, "part_number": r["PN"] or None,
            "serial_number": r["SN"] or None, "revision": r["Rev"] or None,
            "date_code": ("20" + date) if re.match(r"^\d\d-\d\d-\d\d$", date) else (date or None),
            "media": r["Type"] or None, "length_m": first_number(r["Length"]), "spec": "ibdiagnet2.cables",
            "monitors": int(mon), "temperature_c": temp if mon else None,
            "voltage_v": volt / 1e6 if mon else None, "refused": 0, "flags_valid": 0})
        n = 0
        while "TX%d Bias" % (n + 1) in r or "RX%d Power" % (n + 1) in r:
            n += 1
            get = lambda k: first_number(r.get(k, "N/A")) if mon else None
            rx, tx = get("RX%d Power" % n), get("TX%d Power" % n)
            lanes[key + (n,)] = {"rx_power_mw": rx if rx is None or rx >= 0 else None,
                                 "tx_power_mw": tx if tx is None or tx >= 0 else None,
                                 "tx_bias_ma": get("TX%d Bias" % n)}
        want[key]["lanes"] = n
    cols = next(iter(want.values())).keys()
    got = stored(db, "SELECT * FROM modules WHERE scan_id = ? AND fabric = 'ib'", scan, ["node_guid", "port_num"], cols)
    for k in got:  # thresholds and values are REAL: compare them rounded
        for c, v in got[k].items():
            if isinstance(v, float):
                got[k][c] = round(v, 6)
    for k in want:
        for c, v in want[k].items():
            if isinstance(v, float):
                want[k][c] = round(v, 6)
    compare("module", got, want)
    compare("module_lane", stored(db, "SELECT * FROM module_lanes WHERE scan_id = ? AND fabric = 'ib'", scan,
                                  ["node_guid", "port_num", "lane"], ["rx_power_mw", "tx_power_mw", "tx_bias_ma"]),
            lanes)


# ---- ibnetdiscover ---------------------------------------------------------------------

HEADER = re.compile(r'^(Switch|Ca|Rt)\s*(\d+)\s*"([SHR])-([0-9a-fA-F]+)"\s*#\s*"(.*)"(.*)$')
PORT = re.compile(r'^\[(\d+)\](?:\(([0-9a-fA-F]+)\)|\([^)]*\))*\s*"([SHR?])-([0-9a-fA-F]+)"\[(\d+)\]'
                  r'(?:\([^)]*\))*\s*#\s*(.*)$')
RATE = re.compile(r"\b(\d+)x([A-Z0-9]+)\s*$")


def cmd_ibnetdiscover(dbpath, scan, path):
    """The common layout of ibnetdiscover and ibdiagnet2.ibnetdiscover: a
    header line per node, a port line per cabled port."""
    db = connect(dbpath)
    nodes, ports, cur = {}, {}, None
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            line = line.strip().lstrip("\ufeff")
            h = HEADER.match(line)
            if h:
                g = guid("0x" + h[4])
                lid = re.search(r"\blid (\d+)", h[6])
                cur = g
                nodes[g] = {"node_type": {"Switch": "switch", "Ca": "ca", "Rt": "router"}[h[1]],
                            "num_ports": int(h[2]), "description": clean(h[5].encode()[:64]),
                            "lid": int(lid[1]) if lid and h[1] == "Switch" else None}
                continue
            p = PORT.match(line)
            if p and cur:
                rest = p[6]
                own_lid = re.match(r"lid (\d+)", rest) if nodes[cur]["node_type"] != "switch" else None
                rt = RATE.search(rest)
                width = {1: "1X", 2: "2X", 4: "4X", 8: "8X", 12: "12X"}.get(int(rt[1])) if rt else None
                speed = rt[2] if rt and rt[2] in dict(SPEEDS) else None
                ports[(cur, int(p[1]))] = {
                    "port_guid": guid("0x" + p[2]) if p[2] and nodes[cur]["node_type"] != "switch" else cur,
                    "own_lid": int(own_lid[1]) if own_lid else None,
                    "width_active": width, "speed_active": speed,
                    "remote_guid": guid("0x" + p[4]), "remote_port": int(p[5])}
    for (g, pn), p in sorted(ports.items()):  # a CA's LID: its lowest port's
        if nodes[g]["node_type"] == "switch":
            p["lid"] = nodes[g]["lid"]
        else:
            p["lid"] = p["own_lid"]
            if nodes[g]["lid"] is None and p["own_lid"] is not None:
                nodes[g]["lid"] = p["own_lid"]
        del p["own_lid"]
        p.update(state="active", phys_state="linkup", rate_gbps=rate(p["width_active"], p["speed_active"]))
    compare("node", stored(db, "SELECT * FROM nodes WHERE scan_id = ?", scan, ["node_guid"],
                           ["node_type", "num_ports", "description", "lid"]), nodes)
    compare("port", stored(db, "SELECT * FROM ports WHERE scan_id = ?", scan, ["node_guid", "port_num"],
                           ["port_guid", "lid", "width_active", "speed_active", "remote_guid", "remote_port",
                            "state", "phys_state", "rate_gbps"]), ports)
    links = {}
    for (g, pn), p in ports.items():
        a, b = (g, pn), (p["remote_guid"], p["remote_port"])
        if ports.get(b, {}).get("remote_guid") == g and ports[b]["remote_port"] == pn:
            first = min(a, b)
            links[min(a, b) + max(a, b)] = {k: ports[first][k] for k in ("width_active", "speed_active")}
    compare("link", {k: {"width_active": v["width"], "speed_active": v["speed"]} for k, v in
                     stored(db, "SELECT * FROM links WHERE scan_id = ?", scan,
                            ["a_guid", "a_port", "b_guid", "b_port"], ["width", "speed"]).items()}, links)
    finish("ibnetdiscover %s" % path)


if __name__ == "__main__":
    cmds = {"ibdiagnet2": cmd_ibdiagnet2, "ibnetdiscover": cmd_ibnetdiscover}
    if len(sys.argv) < 5 or len(sys.argv) % 2 == 0 or sys.argv[1] not in cmds:
        sys.exit(__doc__)
    for i in range(3, len(sys.argv), 2):
        cmds[sys.argv[1]](sys.argv[2], int(sys.argv[i]), sys.argv[i + 1])
    for p in problems[:20]:
        print(p)
    if len(problems) > 20:
        print("... and %d more" % (len(problems) - 20))
    sys.exit(1 if problems else 0)
