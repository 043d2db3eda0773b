#!/usr/bin/env bash
# The bash completion of histoscope-cli completes commands, options and fixed option values.
# check_completion.sh COMPLETION [CLI [MAN_PAGE]]: with the CLI, each command's completed options
# must be the options its --help lists, no more and no fewer, so the two cannot drift; with the
# man page, every one of them must be in it too.
set -euo pipefail
source "$1"
cli=${2:-}
man=${3:-}
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
check "--layout" histoscope-cli batch --lay
check "long" histoscope-cli batch --layout l
check "text" histoscope-cli histogram --format t
check "--strict" histoscope-cli merge --st

if [[ -n $cli ]]; then
    # The options of a --help: in Qt's layout, each line's first column ("  -o, --output <file>").
    help_options() {
        "$cli" "$@" --help | grep -E '^ +-' | sed -E 's/^ +//; s/  .*//' | grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z0-9-]*' \
            | tr -d ' ,' | sort -u
    }
    completed() { complete_words "$@" | tr ' ' '\n' | grep -E '^-' | sort -u; }
    compare() {
        local name=$1 help=$2 completion=$3
        if [[ "$help" != "$completion" ]]; then
            echo "$name: --help and the completion differ (< --help only, > completion only):"
            diff <(echo "$help") <(echo "$completion") | grep -E '^[<>]'
            exit 1
        fi
    }
    for command in histogram batch merge; do
        compare "$command" "$(help_options "$command")" "$(completed histoscope-cli "$command" -)"
    done
    compare scope "$(help_options scope)" "$(completed histoscope-cli scope parade -)"
    # bench prints a usage synopsis ("[--big] [--filter TEXT]"): every option named in it.
    bench_help=$( { "$cli" bench --help 2>&1; echo " --help --version"; } | grep -oE '(^|[ [])--[a-z][a-z0-9-]*' | tr -d ' [' | sort -u)
    bench_completion=$( { completed histoscope-cli bench -; completed histoscope-cli bench run -; } | sort -u)
    compare bench "$bench_help" "$bench_completion"
    commands=$(sed -n '/^commands:/,/^$/p' <("$cli" --help) | awk 'NR > 1 && NF { print $1 }' | sort -u)
    compare commands "$( (echo "$commands"; echo help) | sort -u)" "$(complete_words histoscope-cli "" | tr ' ' '\n' | grep -v '^-' | sort -u)"
    if [[ -n $man ]]; then
        # roff writes - as \- and fonts as \fB…\fR.
        text=$(sed -E 's/\\f[BIRP]//g; s/\\-/-/g' "$man")
        for command in histogram batch merge scope; do
            for option in $(help_options "$command"); do
                grep -qE -- "(^|[^a-z-])$option([^a-z-]|$)" <<<"$text" || { echo "$man lacks $command $option"; exit 1; }
            done
        done
    fi
fi
echo "completion: ok"
