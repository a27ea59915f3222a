#!/usr/bin/env bash
# Compile every program of this corpus and compare its output with the .expected file
# (see corpus/check.sh for the options).
exec bash "$(dirname "$0")/../check.sh" "$(dirname "$0")" "$@"
