import { allCommands, type CommandSpec, type CompletionModel, type OptionSpec } from './model.js';
import { header, shQuote } from './quote.js';

/**
 * Bash: one `complete -F` function. It walks COMP_WORDS before the cursor to find the command path
 * (skipping options and the values of options that take one), then offers the values of the option
 * being completed, the options of the path, or its subcommands and positional choices. Per-path data
 * lives in `case` tables keyed by the path ('' for the root, 'notes list ' for a subcommand).
 */

const key = (c: CommandSpec) => c.path.map((p) => p + ' ').join('');
const words = (list: string[]) => shQuote(list.join(' '));
const flagsOf = (opts: OptionSpec[]) => opts.flatMap((o) => o.flags);

function caseTable(fn: string, doc: string, arms: string[], reset = '__notevox_r='): string {
  return [`# ${doc}`, `${fn}() {`, `  ${reset}`, '  case "$1" in', ...arms.map((a) => `    ${a}`), '  esac', '}'].join('\n');
}

export function bashCompletion(model: CompletionModel): string {
  const fn = `_${model.bin}`;
  const cmds = allCommands(model.root);
  const globalFlags = flagsOf(model.globals);

  const subcommands = cmds.filter((c) => c.subcommands.length).map((c) => `${shQuote(key(c))}) __notevox_r=${words(c.subcommands.flatMap((s) => s.names))} ;;`);
  const options = cmds.filter((c) => c.options.length).map((c) => `${shQuote(key(c))}) __notevox_r=${words(flagsOf(c.options))} ;;`);

  // Options taking a value: an option declared at path P applies to P and below ('P'*); the root's everywhere.
  // The deepest paths come first so that a subcommand's own definition wins.
  const valueArms: string[] = [];
  const byDepth = [...cmds].sort((a, b) => b.path.length - a.path.length);
  for (const c of byDepth) {
    const own = c.path.length ? c.options.filter((o) => o.value) : model.globals.filter((o) => o.value);
    for (const o of own) {
      const patterns = o.flags.map((f) => `${shQuote(key(c))}*${shQuote('|' + f)}`).join('|');
      const list = o.value?.list ? '__notevox_l=1 ' : '';
      valueArms.push(`${patterns}) ${o.value?.choices ? `__notevox_r=${words(o.value.choices)} ${list}` : ''};;`);
    }
  }
  valueArms.push('*) return 1 ;;');

  const argArms = cmds
    .filter((c) => c.args.some((a) => a.choices))
    .map((c) => {
      const tests = c.args.flatMap((a, i) => (a.choices ? [`(( $2 ${a.variadic ? '>=' : '=='} ${i} )) && __notevox_r=${words(a.choices)}`] : []));
      return `${shQuote(key(c))}) ${tests.join('; ')} ;;`;
    });

  return `${header('#', model.bin, 'bash')}
# Install: source <(${model.bin} completion bash)

${caseTable('__notevox_subcommands', 'The subcommands of a command path.', subcommands)}

${caseTable('__notevox_options', 'The options of a command path, besides the global ones.', options)}

${caseTable(
  '__notevox_value',
  'Succeeds when the option in $1 ("path|option") takes a value; its fixed choices, if any, go to __notevox_r, and __notevox_l is 1 when the value is a comma-separated list of them.',
  valueArms,
  '__notevox_r= __notevox_l=0',
)}

# COMPREPLY from the choices in __notevox_r for the value $2, each prefixed with $1; in a comma-separated list
# (__notevox_l) only the item after the last comma is completed, and the items before it are kept.
__notevox_values() {
  local p=$1 v=$2
  if ((__notevox_l)); then
    # room for a comma after the item; bash would end the word with a space
    compopt -o nospace 2>/dev/null
    if [[ $v == *,* ]]; then
      p+=\${v%,*},
      v=\${v##*,}
    fi
  fi
  COMPREPLY=($(compgen -P "$p" -W "$__notevox_r" -- "$v"))
}

${caseTable('__notevox_args', 'Fixed choices of positional argument number $2 (from 0) at path $1.', argArms)}

${fn}() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]}
  local path='' w i skip=0 dd=0 nargs=0 __notevox_r='' __notevox_l=0
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=\${COMP_WORDS[i]}
    if ((skip)); then
      [[ $w == = ]] || skip=0
    elif ((dd)) || [[ $w != -* || $w == - ]]; then
      __notevox_subcommands "$path"
      if ((!dd && nargs == 0)) && [[ " $__notevox_r " == *" $w "* ]]; then path+="$w "; else nargs=$((nargs + 1)); fi
    elif [[ $w == -- ]]; then
      dd=1
    elif [[ $w != *=* ]] && __notevox_value "$path|$w"; then
      skip=1
    fi
  done
  COMPREPLY=()
  if ((skip)); then
    [[ $prev == = ]] && prev=\${COMP_WORDS[COMP_CWORD-2]}
    [[ $cur == = ]] && cur=''
    __notevox_value "$path|$prev"
    __notevox_values '' "$cur"
  elif ((!dd)) && [[ $cur == --*=* ]]; then
    __notevox_value "$path|\${cur%%=*}" && __notevox_values "\${cur%%=*}=" "\${cur#*=}"
  elif ((!dd)) && [[ $cur == -* ]]; then
    __notevox_options "$path"
    COMPREPLY=($(compgen -W "$__notevox_r ${globalFlags.join(' ')}" -- "$cur"))
  else
    local candidates=''
    if ((!dd && nargs == 0)); then
      __notevox_subcommands "$path"
      candidates=$__notevox_r
    fi
    __notevox_args "$path" "$nargs"
    COMPREPLY=($(compgen -W "$candidates $__notevox_r" -- "$cur"))
  fi
  return 0
}

complete -o default -F ${fn} ${model.bin}
`;
}
