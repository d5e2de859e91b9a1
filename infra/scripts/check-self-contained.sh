#!/usr/bin/env bash
# The repository explains itself: nothing in it may point at design documents outside it. Fails
# (exit 1, listing the lines) when a tracked file names the old outside documents or a path above
# the repository. Part of `pnpm lint`, so CI fails if such a reference comes back.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

readonly PATTERN='\.\./shared|/work/shared|ARCHITECTURE\.md|(^|[^a-z/])A2A\.md|TRACING\.md|HOUSE_STYLE\.md|[Hh]ouse[ -]style rule|house rule [0-9]'
readonly SELF='infra/scripts/check-self-contained.sh'

if matches="$(git ls-files -z | grep -zv "^${SELF}$" | xargs -0 grep -nE "$PATTERN" -- 2>/dev/null)"; then
  echo "These lines point at documents outside the repository; point them at docs/ or CONTRIBUTING.md instead:" >&2
  echo "$matches" >&2
  exit 1
fi
echo "Self-contained: no references to documents outside the repository."
