#!/usr/bin/env bash
# Node names on a real fabric: the ibdiagnet2 run of fixtures/real (a
# 272-node NDR fabric) has eight unmanaged switches that all describe
# themselves as "Quantum-2 Mellanox Technologies". Every output names each
# of them as "Quantum-2 Mellanox Technologies [..LAST6]" (the last six hex
# digits of its GUID, read here from the db_csv with awk), and none of them
# by the bare description: check (text, --summary, --json: subjects,
# node_name, summary), the HTML and XML reports (the XML's name attribute
# against the schema), the Prometheus export (its node label), diff against
# a second run in which one switch's cable is gone (text and --json), each
# document also read back against the database by tests/tools/json_vs_db.py
# and tests/tools/prom_db.py (which work the names out on their own,
# tests/tools/fabnames.py). A node-name-map name replaces the digits. The
# physical layer (the same fabric's cables: the physical command, the
# reports' physical sections, a diff of a swapped optic) names them alike.
set -uo pipefail
: "${FABSWEEP:?} ${SRCDIR:?}"
source "$SRCDIR/tests/integration/checks.sh"
need python3 xmllint sqlite3
need_py jsonschema
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
R=$SRCDIR/fixtures/real/ibdiagnet2/sequoia_ndr
db=$D/fab.db
Q2="Quantum-2 Mellanox Technologies"
fs() { "$FABSWEEP" "$@" --db "$db"; }
valid() { python3 "$SRCDIR/tests/tools/json_validate.py" "$SRCDIR/docs/json/$1.schema.json" "${@:2}"; }
same_as_db() { python3 "$SRCDIR/tests/tools/json_vs_db.py" "$@"; }

# the eight switches, from the file: "GUID NAME" a line, NAME as every output must give it
awk -F, -v d="\"$Q2\"" '/^START_NODES/ { on = 1; next } /^END_NODES/ { on = 0 }
	on && $1 == d { print $6 }' "$R/ibdiagnet2.db_csv" | sort >"$D/guids"
while read -r g; do echo "$g $Q2 [..${g: -6}]"; done <"$D/guids" >"$D/names"
check "the run has eight switches described \"$Q2\"" eq "$(wc -l <"$D/guids")" 8
check "  ... whose last six hex digits differ" eq "$(cut -c13- "$D/guids" | sort -u | wc -l)" 8

fs import ibdiagnet2 "$R" --quiet >/dev/null 2>&1
check "import exits 0" eq "$?" 0
# every output of these names each of the eight, and never the bare description
each_named() { # FILE [PREFIX]: every name (after PREFIX) in FILE
	local g n missing=0
	while read -r g n; do
		grep -qaF -- "${2:-}$n" "$1" || { echo "  $1 lacks ${2:-}$n ($g)"; missing=1; }
	done <"$D/names"
	return $missing
}
bare() { # FILE: no "Q2/port", "Q2 <->", "Q2:" or "Q2"" outside the nodedesc.duplicate finding
	! grep -aE "$Q2(/| <->|: |\")" "$1" | grep -av 'nodedesc.duplicate\|devices share the description\|"description"\|description="' |
		grep -aq . || { grep -aE "$Q2(/| <->|: |\")" "$1" | head -3 | sed 's/^/  bare: /'; return 1; }
}

fs check --limit 0 >"$D/check.txt"
check "check: each of the eight named in the findings" each_named "$D/check.txt"
check "check: none by the bare description" bare "$D/check.txt"
check "check: a finding's subject, by hand" has "$D/check.txt" \
	"is-north-7-compute-5 mlx5_3/1 <-> $Q2 [..91f600]/5: SymbolErrorCounter 23817 > 10"
fs check --summary --json >"$D/check.json"
check "check --summary --json validates" valid check "$D/check.json"
check "check --summary --json: every finding, node_name and group as the database says" \
	same_as_db check "$db" 1 "$D/check.json" "$D/check.txt"
check "check --json: each of the eight a node_name or peer_name" eq "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
want = dict(l.split(" ", 1) for l in open(sys.argv[2]).read().splitlines())
seen = {}
for f in d["findings"]:
    for g, n in ((f["node"], f["node_name"]), (f["peer_node"], f["peer_name"])):
        if g in want:
            seen.setdefault(g, set()).add(n)
