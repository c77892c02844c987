#!/bin/sh
# logbook: one tab-separated line per tool call: UTC time, session, vendor, tool, tool class,
# and the paths it targeted (joined by spaces).
home=${GA_HOME:-$HOME/.goal-audit}
mkdir -p "$home" || exit 0
paths=$(printf '%s' "${GA_PATHS:-}" | tr '\n\t' '  ')
printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "${GA_SESSION:-}" \
  "${GA_VENDOR:-}" "${GA_TOOL:-}" "${GA_TOOL_CLASS:-}" "$paths" >>"$home/logbook.tsv"
