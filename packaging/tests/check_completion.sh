#!/usr/bin/env bash
# The bash completion of histoscope-cli completes commands, options and fixed option values.
set -euo pipefail
source "$1"
complete_words() {
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
    _histoscope_cli
    echo "${COMPREPLY[*]}"
}
check() {
    local expected=$1; shift
    local got; got=$(complete_words "$@")
    [[ "$got" == "$expected" ]] || { echo "completing '$*': got '$got', expected '$expected'"; exit 1; }
}
check "batch" histoscope-cli ba
check "histogram" histoscope-cli hi
check "--strategy --strict" histoscope-cli batch --str
check "shared" histoscope-cli histogram --strategy sh
check "jsonl" histoscope-cli batch --format j
check "vectorscope" histoscope-cli scope v
check "bt601 bt709" histoscope-cli scope vectorscope --standard bt
check "--allow-partial" histoscope-cli merge --al
echo "completion: ok"
