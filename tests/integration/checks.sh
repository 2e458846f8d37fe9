# Shared by the integration tests that count checks (source it; not a test).
#   check "what" CMD...   runs CMD: pass or "FAIL: what"; counts in $pass/$fail
#   eq A B, ge A B, has FILE TEXT, lacks FILE TEXT
#                         assertions that explain a mismatch (has shows the
#                         head of the file that lacks the text)
#   safe FILE             the file is safe on a terminal: valid UTF-8; no C0
#                         control but tab and newline, no DEL, no C1 control
#                         (U+0080..U+009F), no bidi override/isolate
#   prom_ok FILE          every line a comment or a sample of the Prometheus
#                         text format with escaped label values
pass=0 fail=0
check() {
	local what=$1
	shift
	if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $what"; fi
}
eq() { [[ "$1" == "$2" ]] || { echo "  got '$1', want '$2'"; return 1; }; }
ge() { [[ "$1" -ge "$2" ]] || { echo "  got '$1', want at least '$2'"; return 1; }; }
has() { grep -qaF -- "$2" "$1" || { echo "  $1 lacks: $2"; sed 's/^/    /' "$1" | head -40; return 1; }; }
lacks() { ! grep -qaF -- "$2" "$1" || { echo "  $1 has: $2"; return 1; }; }
safe() {
	iconv -f UTF-8 -t UTF-8 "$1" > /dev/null 2>&1 || { echo "  $(basename "$1"): not valid UTF-8"; return 1; }
	local bad='[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]'
	[[ $(LC_ALL=C grep -caP "$bad" "$1") == 0 ]] && return 0
	LC_ALL=C grep -naP "$bad" "$1" | head -3 | cat -v | sed 's/^/  /'
	return 1
}
PROM_LABEL_RE='[a-zA-Z_][a-zA-Z0-9_]*="([^"\\\x00-\x1f\x7f]|\\[\\"n])*"'
PROM_RE="^[a-zA-Z_:][a-zA-Z0-9_:]*(\\{$PROM_LABEL_RE(,$PROM_LABEL_RE)*\\})? [-+0-9.eE]+\$|^#"
prom_ok() {
	[[ $(LC_ALL=C grep -cvaP "$PROM_RE" "$1") == 0 ]] && return 0
	LC_ALL=C grep -vaP "$PROM_RE" "$1" | head -3 | cat -v | sed 's/^/  bad line: /'
	return 1
}
