#!/usr/bin/env bash
# The Debian package end to end: builds it with dpkg-buildpackage from a copy
# of the tree (as a clean checkout would), runs lintian on it (no error, no
# warning), installs it with dpkg -i, runs the installed fabsweep, verifies
# the installed systemd units, and purges it: nothing of it may stay but the
# database of scans in /var/lib/fabsweep (the operator's evidence).
#
# It changes the machine (dpkg -i, dpkg --purge), so it runs only as root, and
# not where fabsweep is already installed or /var/lib/fabsweep already holds
# data. It builds the package once (release flags, tests not built): CMake
# registers it in the plain build only, not in the sanitizer pass.
set -uo pipefail
: "${FABSWEEP:?} ${FABSYNTH:?} ${SRCDIR:?}"
source "$SRCDIR/tests/integration/checks.sh" # check eq ge has lacks skip wait_for

[[ $(id -u) -eq 0 ]] || skip "needs root (dpkg -i, dpkg --purge)"
need dpkg-buildpackage dh lintian systemd-analyze
if dpkg-query -W -f='${Status}' fabsweep 2>/dev/null | grep -q 'ok installed'; then
	skip "the fabsweep package is installed on this machine; this test would replace it"
fi
[[ -e /var/lib/fabsweep ]] && skip "/var/lib/fabsweep exists: data of an installation, left alone"

D=$(mktemp -d)
installed=0
cleanup() {
	((installed)) && dpkg --purge fabsweep > /dev/null 2>&1
	((installed)) && rm -rf /var/lib/fabsweep
	rm -rf "$D"
}
trap cleanup EXIT

# dpkg takes a lock that other package tools on the machine may hold a while
dpkg_locked() { # cmd...: runs it, retrying while dpkg's lock is taken
	local out
	for ((i = 0; i < 600; i++)); do
		out=$("$@" 2>&1) && return 0
		grep -q 'lock' <<< "$out" || { echo "$out" | tail -20; return 1; }
		sleep 0.2 # another dpkg holds the lock: nothing to wait on but time
	done
	echo "$out" | tail -5
	return 1
}

# ---- build from a copy of the tree: what git tracks (and new files), no build dirs
mkdir "$D/src"
if git -C "$SRCDIR" rev-parse --git-dir > /dev/null 2>&1; then
	(cd "$SRCDIR" && git ls-files -z -co --exclude-standard) |
		(cd "$SRCDIR" && tar --null -T - -cf -) | tar -xf - -C "$D/src"
else
	tar -C "$SRCDIR" --exclude='./build*' --exclude='./obj-*' -cf - . | tar -xf - -C "$D/src"
fi
check "the copy has debian/rules" test -x "$D/src/debian/rules"
version=$(cd "$D/src" && dpkg-parsechangelog -S Version)
arch=$(dpkg --print-architecture)
deb=$D/fabsweep_${version}_${arch}.deb
# The package's version is CMake's project version (the binary says it).
cmake_version=$(sed -n 's/^project(fabsweep VERSION \([0-9.]*\).*/\1/p' "$SRCDIR/CMakeLists.txt")
check "debian/changelog's version is CMake's" eq "${version%%-*}" "$cmake_version"

start=$(date +%s)
(cd "$D/src" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
	dpkg-buildpackage -us -uc -b -Pnocheck > "$D/build.log" 2>&1)
rc=$?
check "dpkg-buildpackage -us -uc -b exits 0 (log: $(tail -3 "$D/build.log" | tr '\n' ' '))" eq "$rc" 0
echo "package built in $(($(date +%s) - start)) s"
[[ -f $deb ]] || { echo "FAIL: no $deb"; ls "$D"; exit 1; }
check "fabsweep_${version}_${arch}.deb built" test -s "$deb"
dpkg-deb -c "$deb" | awk '{print $NF}' > "$D/contents"
for f in ./usr/bin/fabsweep ./etc/fabsweep/fabsweep.conf ./var/lib/fabsweep/ \
	./lib/systemd/system/fabsweep-sweep.service ./lib/systemd/system/fabsweep-sweep.timer \
	./lib/systemd/system/fabsweep-watch.service ./usr/share/man/man1/fabsweep.1.gz \
	./usr/share/man/man1/fabsweep-db.1.gz ./usr/share/fabsweep/fabsweep-prolog.sh \
	./usr/share/fabsweep/fabsweep.nhc ./usr/share/doc/fabsweep/copyright; do
	check "the package holds $f" has "$D/contents" "$f"
done
check "no test program in the package" lacks "$D/contents" fabsynth
check "the config is a conffile" eq "$(dpkg-deb -f "$deb" Package) $(dpkg-deb --ctrl-tarfile "$deb" |
	tar -xOf - ./conffiles)" "fabsweep /etc/fabsweep/fabsweep.conf"