print(sum(1 for g, n in want.items() if seen.get(g) == {n}))' "$D/check.json" "$D/names")" 8
check "check --summary --json: eight groups, one per switch, each named apart" eq "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(len({n["name"] for n in d["summary"]["by_node"] if (n["name"] or "").startswith(sys.argv[2])}))' \
	"$D/check.json" "$Q2")" 8
fs check --summary --limit 0 >"$D/summary.txt"
check "check --summary: a line per switch" each_named "$D/summary.txt" "  warning "
check "check --summary: none by the bare description" bare "$D/summary.txt"

fs report --html "$D/r.html" --xml "$D/r.xml" --no-trends >/dev/null 2>&1
check "report: the XML valid against docs/fabsweep-report.xsd" \
	xmllint --noout --schema "$SRCDIR/docs/fabsweep-report.xsd" "$D/r.xml"
check "report XML: each switch's name attribute, beside its description" eq "$(while read -r g n; do
	printf '%s\n' "$(xmllint --xpath "string(//*[local-name()='node' and @guid='$g' and @description='$Q2']/@name)" "$D/r.xml")"
	done <"$D/guids" |
	paste -sd '|')" "$(cut -d' ' -f2- "$D/names" | paste -sd '|')"
check "report HTML: each of the eight named" each_named "$D/r.html"
check "report HTML: none by the bare description" bare "$D/r.html"

fs export prometheus --out "$D/fab.prom" >/dev/null
check "export: fabsweep_node_info names each switch apart" eq "$(while read -r g n; do
	grep -cxF "fabsweep_node_info{node_guid=\"$g\",node=\"$n\",description=\"$Q2\",type=\"switch\"} 1" "$D/fab.prom"
	done <"$D/names" | paste -sd+ | bc)" 8
check "export: every series as the database says" python3 "$SRCDIR/tests/tools/prom_db.py" --db "$db" \
	--version "$("$FABSWEEP" --version | cut -d' ' -f2)" --file "$D/fab.prom" --scan 1

# a second run: one switch's cable to a host gone (its LINKS row left out)
mkdir "$D/run2"
cp "$R/ibdiagnet2.log" "$D/run2/"
awk -F, 'BEGIN { OFS = "," } /^START_LINKS/ { on = 1 } /^END_LINKS/ { on = 0 }
	on && $1 == "0xfc6a1c030091cf40" && !done { done = 1; next } { print }' \
	"$R/ibdiagnet2.db_csv" >"$D/run2/ibdiagnet2.db_csv"
fs import ibdiagnet2 "$D/run2" --quiet >/dev/null 2>&1
fs diff 1 2 >"$D/diff.txt"
fs diff 1 2 --json >"$D/diff.json"
check "diff: the link removed, its switch named with its digits" has "$D/diff.txt" "\"$Q2 [..91cf40]\" 0xfc6a1c030091cf40 port "
check "diff: none by the bare description" bare "$D/diff.txt"
check "diff --json validates" valid diff "$D/diff.json"
check "diff --json: every change, each end's name, as the database and the text" \
	same_as_db diff "$db" 1 2 "$D/diff.json" "$D/diff.txt"

# a node-name-map names one of them: its name, no digits; the others keep theirs
printf '0xfc6a1c030091cf40 "core-7a"\n' >"$D/map"
fs check --node-name-map "$D/map" --limit 0 >"$D/check-map.txt"
check "node-name-map: the mapped switch by its name" has "$D/check-map.txt" "<-> core-7a/"
check "  ... never with digits" lacks "$D/check-map.txt" "[..91cf40]"
check "  ... the others still told apart" has "$D/check-map.txt" "$Q2 [..91f600]/"

