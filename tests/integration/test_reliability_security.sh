#!/usr/bin/env bash
# What fabsweep does on the fabric and what it needs to run (docs/security.md):
#  - every MAD the process sends (its own and libibnetdisc's) is a Get,
#    except with --reset-counters: then PortCounters(Extended) Sets to the
#    PMA and nothing else; only the SMP (LID and directed route) and PerfMgt
#    classes are used. Seen by a preloaded shim that logs umad_send();
#  - the only InfiniBand device opened is a umad port, never issm (the same
#    shim logs open()); the binary does not even refer to issm;
#  - as an unprivileged user (nobody): scans, check, report and export work
#    on a database it owns, and scan works against the simulator, where
#    umad2sim stands in for /dev/infiniband (access to the umad device is the
#    one privilege a real scan needs: docs/security.md).
set -uo pipefail
: "${FABSWEEP:?} ${FABGEN:?} ${SRCDIR:?}"
source "$SRCDIR/scripts/fabsim.sh"
D=$(mktemp -d)
trap 'fabsim_stop "$D/sim" >/dev/null 2>&1; rm -rf "$D"' EXIT
pass=0 fail=0
check() { # description, then a command that must succeed
	local what=$1
	shift
	if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $what"; fi
}
eq() { [[ "$1" == "$2" ]] || { echo "  got '$1', want '$2'"; return 1; }; }
none() { # no line of file $1 matches the extended regex $2
	! grep -qE -- "$2" "$1" || { grep -E -- "$2" "$1" | sort | uniq -c | head -5 | sed 's/^/  /'; return 1; }
}
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }

# ---- the spy: logs every MAD sent through libibumad and every open()
cat > "$D/madspy.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/umad.h>

static void logline(const char *line)
{
	const char *log = getenv("MADSPY_LOG");
	static int (*real_open)(const char *, int, ...);
	if (!log)
		return;
	if (!real_open)
		real_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	int fd = real_open(log, O_WRONLY | O_APPEND | O_CREAT, 0644);
	if (fd >= 0) {
		if (write(fd, line, strlen(line)) < 0) {}
		close(fd);
	}
}

int umad_send(int fd, int agentid, void *umad, int length, int timeout_ms, int retries)
{
	static int (*real)(int, int, void *, int, int, int);
	const uint8_t *m = umad_get_mad(umad);
	char line[80];

	if (!real)
		real = (int (*)(int, int, void *, int, int, int))dlsym(RTLD_NEXT, "umad_send");
	snprintf(line, sizeof(line), "mad class 0x%02x method 0x%02x attr 0x%04x\n",
		 m[1], m[3], (unsigned)(m[16] << 8 | m[17]));
	logline(line);
	return real(fd, agentid, umad, length, timeout_ms, retries);
}

#define WRAP_OPEN(name)                                                        \
	int name(const char *path, int flags, ...)                             \
	{                                                                      \
		static int (*real)(const char *, int, ...);                   \
		char line[4200];                                               \
		va_list ap;                                                    \
		va_start(ap, flags);                                           \
		mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0; \
		va_end(ap);                                                    \
		if (!real)                                                     \
			real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, #name); \
		snprintf(line, sizeof(line), "open %s\n", path);               \
		logline(line);                                                 \
		return real(path, flags, mode);                                \
	}
WRAP_OPEN(open)
WRAP_OPEN(open64)
EOF
cc -shared -fPIC -O2 -o "$D/madspy.so" "$D/madspy.c" -libumad -ldl ||
	{ echo "FAIL: cannot build the MAD spy (cc, libibumad-dev)"; exit 1; }

"$FABGEN" --leaves 2 --spines 1 --hosts-per-leaf 3 -o "$D/net" || exit 1
fabsim_start "$D/net" "$D/sim" --sm-prio 10 --sm2-host leaf002 --sm2-prio 5 > /dev/null ||
	{ echo "FAIL: simulator did not start"; exit 1; }
spy_scan() { # log file, then scan options
	local log=$1
	shift
	(
		source "$D/sim/env"
		cd "$D/sim/scratch" || exit 1
		MADSPY_LOG=$log LD_PRELOAD=$D/madspy.so:$FABSIM_LD_PRELOAD "$FABSWEEP" scan --db "$D/fab.db" --quiet "$@"
	)
}

