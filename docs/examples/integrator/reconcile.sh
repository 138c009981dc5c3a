#!/usr/bin/env bash
# Reconcile (docs/events.md, recipe step 3), e.g. nightly: events can be lost for good (an endpoint down
# longer than the retry schedule, a failed run of the work), so every ended note of the organization
# without its notes/<guid>.json is processed now. Arguments go to `notevox notes list`, e.g. --folder 11.
#
#   bash reconcile.sh [--folder ID]
#
# Exit 1 when a note failed again (it is tried at the next run).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
guids=$(notevox notes list --org --all "$@" -o ndjson --query '[?recordingEndAt != `null`].guid' | tr -d '"')
failed=0
for guid in $guids; do
  [ -f "notes/$guid.json" ] && continue
  echo "reconcile: processing $guid (no notes/$guid.json)"
  bash "$here/on-note-ended.sh" "$guid" || failed=$((failed + 1))
done
if [ "$failed" -gt 0 ]; then
  echo "reconcile: $failed notes failed; they are tried again at the next run" >&2
  exit 1
fi
