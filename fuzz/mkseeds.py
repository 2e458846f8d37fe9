#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seed corpora of the fuzz targets whose inputs are binary
(fuzz/corpus/{mad,lldp,dcb,text,module,ethtool}/). Run from the repository root:

    python3 fuzz/mkseeds.py

The output is committed; run this again only to change a seed. Layouts:
the header comment of each fuzz/fuzz_<name>.c. The LLDP seeds reuse the
real TLVs of fixtures/lldp/ (see its README.md for their provenance); the
MAD payloads follow the InfiniBand Architecture Specification's attribute
layouts (NodeInfo, PortInfo, SMInfo, ClassPortInfo, PortCounters,
PortCountersExtended), the DCB reply the kernel's uapi <linux/dcbnl.h>.
The module seeds reuse the real dumps of fixtures/modules/ (README.md there
gives their provenance) and lay out SFF-8472 and CMIS images from the
specifications; the ethtool seeds reuse the real `ethtool -S` outputs of
fixtures/ethtool/ and lay out netlink replies from <linux/ethtool_netlink.h>.
"""
import os
import struct

ROOT = os.path.dirname(os.path.abspath(__file__))


def write(target, name, data):
    d = os.path.join(ROOT, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(bytes(data))


def pad64(b):
    b = bytes(b)
    assert len(b) <= 64, len(b)
    return b + bytes(64 - len(b))


def pad192(b):
    """PerfMgt answers carry 192 bytes of data, SMPs 64."""
    b = bytes(b)
    assert len(b) <= 192, len(b)
    return b + bytes(192 - len(b))


# ---- MAD payloads (big-endian, offsets in the attribute) -------------------

def node_info(ntype, nports, guid, port_guid, lport, sysguid=None):
    return pad64(struct.pack(">BBBBQQQHHIB", 1, 1, ntype, nports,
                             sysguid or guid, guid, port_guid, 0xffff,
                             0x1021, 0xa0, lport) + b"\x00\x02\xc9")


def port_info(state, phys, lid=0, capmask=0, width=2, speed=4,
              mtu=5, smlid=1, ext_speed=0):
    b = bytearray(64)
    struct.pack_into(">HHI", b, 16, lid, smlid, capmask)
    b[29] = 3            # LinkWidthEnabled 1X,4X
    b[30] = 3            # LinkWidthSupported
    b[31] = width        # LinkWidthActive
    b[32] = 7 << 4 | state       # LinkSpeedSupported, PortState
    b[33] = phys << 4 | 2        # PortPhysicalState, LinkDownDefault
    b[35] = speed << 4 | 7       # LinkSpeedActive, LinkSpeedEnabled
    b[36] = mtu << 4             # NeighborMTU
    b[41] = 5                    # MTUCap (low nibble)
    b[43] = 4 << 4               # OperationalVLs
    b[62] = ext_speed << 4 | 0xf  # LinkSpeedExtActive, ExtSupported
    b[63] = 0xf                   # LinkSpeedExtEnabled
    return bytes(b)


def desc(text):
    return pad64(text.encode() if isinstance(text, str) else text)


def sminfo(guid, act, prio, state):
    return pad64(struct.pack(">QQIB", guid, 0, act, prio << 4 | state))


def class_port_info(cap, cap2=0):
    return pad192(struct.pack(">BBHI", 1, 1, cap, cap2 << 5 | 18))


def port_counters(sym=0, rcv_err=0, xmit_data=0, wait=0):
    b = bytearray(64)
    struct.pack_into(">H", b, 4, sym)
    b[6] = 1             # LinkErrorRecoveryCounter
    b[7] = 2             # LinkDownedCounter
    struct.pack_into(">H", b, 8, rcv_err)
    struct.pack_into(">IIIII", b, 24, xmit_data, xmit_data // 2, 1000, 900, wait)
    return pad192(b)


def port_counters_ext(data):
    """Data and packet counters, the four IETF ones, then the 64-bit error
    counters (IsAddlPortCtrsExtSup) and PortXmitWait."""
    return pad192(struct.pack(">BBHI", 0, 1, 0xffff, 0) +
                  struct.pack(">8Q", data, data * 2, data // 64, data // 32,
                              10, 11, 12, 13) +
                  struct.pack(">12Q", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12) +
                  struct.pack(">Q", 99))


GOOD = 0x06  # answer, oldest request, payload follows


def ans(payload, ctl=GOOD):
    return [bytes([ctl]) + payload]


ME, LEAF, HOST2 = 0x0002c90300000001, 0x0002c90300000100, 0x0002c90300000200


def mad_happy_answers():
    """A CA (IsSM, LID 2) behind which the repair pass finds a 4-port leaf
    (LID 1) and a second host (LID 3); one master SM; counters of every
    active port, extended ones on the switch."""
    out = []
    out += ans(desc("host01 HCA-1"))                        # NodeDesc of me
    out += ans(node_info(2, 4, LEAF, LEAF, 1))              # behind my port 1
    out += ans(desc("leaf01"))
    out += ans(port_info(4, 5, lid=1, capmask=0x4000))      # leaf port 0
    out += ans(port_info(4, 5, lid=1))                      # leaf port 1 (to me)
    out += ans(port_info(4, 5, lid=1, width=1))             # port 2: a 1X link
    out += ans(port_info(1, 2))                             # port 3 down
    out += ans(port_info(1, 3))                             # port 4 disabled
    out += ans(node_info(1, 1, HOST2, HOST2 + 1, 1))        # behind leaf port 2
    out += ans(desc(b"host02 \x1b[2J\xff"))
    out += ans(port_info(4, 5, lid=3))                      # host02 port 1
    out += ans(sminfo(ME + 1, 1234, 14, 3))                 # SMInfo at LID 2
    out += ans(class_port_info(0x1000))                     # CPI of me
    out += ans(class_port_info(0x1200, 0x2))                # CPI of the leaf
    out += ans(class_port_info(0x1000))                     # CPI of host02
    out += ans(port_counters(sym=5, xmit_data=4000, wait=9))  # me port 1
    out += ans(port_counters(rcv_err=3, xmit_data=5000))    # leaf port 1
    out += ans(port_counters_ext(1 << 40))
    out += ans(port_counters(sym=0xffff, xmit_data=0xffffffff))  # leaf port 2
    out += ans(port_counters_ext(3))
    out += ans(port_counters(xmit_data=6000))               # host02 port 1
    return out


def mad_start(cfg, port_state=4, capmask=0x2):
    return bytes([cfg]) + node_info(1, 1, ME, ME + 1, 1) + \
        port_info(port_state, 5 if port_state == 4 else 2, lid=2, capmask=capmask)


def mad_happy(cfg):
    return mad_start(cfg) + b"".join(mad_happy_answers())


def mad_seeds():
    write("mad", "happy_window1", mad_happy(0x00))
    write("mad", "happy_window4_retries1", mad_happy(0x09))
    write("mad", "happy_reset_counters", mad_happy(0x20))
    # the same answers, each preceded by a lost try (window 1, retries 3)
    answers = mad_happy_answers()
    write("mad", "lossy_retries3",
          mad_start(0x18) + b"".join(b"\x00" + a for a in answers))
    # tries that must be retried or ignored before the good answer: the
    # request bounced, BUSY, an answer to another attribute, a foreign TID
    noise = (b"\x01\x03\x04\x00\x99", b"\x01\x05\x12\x34\x56\x78\x03")
    write("mad", "noise_retries3", mad_start(0x18) + b"".join(
        noise[i % 2] + a for i, a in enumerate(answers)))
    # SMInfo and one PortCounters answered with an error status
    bad = list(answers)
    bad[11] = b"\x02\x00\x0c"    # SMInfo: invalid attribute value
    bad[16] = b"\x02\x00\x04"    # PortCounters of my port
    write("mad", "error_status", mad_start(0x00) + b"".join(bad))
    # every answer comes twice: the second is late, for a finished request
    write("mad", "duplicates", mad_start(0x00) + b"".join(
        bytes([a[0] | 0x40]) + a[1:] + a for a in answers))
    # a switch that answers NodeInfo with LocalPortNum 0, a CA with 0 ports,
    # an unknown node type, and a GUID seen twice on different paths
    odd = [mad_start(0x18, capmask=0)]
    odd += ans(desc(b"A" * 64))                       # 64 bytes, no NUL
    odd += ans(node_info(2, 8, LEAF, LEAF, 0))
    odd += ans(desc("leaf-lport0"))
    for p in range(9):
        odd += ans(port_info(4, 5, lid=1))
    odd += ans(node_info(1, 0, HOST2, HOST2, 1))
    odd += ans(node_info(7, 1, HOST2, HOST2, 1))
    odd += ans(node_info(1, 1, ME, ME + 1, 1))        # me, through the leaf
    write("mad", "odd_nodeinfo", b"".join(odd))
    write("mad", "port_down", mad_start(0x40, port_state=1))
    # behind the leaf's port 2 a device answers with my own GUID: two
    # devices share it; both must be flagged, the scan must go on
    dup = [mad_start(0x00)]
    dup += ans(desc("host01"))
    dup += ans(node_info(2, 4, LEAF, LEAF, 1))
    dup += ans(desc("leaf01"))
    dup += ans(port_info(4, 5, lid=1)) + ans(port_info(4, 5, lid=1))
    dup += ans(port_info(4, 5, lid=1)) + ans(port_info(1, 2)) + ans(port_info(1, 2))
    dup += ans(node_info(1, 1, ME, ME + 1, 1))
    dup += ans(sminfo(ME + 1, 7, 1, 3))
    write("mad", "dup_guid", b"".join(dup))


# ---- LLDP: fuzz_lldp framing of fixtures/lldp ------------------------------

def tlv_8021(sub, info):
    return bytes([0x01, sub]) + struct.pack(">H", len(info)) + info


def lldp_seeds():
    fx = os.path.join(ROOT, "..", "fixtures", "lldp")
    subs = {"ets_cfg": 9, "ets_reco": 10, "pfc": 11, "app": 12}
    allv = b""
    for f in sorted(os.listdir(fx)):
        if not f.endswith(".bin"):
            continue
        sub = next(v for k, v in subs.items() if f.endswith(k + ".bin"))
        with open(os.path.join(fx, f), "rb") as fh:
            info = fh.read()
        write("lldp", f[:-4], tlv_8021(sub, info))
        if f.startswith("juniper"):
            allv += tlv_8021(sub, info)
    write("lldp", "juniper_all_tlvs", allv)
    # RoCE v2 port with two APP TLVs (the second continues the table), a
    # foreign OUI, a bad PFC length, and an 802.1 TLV of another subtype
    roce = tlv_8021(11, b"\x08\x08")
    roce += tlv_8021(12, b"\x00" + bytes([3 << 5 | 3]) + struct.pack(">H", 4791))
    roce += tlv_8021(12, b"\x00" + bytes([3 << 5 | 5]) + struct.pack(">H", 26))
    roce += b"\x00\x00\x12\x0f\x04\x00\x03abc"        # 802.3 OUI, subtype 4
    roce += tlv_8021(11, b"\x08")                      # PFC one byte short
    roce += tlv_8021(7, b"\x00\x01")                   # link aggregation
    write("lldp", "roce_pfc_app_mixed", roce)
    write("lldp", "system_name_hostile",
          b"\x00\x00\x12\xbb\x01\x00\x18" + b"<b>\x1b]52;c;SGk=\x07\xc2\x9b\xe2\x80\xae")


# ---- DCB: a full DCB_CMD_IEEE_GET reply (little-endian host) ---------------

def nla(atype, payload):
    n = 4 + len(payload)
    return struct.pack("<HH", n, atype) + payload + bytes((-n) % 4)


def dcb_seeds():
    for f in ("reply_lo_eopnotsupp.bin", "reply_veth_eopnotsupp.bin"):
        with open(os.path.join(ROOT, "..", "fixtures", "dcb", f), "rb") as fh:
            write("dcb", f[:-4], fh.read())
    ets = bytes([0, 8, 0]) + bytes([50, 0, 0, 50, 0, 0, 0, 0]) + bytes(8) \
        + bytes([2, 0, 0, 2, 0, 0, 0, 0]) + bytes([0, 0, 0, 3, 0, 0, 0, 0]) + bytes(24)
    pfc = bytes([8, 0x08, 0, 0]) + struct.pack("<H", 0) + bytes(2) + bytes(128)
    apps = nla(1, bytes([5, 3]) + struct.pack("<H", 26)) + \
        nla(1, bytes([3, 3]) + struct.pack("<H", 4791))
    body = nla(1, b"enp1s0f0\x00") + \
        nla(13, nla(1, ets) + nla(2, pfc) + nla(3, apps)) + nla(14, b"\x0a")
    msg = struct.pack("<IHHII", 16 + 4 + len(body), 78, 0, 42, 0) + \
        bytes([0, 21, 0, 0]) + body
    write("dcb", "ieee_full_reply", msg)
    many = b"".join(nla(1, bytes([i % 8, i % 8]) + struct.pack("<H", i))
                    for i in range(140))
    body = nla(1, b"eth0\x00") + nla(13, nla(3, many))
    write("dcb", "app_table_140_entries",
          struct.pack("<IHHII", 20 + len(body), 78, 0, 1, 0) + bytes([0, 21, 0, 0]) + body)


# ---- text: capacity byte, then the raw bytes --------------------------------

def text_seeds():
    write("text", "plain", b"\x40" + b"leaf01 HCA-1")
    write("text", "terminal_escapes", b"\xff" + b"\x1b[2J\x1b]52;c;SGVsbG8=\x07\x1b[31mred\x9b1m")
    write("text", "markup_quotes", b"\x80" + b"<script>alert(1)</script>'\"&amp;")
    write("text", "invalid_utf8", b"\x20" + b"\xff\xfe\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80\xe2\x82")
    write("text", "bidi_c1", b"\x10" + "\u202egnp.exe \u2066x\u0085".encode())
    write("text", "desc_64_no_nul", b"\x00" + b"D" * 63 + b"\xe2\x82\xac" + b"E" * 8)
    write("text", "nul_inside", b"\x08" + b"abc\x00\x1b[2J")


# ---- module: a mode byte, then a dump (fuzz_module.c) ------------------------

FIX = os.path.join(ROOT, "..", "fixtures")


def hex_dump(path):
    """The bytes of an `ethtool -m hex on` dump."""
    out = bytearray()
    with open(path) as f:
        for line in f:
            if ":" not in line or not line.strip().startswith("0x"):
                continue
            out += bytes(int(b, 16) for b in line.split(":", 1)[1].split())
    return bytes(out)


def put16(b, off, v):
    struct.pack_into(">H", b, off, v & 0xffff)


def cc(b, first, last, at):
    b[at] = sum(b[first:last]) & 0xff


def sff8472_image():
    img = bytearray(512)
    a2 = memoryview(img)[256:]
    img[0:4] = bytes([0x03, 0x04, 0x07, 0x10])
    img[20:36] = b"FINISAR CORP.   "
    img[40:56] = b"FTLX8571D3BCL   "
    img[68:84] = b"ABC1234         "
    img[84:92] = b"21063000"
    img[92] = 0x68
    cc(img, 0, 63, 63)
    cc(img, 64, 95, 95)
    for off, v in ((0, 75 * 256), (2, -5 * 256), (4, 70 * 256), (32, 10000), (34, 400),
                   (36, 7943), (38, 631), (96, 0x1980), (98, 33000), (100, 3000),
                   (102, 5000), (104, 3162)):
        struct.pack_into(">H", a2, off, v & 0xffff)
    a2[110], a2[112], a2[113] = 0x02, 0x88, 0x70
    a2[95] = sum(a2[0:95]) & 0xff
    return bytes(img)


def cmis_image():
    img = bytearray(768)
    p0, p1, p2, p11 = 128, 256, 384, 640
    img[0] = img[p0] = 0x19
    img[1] = 0x50
    put16(img, 14, 0x2d00)
    put16(img, 16, 32500)
    img[86:89] = bytes([0x11, 0x0e, 0x44])
    img[p0 + 1:p0 + 17] = b"NVIDIA          "
    img[p0 + 20:p0 + 36] = b"MMA4Z00-NS      "
    img[p0 + 38:p0 + 54] = b"MT2330FT00001   "
    img[p0 + 54:p0 + 62] = b"230725  "
    img[p0 + 202 - 128] = 0x43
    cc(img, p0, p0 + 94, p0 + 94)
    img[p1 + 160 - 128] = 0x0f
    img[p1 + 151 - 128] = 0x10
    for off, v in ((0, 80 * 256), (2, -5 * 256), (4, 75 * 256), (6, 0)):
        put16(img, p2 + off, v)
    for k in range(8):
        put16(img, p11 + 154 - 128 + 2 * k, 8000 + k)
        put16(img, p11 + 170 - 128 + 2 * k, 3000)
        put16(img, p11 + 186 - 128 + 2 * k, 0 if k == 5 else 6000)
    img[p11 + 147 - 128] = 0x20
    return bytes(img)


def module_seeds():
    q640 = hex_dump(os.path.join(FIX, "modules", "qsfp28_mma1b00_640b.hex"))
    q256 = hex_dump(os.path.join(FIX, "modules", "qsfp28_mma1b00_256b.hex"))
    sfp = hex_dump(os.path.join(FIX, "modules", "sfp_netgear_agm734.hex"))
    assert len(q640) == 640 and len(q256) == 256, (len(q640), len(q256))
    write("module", "flat_qsfp28_640", b"\x00" + q640)
    write("module", "flat_qsfp28_256", b"\x00" + q256)
    write("module", "flat_sfp_copper", b"\x00" + sfp)
    write("module", "flat_sff8472_ddm", b"\x00" + sff8472_image())
    write("module", "flat_cmis_osfp", b"\x00" + cmis_image())
    # pages: lower, no A2h, pages 00h-03h of the QSFP28
    have = bytes([1, 1, 1, 1]) + bytes(0x12 - 4)
    write("module", "pages_qsfp28", b"\x01" + b"\x01\x00" + have + q640[:128] + q640[128:640])
    cmis = cmis_image()
    have = bytearray(0x12)
    for pg in (0, 1, 2, 0x11):
        have[pg] = 1
    write("module", "pages_cmis", b"\x01" + b"\x01\x00" + bytes(have) + cmis[:128] + cmis[128:512] + cmis[640:768])
    with open(os.path.join(FIX, "modules", "qsfp28_mma1b00_256b.hex"), "rb") as f:
        write("module", "hex_qsfp28_256", b"\x02" + f.read())


# ---- ethtool: a mode byte, a driver byte, then the data (fuzz_ethtool.c) -------

def nlattr(t, payload):
    a = struct.pack("<HH", 4 + len(payload), t) + payload
    return a + bytes((4 - len(a) % 4) % 4)


def genl(cmd, body, seq=7):
    return struct.pack("<IHHII", 20 + len(body), 30, 0, seq, 0) + bytes([cmd, 1, 0, 0]) + body


def ethtool_seeds():
    for f, drv in (("mlx5_overload_k6.5.stats", 0), ("bnxt_en.stats", 1), ("mlx5_connectx4lx.stats", 0)):
        with open(os.path.join(FIX, "ethtool", f), "rb") as fh:
            text = fh.read()
        write("ethtool", "text_" + f.replace(".stats", ""), bytes([1, drv]) + text)
        # the same names as a GSTRINGS table with GSTATS values
        pairs = []
        for line in text.decode().splitlines():
            k, sep, v = line.strip().partition(": ")
            if sep and v.strip().isdigit() and not k.startswith("["):
                pairs.append((k.encode()[:32], int(v)))
        pairs = pairs[:255]
        names = b"".join(k + bytes(32 - len(k)) for k, _ in pairs)
        vals = b"".join(struct.pack("<Q", v & (2**64 - 1)) for _, v in pairs)
        write("ethtool", "gstrings_" + f.replace(".stats", ""), bytes([0, drv, len(pairs)]) + names + vals)
    write("ethtool", "gstrings_unterminated", bytes([0, 2, 2]) + b"rx_crc_errors_phy" + b"\xff" * 15 +
          b"x" * 32 + struct.pack("<QQ", 5, 2**64 - 1))
    stat = lambda t, v: nlattr(0x8000 | 4, nlattr(t, struct.pack("<Q", v)))
    grp = lambda gid, stats: nlattr(0x8000 | 4, nlattr(2, struct.pack("<I", gid)) + nlattr(3, struct.pack("<I", 0)) + stats)
    write("ethtool", "nl_stats", bytes([2, 0]) + genl(33, grp(0, stat(0, 17)) + grp(1, stat(3, 123456789012) + stat(5, 9))))
    write("ethtool", "nl_pause", bytes([2, 0]) + genl(22, nlattr(0x8000 | 5, nlattr(2, struct.pack("<Q", 1000)) +
                                                                   nlattr(3, struct.pack("<Q", 2000)))))
    write("ethtool", "nl_fec", bytes([2, 0]) + genl(30, nlattr(0x8000 | 5, nlattr(2, struct.pack("<QQ", 77, 70)) +
                                                                 nlattr(3, struct.pack("<Q", 4)))))
    write("ethtool", "nl_error", bytes([2, 0]) + struct.pack("<IHHIIiIHHII", 36, 2, 0, 10, 0, -95, 20, 0, 0, 0, 0))
    q = hex_dump(os.path.join(FIX, "modules", "qsfp28_mma1b00_256b.hex"))
    write("ethtool", "nl_module_eeprom", bytes([3, 0]) + genl(32, nlattr(7, q[:128])))


if __name__ == "__main__":
    mad_seeds()
    lldp_seeds()
    dcb_seeds()
    text_seeds()
    module_seeds()
    ethtool_seeds()