# ---- 1. Gets only
spy_scan "$D/get.log"
check "scan exits 0" eq "$?" 0
check "the spy saw the scan's MADs" test "$(grep -c '^mad ' "$D/get.log")" -gt 50
check "the spy saw libibnetdisc's discovery too (DR NodeInfo)" grep -q 'mad class 0x81 method 0x01 attr 0x0011' "$D/get.log"
check "every MAD is a Get" none "$D/get.log" '^mad .* method 0x(0[^1]|[1-9a-f].)'
check "only SMP (LID, directed route) and PerfMgt classes" none "$D/get.log" '^mad class 0x(0[^14]|[1-79a-f].|8[^1])'
grep '^mad ' "$D/get.log" | sort | uniq -c | sed 's/^/  seen: /'
spy_scan "$D/reset.log" --reset-counters
check "scan --reset-counters exits 0" eq "$?" 0
check "--reset-counters: Sets are sent" grep -q 'method 0x02' "$D/reset.log"
check "--reset-counters: the only Sets are PortCounters(Extended) to the PMA" none "$D/reset.log" \
	'^mad (class 0x(0[^4]|[^0].).* method 0x02|class 0x04 method 0x02 attr 0x(00[^1]|001[^2d]))'
check "--reset-counters: one reset per port read" eq \
	"$(grep -c 'class 0x04 method 0x02 attr 0x0012' "$D/reset.log")" \
	"$(sqlite3 -readonly "$D/fab.db" "SELECT count(DISTINCT node_guid || '/' || port_num) FROM counters
	   WHERE scan_id = (SELECT max(scan_id) FROM scans)")"

# ---- 2. no issm
check "the only InfiniBand devices opened are umad ports" none "$D/get.log" '^open /dev/infiniband/(issm|[^u])'
check "a umad port was opened" grep -q '^open /dev/infiniband/umad' "$D/get.log"
check "the binary does not refer to an issm device" eq "$(strings -a "$FABSWEEP" | grep -c issm)" 0
check "nor imports umad_get_issm_path" eq "$(nm -D --undefined-only "$FABSWEEP" 2>/dev/null | grep -c issm)" 0

# ---- 3. unprivileged
chmod 0755 "$D" "$D/sim"
mkdir "$D/user"
chown nobody:nogroup "$D/user"
cp "$D/fab.db" "$D/user/fab.db"
chown nobody:nogroup "$D/user/fab.db"
cd "$D/user" || exit 1
as_nobody "$FABSWEEP" scans --db fab.db > /dev/null
check "nobody: scans" eq "$?" 0
as_nobody "$FABSWEEP" check --db fab.db --quiet
check "nobody: check (exit 0 or 1)" test "$?" -le 1
as_nobody "$FABSWEEP" report --db fab.db --html r.html --xml r.xml > /dev/null
check "nobody: report" eq "$?" 0
as_nobody "$FABSWEEP" export prometheus --db fab.db --out fab.prom --quiet
check "nobody: export prometheus" eq "$?" 0
as_nobody "$FABSWEEP" diff --db fab.db 1 2 > /dev/null
check "nobody: diff" eq "$?" 0
# a scan as nobody, umad2sim standing in for /dev/infiniband; the default
# database of a user that is not root is ./fabsweep.db
(
	source "$D/sim/env"
	unset FABSWEEP_DB
	LD_PRELOAD=$FABSIM_LD_PRELOAD as_nobody "$FABSWEEP" scan --quiet
)
check "nobody: scan on the simulator" eq "$?" 0
check "nobody: the default database is ./fabsweep.db, owned by nobody" eq \
	"$(stat -c %U "$D/user/fabsweep.db" 2>/dev/null)" nobody
check "nobody: its snapshot is whole" eq \
	"$(sqlite3 -readonly "$D/user/fabsweep.db" 'SELECT count(*) FROM nodes')" \
	"$(sqlite3 -readonly "$D/fab.db" 'SELECT count(*) FROM nodes WHERE scan_id = 1')"
cd / || exit 1

echo "reliability_security: $pass passed, $fail failed"
((fail == 0))
