#!/usr/bin/env bash
# Installs the Debian packages fabsweep needs to build, test and run the demo,
# when any is missing. Sourced by demo.sh and test.sh; safe to run alone.
set -euo pipefail

FABSWEEP_PACKAGES=(
	build-essential cmake pkg-config
	libibumad-dev libibmad-dev libibnetdisc-dev
	libsqlite3-dev sqlite3 libxml2-dev libxml2-utils libcmocka-dev
	liblldpctl-dev lldpd iproute2 ethtool
	ibsim-utils opensm infiniband-diags
	valgrind groff-base systemd
	libjansson-dev libcurl4-openssl-dev prometheus-alertmanager python3-jsonschema
	dpkg-dev debhelper lintian prometheus
)
# Only what the browser test needs; it skips itself (and says so) without it.
FABSWEEP_OPTIONAL_PACKAGES=(chromium)

fabsweep_install_deps() {
	local missing=() p
	for p in "${FABSWEEP_PACKAGES[@]}" "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing+=("$p")
	done
	((${#missing[@]})) || return 0
	if [[ $(id -u) -ne 0 ]]; then
		echo "fabsweep: missing Debian packages: ${missing[*]}; install them as root (apt-get install ${missing[*]})" >&2
		return 1
	fi
	echo "fabsweep: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
	fabsweep_install_deps "$@"
fi
