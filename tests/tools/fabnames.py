# SPDX-License-Identifier: MIT
"""The name fabsweep shows for each node (docs/workflows.md "Node names"),
worked out here from the public relations' rows, independently of the C
code (core/nodename.c): for the tests' oracles (json_vs_db.py, prom_db.py,
import_vs_source.py)."""
import collections


def shown_names(rows, names=None):
    """{node_guid: name} for the rows of one scan's nodes (node_guid,
    description): the node-name-map's name (names: {guid text: name}), else
    the description; with the GUID's last six hex digits, " [..91cf00]", when
    another node of the scan has that description too (all of the GUID,
    " [0x...]", when two of those end in the same six); the GUID when there
    is no description. Devices that share a GUID: the first one's."""
    names = names or {}
    by = collections.defaultdict(list)
    for r in rows:
        by[r["description"]].append(r["node_guid"])
    out = {}
    for r in rows:
        d, g = r["description"], r["node_guid"]
        if g in out:
            continue
        if g in names:
            out[g] = names[g]
        elif not d:
            out[g] = g
        elif len(by[d]) == 1:
            out[g] = d
        elif sum(1 for o in by[d] if o[-6:] == g[-6:]) > 1:
            out[g] = "%s [%s]" % (d, g)
        else:
            out[g] = "%s [..%s]" % (d, g[-6:])
    return out
