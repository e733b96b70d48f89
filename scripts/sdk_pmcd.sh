# SPDX-License-Identifier: GPL-2.0-or-later
# What our agents' Install and Remove (and the packages' postinst) do to
# pmcd beyond PCP's helpers: keep a record of the pmcd.conf lines Install
# took over, give them back in place, and restart pmcd with or without
# systemd. Installed next to each agent; sourced after pmcd.env and, by
# Install and Remove, after pmdaproc.sh. Callers set iam, domain and
# __here (the agent's directory).
#
# The record, in the agent's directory:
#   pmcd.conf.orig      pmcd.conf before the first of our agents was
#                       Installed (a copy, so Remove can compare with it)
#   pmcd.conf.replaced  the lines Install took over (Debian's agent)
#   pmcd.conf.added     the line Install added

# The lines of agent NAME with domain DOMAIN in pmcd.conf FILE.
sdk_agent_lines()
{
	awk -v n="$2" -v d="$3" '/^[ \t]*\[[ \t]*access[ \t]*\]/ { exit }
		$1 == n && $2 == d' "$1"
}

# Is the iam line of pmcd.conf ours? Its program is in our directory, and,
# where Debian's agent has the same directory (trace), Install recorded it.
sdk_ours()
{
	_sdk_l=$(sdk_agent_lines "$PCP_PMCDCONF_PATH" "$iam" "$domain" | tr '\t' ' ')
	case " $_sdk_l " in
	*" $__here/"*) ;;
	*) return 1 ;;
	esac
	[ "$__here" != "$PCP_PMDAS_DIR/$iam" ] ||
		[ -f "$__here/pmcd.conf.added" ] || [ -f "$__here/pmcd.conf.replaced" ]
}

