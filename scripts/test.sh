#!/usr/bin/env bash
# `npm test` and `npm run test:unit`: jest, with every temporary file and folder the run makes (the test stacks'
# data folders, CDK output, browser profiles, spooled mail) in one folder of its own, removed when the run ends,
# passed or failed. Runs side by side never share it.
set -uo pipefail
run_tmp=$(mktemp -d "${TMPDIR:-/tmp}/tempmail-tests-XXXXXX")
trap 'rm -rf "$run_tmp"' EXIT
TMPDIR="$run_tmp" jest "$@"
