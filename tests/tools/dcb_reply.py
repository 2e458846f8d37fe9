#!/usr/bin/env python3
"""The kernel's answer to RTM_GETDCB / DCB_CMD_IEEE_GET for one interface,
built from a description, as dcbnl_ieee_fill() lays it out: the netlink
header, struct dcbmsg, DCB_ATTR_IFNAME, the DCB_ATTR_IEEE nest
(DCB_ATTR_IEEE_ETS struct ieee_ets, DCB_ATTR_IEEE_PFC struct ieee_pfc,
DCB_ATTR_IEEE_APP_TABLE of DCB_ATTR_IEEE_APP struct dcb_app), then
DCB_ATTR_DCBX. Host byte order, as netlink is. Written independently of
fabsweep's parser (scanner/roce_dcb.c) from <linux/dcbnl.h>, for
`collect --dcb-dir` and `ready --local --dcb-dir` in the tests, where veth
has no DCB to ask (tests/integration/test_roce_ready.sh).

usage: dcb_reply.py IFNAME OUT [--pfc BITS] [--apps LIST] [--eopnotsupp]
  --pfc 0x08              PFC enable bitmap (bit n: priority n)
  --apps udp:4791=3,dscp:26=3
                          the application table (selector:protocol=priority;
                          selectors ether, tcp, udp, port, dscp)
  --eopnotsupp            an NLMSG_ERROR -95 reply instead (a NIC without DCB)
"""
import argparse
import struct
import sys

RTM_GETDCB = 78
NLMSG_ERROR = 2
DCB_CMD_IEEE_GET = 21
DCB_ATTR_IFNAME, DCB_ATTR_IEEE, DCB_ATTR_DCBX = 1, 13, 14
DCB_ATTR_IEEE_ETS, DCB_ATTR_IEEE_PFC, DCB_ATTR_IEEE_APP_TABLE = 1, 2, 3
DCB_ATTR_IEEE_APP = 1
NLA_F_NESTED = 1 << 15
SELECTORS = {"ether": 1, "tcp": 2, "udp": 3, "port": 4, "dscp": 5}
EOPNOTSUPP = 95


def attr(kind, payload, nested=False):
    head = struct.pack("=HH", 4 + len(payload), kind | (NLA_F_NESTED if nested else 0))
    pad = (-len(payload)) % 4
    return head + payload + b"\0" * pad


def nlmsg(kind, seq, body):
    return struct.pack("=IHHII", 16 + len(body), kind, 0, seq, 0) + body


def ets():
    # willing 0, ets_cap 8, cbs 0; TC0 and TC3 50 % each by ETS, the rest
    # strict; priority 3 on TC3, the others on TC0; no recommendation
    bw = bytes([50, 0, 0, 50, 0, 0, 0, 0])
    tsa = bytes([2, 0, 0, 2, 0, 0, 0, 0])
    prio_tc = bytes([0, 0, 0, 3, 0, 0, 0, 0])
    return bytes([0, 8, 0]) + bw + bw + tsa + prio_tc + bytes(24)


def pfc(bits):
    # pfc_cap 8, pfc_en, mbc 0, delay 0 (padded to 8), requests[8], indications[8]
    return struct.pack("=BBBxHxx", 8, bits, 0, 0) + bytes(128)


def apps(spec):
    out = b""
    for item in filter(None, (s.strip() for s in spec.split(","))):
        sel, rest = item.split(":")
        proto, prio = rest.split("=")
        out += attr(DCB_ATTR_IEEE_APP,
                    struct.pack("=BBH", SELECTORS[sel], int(prio), int(proto, 0)))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ifname")
    ap.add_argument("out")
    ap.add_argument("--pfc", default="0x08")
    ap.add_argument("--apps", default="")
    ap.add_argument("--eopnotsupp", action="store_true")
    a = ap.parse_args()
    if a.eopnotsupp:
        request = nlmsg(RTM_GETDCB, 1, struct.pack("=BBH", 0, DCB_CMD_IEEE_GET, 0) +
                        attr(DCB_ATTR_IFNAME, a.ifname.encode() + b"\0"))
        msg = nlmsg(NLMSG_ERROR, 1, struct.pack("=i", -EOPNOTSUPP) + request)
    else:
        ieee = (attr(DCB_ATTR_IEEE_ETS, ets()) + attr(DCB_ATTR_IEEE_PFC, pfc(int(a.pfc, 0))) +
                attr(DCB_ATTR_IEEE_APP_TABLE, apps(a.apps), nested=True))
        body = (struct.pack("=BBH", 0, DCB_CMD_IEEE_GET, 0) +
                attr(DCB_ATTR_IFNAME, a.ifname.encode() + b"\0") +
                attr(DCB_ATTR_IEEE, ieee, nested=True) +
                attr(DCB_ATTR_DCBX, bytes([0x09])))  # host-managed, IEEE
        msg = nlmsg(RTM_GETDCB, 1, body)
    with open(a.out, "wb") as f:
        f.write(msg)


if __name__ == "__main__":
    sys.exit(main())
