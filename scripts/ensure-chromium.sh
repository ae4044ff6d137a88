#!/bin/sh
# Make sure Debian's Chromium is installed for the browser tests (never a downloaded browser).
set -e
if command -v chromium >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" != "0" ]; then
  echo "chromium is missing: install Debian's 'chromium' package (sudo apt-get install chromium)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium fonts-noto-color-emoji >/dev/null
