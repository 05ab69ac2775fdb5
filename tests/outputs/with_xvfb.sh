#!/usr/bin/env bash
# Runs a command under a private Xvfb display (ParaView's Debian build renders through GLX), and
# stops that Xvfb afterwards. xvfb-run needs xauth, which CI images lack; this does not. Xvfb picks
# a free display and writes its number to -displayfd once it accepts connections.
# -noreset: without it the server regenerates when its last client leaves, so the readiness probe
# below would leave the command to connect into a resetting (or, with GLX, crashing) server.
set -euo pipefail
ready=$(mktemp)
log=${XVFB_LOG:-$(mktemp)}
Xvfb -displayfd 3 -noreset -screen 0 1280x1024x24 -nolisten tcp 3>"$ready" >"$log" 2>&1 &
xvfb=$!
cleanup() {
  kill "$xvfb" 2>/dev/null || true
  rm -f "$ready"
  [[ -n ${XVFB_LOG:-} ]] || rm -f "$log"
}
trap cleanup EXIT
for _ in $(seq 100); do
  [[ -s "$ready" ]] && break
  sleep 0.1
done
[[ -s "$ready" ]] || { echo "with_xvfb.sh: Xvfb did not start" >&2; cat "$log" >&2; exit 1; }
export DISPLAY=":$(tr -d '[:space:]' <"$ready")"
# On a loaded machine the display can be announced before it answers: wait until it does.
for _ in $(seq 100); do
  if command -v xdpyinfo >/dev/null; then xdpyinfo >/dev/null 2>&1 && break; else sleep 1 && break; fi
  sleep 0.1
done
status=0
"$@" || status=$?
if [[ $status -ne 0 ]]; then
  kill -0 "$xvfb" 2>/dev/null || echo "with_xvfb.sh: Xvfb on $DISPLAY exited during the command" >&2
  echo "with_xvfb.sh: Xvfb's log:" >&2
  cat "$log" >&2
fi
exit "$status"