# sdk_edit MODE FILE NEW: FILE with the lines of agent $iam/$domain taken
# out and the lines of file NEW put where the first of them was (else after
# the last agent line); every other byte stays. MODE add takes out the
# lines of the same name or domain, as PCP's helpers cull them; remove
# takes out only the line of both (ours) and skips NEW lines already there.
sdk_edit()
{
	awk -v mode="$1" -v n="$iam" -v d="$domain" -v new="$3" '
	BEGIN { while ((getline l < new) > 0) add[++na] = l }
	{ line[NR] = $0; name[NR] = $1; dom[NR] = $2 }
	END {
		acc = NR + 1
		for (i = 1; i <= NR; i++)
			if (line[i] ~ /^[ \t]*\[[ \t]*access[ \t]*\]/) { acc = i; break }
		first = 0; last = 0
		for (i = 1; i < acc; i++) {
			if (name[i] == "" || name[i] ~ /^#/)
				continue
			if (mode == "add" ? name[i] == n || dom[i] == d : name[i] == n && dom[i] == d) {
				drop[i] = 1
				if (!first)
					first = i
			} else {
				last = i
				have[line[i]] = 1
			}
		}
		at = first ? first : last ? last + 1 : acc
		for (i = 1; i <= NR + 1; i++) {
			if (i == at)
				for (j = 1; j <= na; j++)
					if (mode == "add" || !have[add[j]])
						print add[j]
			if (i <= NR && !drop[i])
				print line[i]
		}
	}' "$2"
}

# Directories of our other agents whose Install line is in pmcd.conf.
sdk_others()
{
	for _sdk_f in "$PCP_PMDAS_DIR"/*/pmcd.conf.added; do
		_sdk_d=${_sdk_f%/pmcd.conf.added}
		[ -f "$_sdk_f" ] && [ "$_sdk_d" != "$__here" ] || continue
		grep -qxF -f "$_sdk_f" "$PCP_PMCDCONF_PATH" && echo "$_sdk_d"
	done
}

# FILE as it would be with our other agents Removed too.
sdk_without_others()
{
	cp "$1" "$tmp/sdk.w"
	for _sdk_d in $(sdk_others); do
		( iam=$(awk '{ print $1; exit }' "$_sdk_d/pmcd.conf.added")
		  domain=$(awk '{ print $2; exit }' "$_sdk_d/pmcd.conf.added")
		  touch "$tmp/sdk.none"
		  _sdk_back=$tmp/sdk.none
		  [ -f "$_sdk_d/pmcd.conf.replaced" ] && _sdk_back=$_sdk_d/pmcd.conf.replaced
		  sdk_edit remove "$tmp/sdk.w" "$_sdk_back" > "$tmp/sdk.w2" &&
			mv "$tmp/sdk.w2" "$tmp/sdk.w" )
	done
	cat "$tmp/sdk.w"
}

# Replace pmcd.conf's contents, as PCP's helpers do (root, 0644).
sdk_write_conf()
{
	chmod u+w "$PCP_PMCDCONF_PATH" && cp "$1" "$PCP_PMCDCONF_PATH" &&
		chown root "$PCP_PMCDCONF_PATH" && chmod 644 "$PCP_PMCDCONF_PATH"
}

sdk_pmcd_running()
{
	[ -f "$PCP_RUN_DIR/pmcd.pid" ] || return 1
	_sdk_pid=$(cat "$PCP_RUN_DIR/pmcd.pid")
	kill -0 "$_sdk_pid" 2> /dev/null || return 1
	[ ! -r "/proc/$_sdk_pid/comm" ] || [ "$(cat "/proc/$_sdk_pid/comm")" = pmcd ]
}

# systemd manages pmcd when it runs (the test of sd_booted(3)) and has the
# unit; PCP's helpers ask only for the unit, and fail where systemd does
# not run (containers, chroots). PCPQA_SYSTEMD=no as in PCP's QA.
sdk_systemd()
{
	[ "${PCPQA_SYSTEMD:-}" != no ] && [ -d /run/systemd/system ] &&
		[ -f "${PCP_SYSTEMDUNIT_DIR:-/nonexistent}/pmcd.service" ] &&
		command -v systemctl > /dev/null 2>&1
}

# Restart pmcd as its service: systemd's unit, else PCP's init script; in
# a maintainer script, not where policy-rc.d forbids it (invoke-rc.d's rule).
sdk_restart_pmcd()
{
	if [ -n "${DPKG_MAINTSCRIPT_NAME:-}" ] && [ -x /usr/sbin/policy-rc.d ]; then
		/usr/sbin/policy-rc.d pmcd restart
		case $? in
		101 | 106)
			echo "Not restarting pmcd: policy-rc.d forbids it here."
			return 1 ;;
		esac
	fi
	if sdk_systemd; then
		echo "Restarting pmcd: systemctl restart pmcd.service"
		systemctl restart pmcd.service || return 1
	elif [ -x "$PCP_RC_DIR/pmcd" ]; then
		echo "Restarting pmcd: $PCP_RC_DIR/pmcd restart"
		"$PCP_RC_DIR/pmcd" restart || return 1
	else
		echo "Cannot restart pmcd: systemd does not run here and there is no $PCP_RC_DIR/pmcd."
		return 1
	fi
	"$PCP_BINADM_DIR/pmcd_wait" -t 60 ||
		{ echo "pmcd does not answer 60 s after its restart."; return 1; }
}

# sdk_served NAME...: pmcd runs each agent (its pmcd.agent.status is 0);
# pipe agents are started with pmcd, so a short wait is enough.
sdk_served()
{
	for _sdk_n in "$@"; do
		_sdk_i=0
		until pminfo -f pmcd.agent.status 2> /dev/null | grep -q "\"$_sdk_n\"] value 0\$"; do
			_sdk_i=$((_sdk_i + 1))
			if [ $_sdk_i -gt 20 ]; then
				echo "pmcd does not serve the $_sdk_n agent (pmcd.agent.status): see $PCP_LOG_DIR/pmcd/pmcd.log."
				return 1
			fi
			sleep 0.5
		done
	done
}

# PCP's helpers restart pmcd through systemctl whenever pmcd.service
# exists (issue 32: "systemctl: not found" without systemd); ours choose.
__pmda_restart_pmcd()
{
	# a failed restart need not be waited for the full minute
	sdk_restart_pmcd || __can_wait=1
}

# Install, before pmdaInstall: a new record, unless our line is there
# already (Install again keeps the first record).
sdk_install_begin()
{
	cp "$PCP_PMCDCONF_PATH" "$tmp/sdk.pre"
	sdk_new=false
	sdk_ours && return 0
	sdk_new=true
	rm -f "$__here/pmcd.conf.orig" "$__here/pmcd.conf.replaced" "$__here/pmcd.conf.added"
	awk -v n="$iam" -v d="$domain" '/^[ \t]*\[[ \t]*access[ \t]*\]/ { exit }
		$1 !~ /^#/ && ($1 == n || $2 == d)' "$tmp/sdk.pre" > "$__here/pmcd.conf.replaced"
	# with another of ours installed, pmcd.conf before it is the original
	_sdk_o=$(sdk_others | head -1)
	if [ -n "$_sdk_o" ] && [ -f "$_sdk_o/pmcd.conf.orig" ]; then
		cp "$_sdk_o/pmcd.conf.orig" "$__here/pmcd.conf.orig"
	else
		cp "$tmp/sdk.pre" "$__here/pmcd.conf.orig"
	fi
}

# A pmcd.conf's lines but comments and blank ones, sorted.
sdk_sorted()
{
	grep -v '^[[:space:]]*#' "$1" | grep . | LC_ALL=C sort
}

# Install, after pmdaInstall: PCP's helpers rewrote pmcd.conf sorted by
# domain (comments too); keep their lines in the file's own order, so only
# our line differs from before.
sdk_install_end()
{
	sdk_agent_lines "$PCP_PMCDCONF_PATH" "$iam" "$domain" | head -1 > "$tmp/sdk.ours"
	if [ ! -s "$tmp/sdk.ours" ] || $__pmcd_is_dead; then
		echo "Install failed: pmcd does not run the $iam agent."
		$sdk_new && rm -f "$__here/pmcd.conf.orig" "$__here/pmcd.conf.replaced"
		status=1
		return
	fi
	sdk_edit add "$tmp/sdk.pre" "$tmp/sdk.ours" > "$tmp/sdk.conf"
	if [ "$(sdk_sorted "$tmp/sdk.conf")" = "$(sdk_sorted "$PCP_PMCDCONF_PATH")" ]; then
		sdk_write_conf "$tmp/sdk.conf"
	else
		echo "Warning: pmcd.conf left in the order PCP's helpers wrote it."
	fi
	cp "$tmp/sdk.ours" "$__here/pmcd.conf.added"
}

# Remove: our line out, the recorded lines back where it was, pmcd
# restarted when it runs them. sdk_debian_lines (the caller's) prints
# Debian's agent as pcp ships it, put back when there is no record.
sdk_remove()
{
	if ! sdk_ours; then
		echo "$PCP_PMCDCONF_PATH has no $iam line of $__here (never Installed, or Removed already): nothing to do."
		rm -f "$__here/pmcd.conf.orig" "$__here/pmcd.conf.replaced" "$__here/pmcd.conf.added"
		return 0
	fi
	if [ -f "$__here/pmcd.conf.replaced" ]; then
		cp "$__here/pmcd.conf.replaced" "$tmp/sdk.back"
	else
		sdk_debian_lines > "$tmp/sdk.back"
		echo "No record of what Install replaced: putting back Debian's $iam agent as pcp ships it."
	fi
	sdk_edit remove "$PCP_PMCDCONF_PATH" "$tmp/sdk.back" > "$tmp/sdk.conf"
	sdk_up=false
	sdk_pmcd_running && sdk_up=true

	pmdaRemove

	if [ ! -f "$__here/pmcd.conf.orig" ]; then
		echo "No copy of pmcd.conf from before Install: its lines are put back, in the order it has now."
	elif sdk_without_others "$tmp/sdk.conf" | cmp -s - "$__here/pmcd.conf.orig"; then
		_sdk_o=$(sdk_others | sed 's|.*/||' | tr '\n' ' ' | sed 's/ $//')
		if [ -z "$_sdk_o" ]; then
			cp "$__here/pmcd.conf.orig" "$tmp/sdk.conf"
			echo "pmcd.conf is back as it was before Install."
		else
			echo "pmcd.conf is as it was before Install, but for the lines of our agents still Installed ($_sdk_o)."
		fi
	else
		echo "pmcd.conf was changed since Install: the lines Install replaced are put back where its line was, the rest stays as it is now. Changes since then:"
		sdk_without_others "$tmp/sdk.conf" | diff "$__here/pmcd.conf.orig" - | sed 's/^/    /'
	fi
	sdk_write_conf "$tmp/sdk.conf" || { echo "Cannot write $PCP_PMCDCONF_PATH."; status=1; return; }
	rm -f "$__here/pmcd.conf.orig" "$__here/pmcd.conf.replaced" "$__here/pmcd.conf.added"

	[ -s "$tmp/sdk.back" ] || return 0
	sed 's/^/Putting back: /' "$tmp/sdk.back"
	# their names come from the root_* files, rebuilt at pmcd's start
	touch "$PMNSDIR/.NeedRebuild"
	if ! $sdk_up; then
		echo "pmcd is not running: it serves them from its next start."
		return 0
	fi
	if ! sdk_restart_pmcd || ! sdk_served $(awk '{ print $1 }' "$tmp/sdk.back"); then
		echo "pmcd.conf is restored, but pmcd does not serve it yet: restart pmcd."
		status=1
	fi
}
