#!/bin/sh
# The bundled example agent: no model, no network. It reads the request
# ({"agent", "prompt", "context"}) on stdin and answers in Markdown with the
# editor's selection, reviewed, as a code block annotated with its file path.
# The editor context also arrives in RADIUM_EDITOR_* variables.
request=$(cat)
case "$request" in
  *'"prompt":"fail"'*) echo "the example agent was asked to fail" >&2; exit 3 ;;
esac
file=${RADIUM_EDITOR_FILE_PATH:-untitled}
lang=${RADIUM_EDITOR_LANGUAGE:-text}
case "$lang" in
  python|shellscript|ruby|perl|toml|yaml|makefile) note="# reviewed by the example agent" ;;
  lua|sql|haskell) note="-- reviewed by the example agent" ;;
  *) note="// reviewed by the example agent" ;;
esac
printf 'Here is the selection, reviewed.\n\n```%s path=%s\n%s\n%s\n```\n\nApply it when it looks right.\n' \
  "$lang" "${file#"${RADIUM_EDITOR_WORKSPACE:-/}"/}" "$note" "$RADIUM_EDITOR_SELECTION"
