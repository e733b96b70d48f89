#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The part of tests/integration/deb_roundtrip.sh that runs inside the root,
# in its own pid, network and mount namespaces, as an administrator would
# with PCP's pmcd running: the agents' ./Install and ./Remove (with
# systemd, without, and where pmcd cannot be restarted), an upgrade while
# pmcd runs them, and purges in several states of the Install record.
# Usage: sh deb_agents.sh PACKAGE... (v1 installed, v2's .debs in /tmp/v2).
# Writes "ok - ..." / "not ok - ..." lines and "# " notes to /tmp/agents/tap
# for deb_roundtrip.sh to report, and its logs beside them.
out=/tmp/agents
rm -rf $out && mkdir -p $out
tap=$out/tap
conf=/etc/pcp/pmcd/pmcd.conf
mmv=/var/lib/pcp/pmdas/mmv-sdk
trace=/var/lib/pcp/pmdas/trace
pkgs=$*
# no systemctl anywhere on this PATH (the root has no systemd)
nosd=/usr/sbin:/usr/bin:/sbin:/bin
PATH=$nosd
export PATH DEBIAN_FRONTEND=noninteractive

# t DESCRIPTION SHELL-TEXT [LOG]: ok if SHELL-TEXT succeeds; else not ok,
# with LOG's last lines as notes.
t() {
	if eval "$2"; then
		echo "ok - $1" >> $tap
	else
		echo "not ok - $1" >> $tap
		[ -z "${3:-}" ] || tail -25 "$3" | sed 's/^/# /' >> $tap
	fi
}
# poll SHELL-TEXT: until it succeeds, for up to 10 s
poll() {
	_i=0
	while ! eval "$1"; do
		[ $_i -lt 20 ] || return 1
		sleep 0.5
		_i=$((_i + 1))
	done
}
served() { pminfo -f pmcd.agent.status 2> /dev/null | grep -q "\"$1\"] value 0\$"; }
# our agent processes: "PID EXE"
agents() {
	for p in /proc/[0-9]*; do
		e=$(readlink $p/exe 2> /dev/null) || continue
		case $e in
		$mmv/pmdammv* | $trace/pmdatrace*) echo "${p#/proc/} $e" ;;
		esac
	done
}
# pmcd.conf FILE with the given agents' lines taken out and, for mmv,
# Debian's line put in its place: Debian's pmcd.conf again if nothing
# else changed
debian_but() {
	awk -v dl="$dline" -v which=" $2 " '
	$1 == "mmv" && $2 == 70 && index(which, " mmv ") { print dl; next }
	$1 == "trace" && $2 == 10 && index(which, " trace ") { next }
	{ print }' "$1"
}
apt() { apt-get -q -y "$@"; }

cp $conf $out/conf.debian
dline=$(grep '^mmv[[:space:]]' $out/conf.debian)
/etc/init.d/pmcd start > $out/pmcd.log 2>&1
t "pmcd starts with Debian's pmcd.conf and serves Debian's mmv; no systemctl on PATH" \
	'served mmv && ! command -v systemctl > /dev/null' $out/pmcd.log

# Remove without Install: Debian's mmv line is not ours; trace has no line.
$mmv/Remove > $out/remove0.log 2>&1
rc=$?
$trace/Remove >> $out/remove0.log 2>&1
t "./Remove of both without Install: exit 0, pmcd.conf unchanged, Debian's mmv served (rc $rc $?)" \
	"[ $rc = 0 ] && [ $? = 0 ] && cmp -s $conf $out/conf.debian && served mmv" $out/remove0.log

# Install both without systemd; mmv as a daemon (the default), so the
# upgrade below has a process to look at.
$mmv/Install < /dev/null > $out/install1.log 2>&1
rc=$?
$trace/Install < /dev/null >> $out/install1.log 2>&1
t "./Install of both without systemd: exit 0, both served (rc $rc $?)" \
	"[ $rc = 0 ] && [ $? = 0 ] && ! grep -q 'not found' $out/install1.log && served mmv && served trace" \
	$out/install1.log
t "./Install put ours in pmcd.conf for mmv and trace" \
	"grep -Eq '^mmv	70	pipe	binary[[:space:]]+$mmv/pmdammv' $conf &&
	 grep -Eq '^trace	10	pipe	binary[[:space:]]+$trace/pmdatrace' $conf" $conf
t "./Install changed no other byte of pmcd.conf (mmv's line where Debian's was)" \
	"debian_but $conf 'mmv trace' | cmp -s - $out/conf.debian" $conf

