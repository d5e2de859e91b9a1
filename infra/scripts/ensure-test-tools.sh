#!/usr/bin/env bash
# Installs the system tools the tests run for real, when they are missing (`pnpm test` calls this
# first): bubblewrap (the code agent's sandbox), Dovecot (the IMAP server the mail agent's tests
# start on loopback), the system Python the sandbox runs with numpy, pandas and matplotlib (the
# sandbox's data analysis, from Debian's packages) and HAProxy (the load balancer the replica
# tests start on loopback in front of several replicas of each service). Debian/Ubuntu, as root or with
# passwordless sudo; elsewhere it says what to install and fails, rather than letting those tests
# fail later with a less clear message. Set FLEET_SKIP_TOOL_CHECK=1 to skip the check.
set -euo pipefail

[[ "${FLEET_SKIP_TOOL_CHECK:-}" == "1" ]] && exit 0

missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
# dovecot-core alone has no IMAP: check the imap binaries dovecot-imapd brings.
[[ -x /usr/sbin/dovecot && -x /usr/lib/dovecot/imap && -x /usr/lib/dovecot/imap-login ]] || missing+=(dovecot-imapd)
[[ -x /usr/bin/python3 ]] || missing+=(python3)
# Where Debian's python3-* packages put them (a directory test: no interpreter start-up).
for package in numpy pandas matplotlib; do
  [[ -d "/usr/lib/python3/dist-packages/${package}" ]] || missing+=("python3-${package}")
done
command -v haproxy >/dev/null 2>&1 || [[ -x /usr/sbin/haproxy ]] || missing+=(haproxy)
[[ -n "${CHROMIUM_PATH:-}" && -x "${CHROMIUM_PATH:-}" ]] || [[ -x /usr/bin/chromium ]] || missing+=(chromium)
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "The tests need: ${missing[*]} (the code agent's sandbox, the IMAP server of the mail agent's tests, the sandboxed Python and its data analysis packages, the load balancer of the replica tests, the browser of the console's end-to-end tests)."
if ! command -v apt-get >/dev/null 2>&1; then
  echo "Install them with your system's package manager, then run the tests again." >&2
  exit 1
fi
if [[ "$(id -u)" -eq 0 ]]; then
  sudo_=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo_=(sudo -n)
else
  echo "Run: sudo apt-get install -y ${missing[*]}   (then run the tests again)" >&2
  exit 1
fi
echo "Installing with apt-get: ${missing[*]}…"
export DEBIAN_FRONTEND=noninteractive
# The package lists may be stale or absent on a fresh machine: update once if the install fails.
"${sudo_[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 || {
  "${sudo_[@]}" apt-get update -qq
  "${sudo_[@]}" apt-get install -y -qq "${missing[@]}"
}
echo "Installed: ${missing[*]}."
