#!/usr/bin/env bash
# Recipe step 4: the receiver, the work and the reconcile against a local sandbox, end to end, before the
# real service. Run it in an empty directory (it writes whsec.txt, *.log and notes/ there):
#
#   bash path/to/docs/examples/integrator/try-with-sandbox.sh
#
# SANDBOX_PORT (default 4010) and RECEIVER_PORT (default 3000) choose the ports. It starts a sandbox that
# delivers every event to the receiver, records a live note in folder 11 (shared with all members, so the
# organization key reads it), waits until the receiver saved it, runs the reconcile, and stops both.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sandbox_port=${SANDBOX_PORT:-4010}
receiver_port=${RECEIVER_PORT:-3000}
pids=()
stop() { [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; }
trap stop EXIT

(umask 077 && node -e 'console.log(require("node:crypto").randomBytes(24).toString("hex"))' > whsec.txt)
notevox sandbox start --port "$sandbox_port" --webhook "http://127.0.0.1:$receiver_port/" --webhook-secret-file whsec.txt > sandbox.log 2>&1 &
pids+=($!)

# The key is exported before the receiver starts: the work it runs inherits it.
export NOTEVOX_BASE_URL="http://127.0.0.1:$sandbox_port"
export NOTEVOX_API_KEY=nvk_org_integration.sk_demo_org_integration_0001
WEBHOOK_SECRET=$(cat whsec.txt) PORT=$receiver_port node "$here/receiver.mjs" > receiver.log 2>&1 &
pids+=($!)

# Both answer before the note starts (the sandbox on its API, the receiver on its port: 401 without the secret).
for _ in $(seq 100); do
  notevox scopes > /dev/null 2>&1 && node -e "fetch('http://127.0.0.1:$receiver_port/',{method:'POST'}).then(()=>process.exit(0),()=>process.exit(1))" && break
  sleep 0.2
done

guid=$(notevox sandbox live-note start --workspace wsProductTeam001 --folder 11 --paragraphs 3 --interval 0.2 --json --query guid | tr -d '"')
echo "live note $guid started"
for _ in $(seq 300); do
  [ -f "notes/$guid.json" ] && break
  sleep 0.2
done
[ -f "notes/$guid.json" ] || { echo "the receiver did not save note $guid; see receiver.log and sandbox.log" >&2; exit 1; }
echo "saved notes/$guid.json and $(wc -l < "notes/$guid.paragraphs.ndjson") paragraphs"

bash "$here/reconcile.sh" --folder 11
notevox sandbox events