# The C guide's first program (demos/quickstart, which deb_roundtrip.sh
# copied to /tmp/quickstart and built), rebuilt with its Makefile on the
# -dev packages and run as the guide runs it: the system's PCP_TMP_DIR,
# the trace agent ./Install set up; read back through pmcd while it runs
# (so the MMV agent samples its histogram) and once it has ended.
# requests_are G P: pmcd serves mmv.quickstart.requests GET G and POST P
requests_are() {
	pminfo -f mmv.quickstart.requests 2> /dev/null |
		grep -c -e "\"GET\"] value $1\$" -e "\"POST\"] value $2\$" | grep -qx 2
}
traced_is() { pminfo -f trace.transact.count 2> /dev/null | grep -q "\"request\"] value $1\$"; }
percentiles() { [ "$(pminfo -f mmv.percentile.quickstart.latency 2> /dev/null | grep -c '^ *value [0-9]')" = 3 ]; }
qs=/tmp/quickstart
rc=1
if make -C $qs clean all > $out/quickstart.log 2>&1; then
	$qs/first 4 > $out/first.out 2>> $out/quickstart.log &
	poll 'pminfo -f mmv.quickstart.requests 2> /dev/null | grep -q "POST\"] value [1-9]"'
	wait $!
	rc=$?
fi
set -- $(sed -n 's/^served \([0-9]*\) GET and \([0-9]*\) POST requests, \([0-9]*\) traced$/\1 \2 \3/p' $out/first.out)
G=${1:-none} P=${2:-none} T=${3:-none}
t "the guide's first, rebuilt and run 4 s beside pmcd: exit 0, each request traced (rc $rc: $G GET, $P POST, $T traced)" \
	"[ $rc = 0 ] && [ -n '${3:-}' ] && [ $T = \$(($G + $P)) ]" $out/quickstart.log
t "... pminfo through pmcd: mmv.quickstart.requests GET $G, POST $P" "poll 'requests_are $G $P'" $out/quickstart.log
t "... trace.transact.count[request] $T, from our trace agent" "poll 'traced_is $T'"
t "... our MMV agent's percentiles of the latency histogram (p50, p90, p99) have values" "poll percentiles"

