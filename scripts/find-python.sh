#!/usr/bin/env bash
# Prints a python3 that can import matplotlib: Debian's /usr/bin/python3 (python3-matplotlib) is
# preferred over a python3 earlier on PATH (pyenv, venvs) that may lack it.
for py in /usr/bin/python3 "$(command -v python3 || true)"; do
  if [ -n "$py" ] && [ -x "$py" ] && "$py" -c 'import matplotlib' >/dev/null 2>&1; then
    echo "$py"
    exit 0
  fi
done
echo "find-python: no python3 with matplotlib found (install python3-matplotlib)" >&2
exit 1
