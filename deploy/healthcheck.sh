#!/bin/bash
# The image's HEALTHCHECK: healthy when `ptyhub serve --http` answers GET /healthz with 200.
# The image installs nothing (no curl, no wget), so bash's /dev/tcp is the HTTP client. It asks
# 127.0.0.1, which a server on 0.0.0.0 and one on 127.0.0.1 both answer, with a loopback Host.
set -eu

port="${PTYHUB_HTTP_PORT:-8080}"
# Seconds to wait for the status line: less than the HEALTHCHECK's --timeout.
read_timeout=4

exec 3<>"/dev/tcp/127.0.0.1/${port}"
printf 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nConnection: close\r\n\r\n' "$port" >&3
status=""
IFS= read -r -t "$read_timeout" status <&3 || true
case "$status" in
  "HTTP/1.1 200 "*) exit 0 ;;
  *)
    echo "GET /healthz on port ${port}: ${status:-no answer}" >&2
    exit 1
    ;;
esac
