# bash completion for histoscope-cli: commands, each command's options, their values where they
# are a fixed set (strategies, formats, layouts, scope kinds, raw types), and files elsewhere.
# packaging/tests/check_completion.sh checks each command's options against its --help.
_histoscope_cli()
{
    local cur prev words cword
    if declare -F _init_completion >/dev/null 2>&1; then
        _init_completion || return
    else
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD-1]}
        words=("${COMP_WORDS[@]}")
        cword=$COMP_CWORD
    fi
    local commands="histogram batch merge scope bench help"
    local strategies="auto cpu global-atomic shared warp-aggregated replicated run-length large-bins cub per-lane"
    local common="-h --help --version -q --quiet -v --verbose"
    local counting="$common --bins --range --channels --strategy --cpu --memory-budget --raw-shape --raw-type --raw-endian --raw-offset --strict"
    if [[ $cword -eq 1 ]]; then
        COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
        return
    fi
    case $prev in
        --strategy) COMPREPLY=($(compgen -W "$strategies" -- "$cur")); return ;;
        --standard) COMPREPLY=($(compgen -W "bt601 bt709" -- "$cur")); return ;;
        --format)
            if [[ ${words[1]} == histogram ]]; then COMPREPLY=($(compgen -W "text jsonl csv" -- "$cur")); else COMPREPLY=($(compgen -W "jsonl csv" -- "$cur")); fi
            return ;;
        --layout) COMPREPLY=($(compgen -W "wide long" -- "$cur")); return ;;
        --raw-type) COMPREPLY=($(compgen -W "u8 u16 i16 u32 i32 f32 f64" -- "$cur")); return ;;
        --raw-endian) COMPREPLY=($(compgen -W "little big" -- "$cur")); return ;;
        --channels) COMPREPLY=($(compgen -W "R,G,B R G B A gray" -- "$cur")); return ;;
        -o|--output|--equalize-dir|--plot-dir)
            if [[ $prev == -o || $prev == --output ]]; then COMPREPLY=($(compgen -f -- "$cur")); else COMPREPLY=($(compgen -d -- "$cur")); fi
            return ;;
        --bins|--range|--memory-budget|--raw-shape|--raw-offset|-j|--jobs|--shard|--file-timeout|--column-bins|--roi|--frame|--repeats|--filter|--only|--include|--exclude|--type|--strategies) return ;;
    esac
    local options
    case ${words[1]} in
        help)
            [[ $cword -eq 2 ]] && COMPREPLY=($(compgen -W "histogram batch merge scope bench" -- "$cur"))
            return ;;
        histogram) options="$counting --format" ;;
        batch) options="$counting -r --recursive --follow-links --include --exclude --per-frame --format --layout -o --output --equalize-dir --plot-dir -j --jobs --devices --shard --file-timeout" ;;
        merge) options="$common --format -o --output --allow-partial --strict" ;;
        scope)
            if [[ $cword -eq 2 ]]; then
                COMPREPLY=($(compgen -W "waveform parade vectorscope joint $common" -- "$cur"))
                return
            fi
            options="$common --channels --standard --column-bins --bins --roi --frame --all-frames --cpu --strategy -o --output" ;;
        bench)
            if [[ $cword -eq 2 ]]; then
                COMPREPLY=($(compgen -W "selfcheck fault run cpu keys --list-strategies --help --version" -- "$cur"))
                return
            fi
            options="--big --host-only --filter --csv --plot --repeats --quick --only --bins --strategies --type --strategy --counts" ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$options" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -o filenames -F _histoscope_cli histoscope-cli
