import { allCommands, type ArgSpec, type CommandSpec, type CompletionModel, type OptionSpec } from './model.js';
import { header, shQuote } from './quote.js';

/**
 * Zsh: one function per command path built on `_arguments`. A command with subcommands offers them
 * with `_describe` and hands the rest of the line (`*::`) to the chosen subcommand's function; every
 * function also takes the global options (one shared array), which commander accepts after any subcommand.
 */

const fnName = (bin: string, c: CommandSpec) => ['_' + bin, ...c.path].join('__');

/** Text inside an `_arguments` spec: `[description]` and `:message:` must not break the syntax. */
const specText = (s: string) => s.replace(/[\\[\]:]/g, (m) => '\\' + m);

function valueAction(choices: string[] | undefined, list = false): string {
  // a comma-separated list: _sequence completes the item after the last comma, without repeating one (-d)
  if (choices && list) return `_sequence -d compadd - ${choices.join(' ')}`;
  return choices ? `(${choices.join(' ')})` : '_files';
}

function optionSpecs(o: OptionSpec): string[] {
  const exclusive = o.flags.length > 1 ? `(${o.flags.join(' ')})` : '';
  return o.flags.map((f) => {
    const long = f.startsWith('--');
    let spec = `${exclusive}${f}`;
    if (o.value) spec += long ? '=' : '+';
    spec += `[${specText(o.description)}]`;
    if (o.value) spec += `${o.value.optional ? '::' : ':'}${specText(o.value.name)}:${valueAction(o.value.choices, o.value.list)}`;
    return shQuote(spec);
  });
}

function argSpecs(args: ArgSpec[]): string[] {
  return args.map((a) => shQuote(`${a.variadic ? '*' : ''}:${specText(a.name)}:${valueAction(a.choices)}`));
}

const GLOBALS = '_notevox_global_options';

/** The global options a command redefines (its own -o with other formats): the global spec is left out there. */
const redefined = (model: CompletionModel, c: CommandSpec) => model.globals.filter((g) => c.options.some((o) => o.flags.some((f) => g.flags.includes(f))));

/** The array of global option specs without those of `left`: `_notevox_global_options` or one named after what it leaves out. */
const globalsArray = (left: OptionSpec[]) => (left.length ? `${GLOBALS}_but_${left.map((o) => o.flags[o.flags.length - 1].replace(/^-+/, '').replace(/-/g, '_')).join('_')}` : GLOBALS);

function arguments_(specs: string[], flags: string, globals: string): string {
  return [`  _arguments ${flags} $${globals}`, ...specs.map((s) => `    ${s}`)].join(' \\\n');
}

function commandFunction(model: CompletionModel, c: CommandSpec): string {
  const options = c.options.flatMap(optionSpecs);
  const fn = fnName(model.bin, c);
  const globals = globalsArray(redefined(model, c));
  if (!c.subcommands.length) {
    return `${fn}() {\n${arguments_([...options, ...argSpecs(c.args)], '-s -S', globals)}\n}`;
  }
  const entries = c.subcommands.flatMap((s) => s.names.map((n) => `        ${shQuote(`${n}:${s.description}`)}`));
  const dispatch = c.subcommands.map((s) => `        ${s.names.join('|')}) ${fnName(model.bin, s)} && ret=0 ;;`);
  const title = [model.bin, ...c.path].join(' ');
  return `${fn}() {
  local curcontext=$curcontext state state_descr line ret=1
  typeset -A opt_args
${arguments_([...options, shQuote(': :->command'), shQuote('*:: :->argument')], '-s -S -C', globals)} && ret=0
  case $state in
    command)
      local -a commands=(
${entries.join('\n')}
      )
      _describe -t commands ${shQuote(title + ' command')} commands && ret=0
      ;;
    argument)
      curcontext=\${curcontext%:*:*}:${[model.bin, ...c.path].join('-')}-$words[1]:
      case $words[1] in
${dispatch.join('\n')}
      esac
      ;;
  esac
  return ret
}`;
}

/** The global option arrays the commands use: all of them, and for commands that redefine some, the others. */
function globalArrays(model: CompletionModel): string {
  const arrays = new Map<string, OptionSpec[]>([[GLOBALS, []]]);
  for (const c of allCommands(model.root)) {
    const left = redefined(model, c);
    arrays.set(globalsArray(left), left);
  }
  return [...arrays]
    .map(([name, left]) => {
      const specs = model.globals.filter((g) => !left.includes(g)).flatMap(optionSpecs);
      return `typeset -ga ${name}=(\n${specs.map((s) => `  ${s}`).join('\n')}\n)`;
    })
    .join('\n');
}

export function zshCompletion(model: CompletionModel): string {
  const root = fnName(model.bin, model.root);
  return `#compdef ${model.bin}
${header('#', model.bin, 'zsh')}
# Install: write this file as _${model.bin} into a directory on $fpath, e.g. ${model.bin} completion zsh > "\${fpath[1]}/_${model.bin}"

# Global options: commander accepts them after any subcommand (a command redefining one uses an array without it).
${globalArrays(model)}

${allCommands(model.root)
  .map((c) => commandFunction(model, c))
  .join('\n\n')}

if [[ $funcstack[1] == ${root} ]]; then
  ${root} "$@"
else
  compdef ${root} ${model.bin}
fi
`;
}
