# scripts/problem_lines.sh: sourced by the probe scripts (ab_probe.sh, switch_probe.sh, phase_probe.sh).
# problem_lines FILE prints each problem line of a probe list (scripts/probes/*.txt): the text before a `#`,
# lines left blank by that skipped; a last line without a newline is kept.
problem_lines() {
  local line
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line%%#*}
    [ -z "${line// }" ] && continue
    printf '%s\n' "$line"
  done < "$1"
}