# Upgrade while pmcd runs both: the postinst restarts pmcd.
agents > $out/agents.before
apt-get -q -y install --no-install-recommends /tmp/v2/*.deb > $out/upgrade.log 2>&1
rc=$?
agents > $out/agents.after
cut -d' ' -f1 $out/agents.after > $out/pids.after
cat $out/agents.before $out/agents.after >> $out/upgrade.log
t "upgrade with both agents running: exit 0, pmcd restarted them (new processes, no deleted program), both served" \
	"[ $rc = 0 ] && [ \$(wc -l < $out/agents.before) = 2 ] && [ \$(wc -l < $out/agents.after) = 2 ] &&
	 ! grep -q deleted $out/agents.after &&
	 ! cut -d' ' -f1 $out/agents.before | grep -qxF -f $out/pids.after &&
	 served mmv && served trace" $out/upgrade.log

# Where policy-rc.d forbids service restarts (as in container images), a
# reinstall leaves pmcd alone and says so.
printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
chmod +x /usr/sbin/policy-rc.d
apt-get -q -y install --reinstall /tmp/v2/pcp-sdk-pmda-mmv_*.deb > $out/reinstall.log 2>&1
rc=$?
rm -f /usr/sbin/policy-rc.d
agents >> $out/reinstall.log
t "reinstall where policy-rc.d forbids restarts: exit 0, pmcd not restarted, says so (rc $rc)" \
	"[ $rc = 0 ] && grep -q 'policy-rc.d forbids' $out/reinstall.log && grep -q 'pmdammv (deleted)' $out/reinstall.log" \
	$out/reinstall.log

# Remove without systemd: Debian's line back, served when Remove returns.
$mmv/Remove > $out/remove1.log 2>&1
t "./Remove of mmv without systemd: exit 0, Debian's mmv served when it returns (rc $?)" \
	"[ $? = 0 ] && ! grep -q 'not found' $out/remove1.log && served mmv" $out/remove1.log
t "pmcd.conf is Debian's again, but for our trace line" \
	"debian_but $conf trace | cmp -s - $out/conf.debian" $conf

# Remove again: nothing of ours is left, Debian's line stays.
cp $conf $out/conf.removed
$mmv/Remove > $out/remove2.log 2>&1
t "./Remove of mmv a second time: exit 0, pmcd.conf unchanged, Debian's mmv still served (rc $?)" \
	"[ $? = 0 ] && cmp -s $conf $out/conf.removed && grep -q 'nothing to do' $out/remove2.log && served mmv" \
	$out/remove2.log

# A systemctl on PATH: one standing for a systemd host's (restarts pmcd
# through PCP's init script), used only when systemd runs.
mkdir -p /tmp/fakesd
cat > /tmp/fakesd/systemctl <<'EOS'
#!/bin/sh
echo "$*" >> /tmp/agents/systemctl.log
[ "$*" != "restart pmcd.service" ] || exec /etc/init.d/pmcd restart
EOS
chmod +x /tmp/fakesd/systemctl
$mmv/Install < /dev/null > $out/install2.log 2>&1
PATH=/tmp/fakesd:$nosd $mmv/Remove > $out/remove3.log 2>&1
t "./Remove with a systemctl on PATH but no systemd running: the init script restarts pmcd (rc $?)" \
	"[ $? = 0 ] && [ ! -e $out/systemctl.log ] && grep -q 'init.d/pmcd restart' $out/remove3.log && served mmv" \
	$out/remove3.log
$mmv/Install < /dev/null > $out/install3.log 2>&1
mkdir -p /run/systemd/system
PATH=/tmp/fakesd:$nosd $mmv/Remove > $out/remove4.log 2>&1
rc=$?
rmdir /run/systemd/system
t "./Remove on a systemd host: systemctl restart pmcd.service, Debian's mmv served (rc $rc)" \
	"[ $rc = 0 ] && grep -qx 'restart pmcd.service' $out/systemctl.log && served mmv" $out/remove4.log

# The DSO, non-interactively; then pmcd.conf changed by hand before Remove.
echo dso | $mmv/Install > $out/install4.log 2>&1
t "echo dso | ./Install: our DSO in pmcd.conf, served (rc $?)" \
	"[ $? = 0 ] && grep -q '^mmv	70	dso	mmv_init	$mmv/pmda_mmv.so' $conf && served mmv" $out/install4.log
echo '# a change of the administrator' >> $conf
$mmv/Remove > $out/remove5.log 2>&1
t "./Remove after pmcd.conf changed since Install: exit 0, says so, Debian's line back in place, the change kept (rc $?)" \
	"[ $? = 0 ] && grep -q 'changed since Install' $out/remove5.log && served mmv &&
	 [ \"\$(tail -1 $conf)\" = '# a change of the administrator' ] &&
	 sed '\$d' $conf | debian_but - trace | cmp -s - $out/conf.debian" $out/remove5.log
sed -i '$d' $conf

# pmcd cannot be restarted: no systemd and no init script.
$mmv/Install < /dev/null > $out/install5.log 2>&1
PCP_RC_DIR=/nonexistent $mmv/Remove > $out/remove6.log 2>&1
t "./Remove where pmcd cannot be restarted: says so, exit non-zero (rc $?)" \
	"[ $? != 0 ] && grep -q 'Cannot restart pmcd' $out/remove6.log" $out/remove6.log
/etc/init.d/pmcd restart > $out/restart.log 2>&1
t "... with Debian's line back in pmcd.conf, served once pmcd is restarted by hand" \
	'for i in 1 2 3 4 5 6 7 8 9 10; do served mmv && break; sleep 1; done; served mmv' $out/restart.log

# A stopped pmcd: Remove edits pmcd.conf and leaves pmcd stopped.
$mmv/Install < /dev/null > $out/install6.log 2>&1
/etc/init.d/pmcd stop >> $out/install6.log 2>&1
$mmv/Remove > $out/remove7.log 2>&1
t "./Remove with pmcd stopped: exit 0, Debian's line back, pmcd left stopped (rc $?)" \
	"[ $? = 0 ] && ! pminfo -f pmcd.agent.status > /dev/null 2>&1 &&
	 debian_but $conf trace | cmp -s - $out/conf.debian" $out/remove7.log
/etc/init.d/pmcd start >> $out/remove7.log 2>&1
t "... served from pmcd's next start" 'served mmv' $out/remove7.log

# Purge with both Installed: their prerm's Remove gives pmcd.conf back.
$mmv/Install < /dev/null > $out/install7.log 2>&1
apt purge $pkgs > $out/purge1.log 2>&1
t "purge with both agents Installed, no systemd: exit 0, Debian's mmv served (rc $?)" \
	"[ $? = 0 ] && served mmv && ! served trace" $out/purge1.log
t "... pmcd.conf is Debian's byte for byte" "cmp -s $conf $out/conf.debian" $conf
t "... dpkg -V pcp is clean, pmcd.conf included" '[ -z "$(dpkg -V pcp)" ]'

# Purge with mmv's record lost and trace Removed twice.
apt install --no-install-recommends /tmp/v2/*.deb > $out/install8.log 2>&1
$mmv/Install < /dev/null >> $out/install8.log 2>&1
rm -f $mmv/pmcd.conf.*
$trace/Install < /dev/null >> $out/install8.log 2>&1
$trace/Remove >> $out/install8.log 2>&1
$trace/Remove >> $out/install8.log 2>&1
t "trace Removed twice: its line gone, our mmv line untouched" \
	"! grep -q '^trace' $conf && grep -q '^mmv	70	pipe	binary[[:space:]]*$mmv/' $conf" $out/install8.log
apt purge $pkgs > $out/purge2.log 2>&1
t "purge with mmv's Install record lost: exit 0, Debian's mmv line back and served (rc $?)" \
	"[ $? = 0 ] && served mmv && cmp -s $conf $out/conf.debian" $out/purge2.log
t "... dpkg -V pcp is clean" '[ -z "$(dpkg -V pcp)" ]'

/etc/init.d/pmcd stop > /dev/null 2>&1
exit 0