# the physical layer: the same fabric's cables (ibdiagnet2.cables of an
# earlier run, fixtures/real/README.md) put modules on every port of the
# eight switches; the physical command (text and --json, every module's
# name against tests/tools/fabnames.py's reading of the nodes view), the
# reports' physical sections and a diff of a swapped optic name each
# switch apart too
pdb=$D/phys.db
C=$SRCDIR/fixtures/real/ibdiagnet2/sequoia_ndr_cables
"$FABSWEEP" import ibdiagnet2 "$C" --db "$pdb" --quiet >/dev/null 2>&1
check "cables: import exits 0" eq "$?" 0
"$FABSWEEP" physical --db "$pdb" --top 1000 >"$D/phys.txt"
check "physical: each of the eight named" each_named "$D/phys.txt" '"'
check "physical: none by the bare description" bare "$D/phys.txt"
"$FABSWEEP" physical --db "$pdb" --json >"$D/phys.json"
check "physical --json validates" valid physical "$D/phys.json"
check "physical --json: every module's port named as the nodes view gives it; the eight apart" eq "$(python3 -c '
import json, sqlite3, sys
sys.path.insert(0, sys.argv[3])
from fabnames import shown_names
db = sqlite3.connect(sys.argv[2])
db.row_factory = sqlite3.Row
want = shown_names(db.execute("SELECT node_guid, description FROM nodes WHERE scan_id = 1").fetchall())
d = json.load(open(sys.argv[1]))
ib = [m["port"] for m in d["modules"] if m["port"]["fabric"] == "ib"]
bad = [p for p in ib if p["name"] != want[p["guid"]]]
print(len(ib), len(bad), len({p["name"] for p in ib if p["name"].startswith(sys.argv[4] + " [..")}))' \
	"$D/phys.json" "$pdb" "$SRCDIR/tests/tools" "$Q2")" "486 0 8"
"$FABSWEEP" report --db "$pdb" --html "$D/p.html" --xml "$D/p.xml" --no-trends >/dev/null 2>&1
check "report XML with modules: valid against docs/fabsweep-report.xsd" \
	xmllint --noout --schema "$SRCDIR/docs/fabsweep-report.xsd" "$D/p.xml"
check "report XML: each switch's modules carry its name" eq "$(while read -r g; do
	xmllint --xpath "//*[local-name()='physical']/*[local-name()='module' and @guid='$g']/@name" "$D/p.xml" |
		sed 's/^ *name="\(.*\)"$/\1/' | sort -u | paste -sd '/'
	done <"$D/guids" | paste -sd '|')" "$(cut -d' ' -f2- "$D/names" | paste -sd '|')"
sed -n '/<section id="physical">/,/<\/section>/p' "$D/p.html" >"$D/p-phys.html"
check "report HTML's physical section: each of the eight named" each_named "$D/p-phys.html" '>'
check "report HTML's physical section: none by the bare description" bare "$D/p-phys.html"
# one optic swapped (its serial number changed by hand, on the first switch)
mkdir "$D/swapped"
ln -s "$(readlink -f "$C/ibdiagnet2.db_csv")" "$D/swapped/ibdiagnet2.db_csv"
sed '0,/^SN: G2430283435$/s//SN: G2430283999/' "$C/ibdiagnet2.cables" >"$D/swapped/ibdiagnet2.cables"
"$FABSWEEP" import ibdiagnet2 "$D/swapped" --db "$pdb" --quiet >/dev/null 2>&1
"$FABSWEEP" diff 1 2 --db "$pdb" >"$D/pdiff.txt"
"$FABSWEEP" diff 1 2 --db "$pdb" --json >"$D/pdiff.json"
check "diff of modules: the swapped optic's switch named with its digits" has "$D/pdiff.txt" \
	"\"$Q2 [..e5b940]\" 0xb0cf0e0300e5b940 port 1: FS OSFP-SR8-800G G2430283435 -> FS OSFP-SR8-800G G2430283999"
check "diff of modules --json: each end's name as the database and the text" \
	same_as_db diff "$pdb" 1 2 "$D/pdiff.json" "$D/pdiff.txt"
"$FABSWEEP" physical --db "$pdb" --top 1000 --node-name-map "$D/map" >"$D/phys-map.txt"
check "physical with a node-name-map: the mapped switch by its name" has "$D/phys-map.txt" '"core-7a" 0xfc6a1c030091cf40 port '
check "  ... never with digits" lacks "$D/phys-map.txt" "[..91cf40]"

echo "names_real: $pass passed, $fail failed"
((fail == 0))
