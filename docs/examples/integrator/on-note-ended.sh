#!/usr/bin/env bash
# The work for one ended note (docs/events.md, recipe step 2): the note, its paragraphs and a document
# generated from template 2, saved under notes/ in the current directory. With an organization key in
# NOTEVOX_API_KEY (and NOTEVOX_BASE_URL for another service than the default).
#
#   bash on-note-ended.sh NOTE_GUID
#
# Everything is written to a temporary directory first; notes/<guid>.json, the file reconcile.sh looks
# for, is moved into place last. A failure anywhere leaves no file for the note, so it is done again.
set -euo pipefail
guid=${1:?usage: on-note-ended.sh NOTE_GUID}
case $guid in
  '' | *[!A-Za-z0-9_-]*) echo "on-note-ended: not a note guid: $guid" >&2; exit 2 ;;
esac
mkdir -p notes
tmp=$(mktemp -d "notes/.$guid.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
notevox notes get "$guid" --json > "$tmp/note.json"
notevox notes paragraphs "$guid" --all -o ndjson > "$tmp/paragraphs.ndjson"
notevox notes documents generate "$guid" --template 2 --locale en_US --json > "$tmp/document.json"
mv "$tmp/paragraphs.ndjson" "notes/$guid.paragraphs.ndjson"
mv "$tmp/document.json" "notes/$guid.document.json"
mv "$tmp/note.json" "notes/$guid.json" # last: its presence means done