depends=$(dpkg-deb -f "$deb" Depends)
# shlibs: the libraries the binary links, each with its package's version
for lib in libibmad5 libibnetdisc5 libibumad3 libsqlite3-0 libxml2 libc6; do
	check "Depends names $lib (from shlibs): $depends" grep -q "$lib (>= " <<< "$depends"
done

# ---- lintian: no error, no warning (overrides say why in debian/*.lintian-overrides)
# (the verdict is read from the tags: with --show-overrides, lintian 2.116's
# --fail-on counts overridden tags too)
lintian --fail-on none --pedantic -I --show-overrides "$D/fabsweep_${version}_${arch}.changes" \
	> "$D/lintian.log" 2>&1
rc=$?
sed 's/^/  lintian: /' "$D/lintian.log"
check "lintian ran" eq "$rc" 0
check "lintian checked the package, with its override" has "$D/lintian.log" \
	"O: fabsweep: non-standard-dir-perm"
check "lintian reports no error or warning" eq "$(grep -c '^[EW]: ' "$D/lintian.log")" 0

# ---- install
check "dpkg -i" dpkg_locked dpkg -i "$deb"
installed=1
check "dpkg knows it installed" eq "$(dpkg-query -W -f='${Status} ${Version}' fabsweep)" \
	"install ok installed $version"
check "/usr/bin/fabsweep help exits 0" /usr/bin/fabsweep help
check "the installed binary is version $version" eq "$(/usr/bin/fabsweep --version)" "fabsweep $version"
check "fabsweep is on PATH" eq "$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v fabsweep)" /usr/bin/fabsweep
# (a container's dpkg may be told to leave man pages out: path-exclude)
if ! grep -qs '^path-exclude.*/usr/share/man' /etc/dpkg/dpkg.cfg.d/*; then
	check "the man pages are installed" test -s /usr/share/man/man1/fabsweep.1.gz -a \
		-s /usr/share/man/man1/fabsweep-export.1.gz
fi
check "/var/lib/fabsweep is root's, 0750" eq "$(stat -c '%a %U' /var/lib/fabsweep)" "750 root"
check "the prolog is executable" test -x /usr/share/fabsweep/fabsweep-prolog.sh
check "the installed config is accepted" /usr/bin/fabsweep rules --config /etc/fabsweep/fabsweep.conf \
	> /dev/null
out=$(SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no \
	/lib/systemd/system/fabsweep-sweep.service /lib/systemd/system/fabsweep-sweep.timer \
	/lib/systemd/system/fabsweep-watch.service 2>&1)
check "systemd-analyze verify of the installed units: ${out:-clean}" eq "$out" ""
check "the units run /usr/bin/fabsweep" eq \
	"$(grep -h '^ExecStart=' /lib/systemd/system/fabsweep-{sweep,watch}.service)" \
	"$(printf 'ExecStart=/usr/bin/fabsweep sweep\nExecStart=/usr/bin/fabsweep watch --quiet')"

# The default database as root is /var/lib/fabsweep/fabsweep.db: a scan there
# (written through the real store) is what purge must leave behind.
"$FABSYNTH" --db /var/lib/fabsweep/fabsweep.db --leaves 1 --spines 1 --hosts-per-leaf 2 \
	--scans 1 > /dev/null
/usr/bin/fabsweep scans > "$D/scans" 2>&1
check "the installed fabsweep reads the default database" eq "$(grep -c '^1 .* complete ' "$D/scans")" 1
dpkg -L fabsweep > "$D/files"

# ---- purge: every file of the package goes; the database stays
check "dpkg --purge" dpkg_locked dpkg --purge fabsweep
status=$(dpkg-query -W -f='${Status}' fabsweep 2>/dev/null)
check "dpkg forgot the package (status '$status')" test -z "$status" -o "$status" = "unknown ok not-installed"
left=()
while IFS= read -r f; do
	[[ $f == /var/lib/fabsweep || $f == / || $f == /. ]] && continue
	[[ -d $f ]] && { [[ $(dpkg -S "$f" 2>/dev/null) ]] || left+=("$f"); continue; }
	[[ -e $f || -L $f ]] && left+=("$f")
done < "$D/files"
check "no file of the package left: ${left[*]}" eq "${#left[@]}" 0
check "/etc/fabsweep removed with its conffile" test ! -e /etc/fabsweep
check "the database is kept" test -s /var/lib/fabsweep/fabsweep.db
check "nothing but the database (and its WAL files) in /var/lib/fabsweep" eq \
	"$(cd /var/lib/fabsweep && find . -mindepth 1 ! -name 'fabsweep.db-wal' ! -name 'fabsweep.db-shm')" \
	"./fabsweep.db"
check "no systemd state of the units left" eq \
	"$(find /etc/systemd /var/lib/systemd -name '*fabsweep*' 2>/dev/null)" ""
rm -rf /var/lib/fabsweep
installed=0

echo "$pass passed, $fail failed"
((fail == 0))
