#!/usr/bin/env bash
# `npm test`'s pretest: the suite needs two tools npm cannot install. A JDK 17+ (the dynamodb form's tests run AWS's
# DynamoDB Local, whose loopback launcher is compiled with javac) and Chromium (the viewer's browser tests; or
# CHROMIUM_PATH naming an installed Chrome). On a Debian/Ubuntu machine where we may use apt, install what is missing;
# elsewhere say what to install.
set -euo pipefail
missing=()
command -v javac >/dev/null || missing+=(openjdk-17-jdk-headless)
if [ -z "${CHROMIUM_PATH:-}" ] && ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null && ! command -v google-chrome >/dev/null; then
  missing+=(chromium)
fi
[ ${#missing[@]} -eq 0 ] && exit 0
if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  echo "pretest: installing ${missing[*]} (apt-get)" >&2
  apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "pretest: the test suite needs ${missing[*]}: install them (a JDK 17+; Chromium or Chrome, or set CHROMIUM_PATH), then run npm test again" >&2
  exit 1
fi
