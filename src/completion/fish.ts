import { allCommands, type CommandSpec, type CompletionModel, type OptionSpec } from './model.js';
import { header } from './quote.js';

/**
 * Fish: `complete -c notevox -n '__notevox_using <path>' …` lines. `__notevox_path` walks the tokens
 * before the cursor (skipping options and the values of options that take one) to find the command
 * path, so `list` under `notes` and `list` under `folders` never mix. Global options carry no condition.
 */

/** A fish single-quoted string. */
const fq = (s: string) => `'${s.replace(/[\\']/g, (m) => '\\' + m)}'`;
const pathText = (c: CommandSpec) => c.path.join(' ');

function optionLine(bin: string, o: OptionSpec, condition: string): string {
  const parts = [`complete -c ${bin}`];
  if (condition) parts.push(`-n ${fq(condition)}`);
  for (const f of o.flags) parts.push(f.startsWith('--') ? `-l ${f.slice(2)}` : `-s ${f.slice(1)}`);
  if (o.value?.choices && o.value.list) parts.push('-x', `-a ${fq(`(__${bin}_list ${o.value.choices.join(' ')})`)}`);
  else if (o.value?.choices) parts.push('-x', `-a ${fq(o.value.choices.join(' '))}`);
  else if (o.value) parts.push('-r');
  parts.push(`-d ${fq(o.description)}`);
  return parts.join(' ');
}

/** Fish `switch` patterns matching "path|option" for an option declared at path `p` (and so valid below it). */
function valuePatterns(p: string, o: OptionSpec): string[] {
  return o.flags.flatMap((f) => (p ? [`${p}|${f}`, `${p} *|${f}`] : [`*|${f}`]));
}

export function fishCompletion(model: CompletionModel): string {
  const bin = model.bin;
  const cmds = allCommands(model.root);

  const subcommandCases = cmds
    .filter((c) => c.subcommands.length)
    .map((c) => `        case ${fq(pathText(c))}\n            printf '%s\\n' ${c.subcommands.flatMap((s) => s.names).join(' ')}`);
  const valuePatternList = [
    ...model.globals.filter((o) => o.value).flatMap((o) => valuePatterns('', o)),
    ...cmds.filter((c) => c.path.length).flatMap((c) => c.options.filter((o) => o.value).flatMap((o) => valuePatterns(pathText(c), o))),
  ];

  const lines: string[] = [];
  for (const o of model.globals) lines.push(optionLine(bin, o, ''));
  for (const c of cmds) {
    const using = `__${bin}_using ${pathText(c)}`.trimEnd();
    for (const s of c.subcommands) for (const n of s.names) lines.push(`complete -c ${bin} -f -n ${fq(using)} -a ${n} -d ${fq(s.description)}`);
    const choices = [...new Set(c.args.flatMap((a) => a.choices ?? []))];
    if (choices.length) lines.push(`complete -c ${bin} -f -n ${fq(using)} -a ${fq(choices.join(' '))}`);
    if (c.path.length) for (const o of c.options) lines.push(optionLine(bin, o, using));
  }

  return `${header('#', bin, 'fish')}
# Install: ${bin} completion fish > ~/.config/fish/completions/${bin}.fish

# The subcommands of a command path.
function __${bin}_subcommands
    switch "$argv"
${subcommandCases.join('\n')}
    end
end

# Succeeds when option $argv[2] takes a value at command path $argv[1].
function __${bin}_takes_value
    switch "$argv[1]|$argv[2]"
        case ${valuePatternList.length ? valuePatternList.map(fq).join(' ') : "''"}
            return 0
    end
    return 1
end

# The command path of the line being completed (subcommand names, space-separated).
function __${bin}_path
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l path
    set -l skip 0
    set -l nargs 0
    for t in $tokens
        if test $skip = 1
            set skip 0
        else if test "$t" = --
            break
        else if string match -q -- '-?*' $t
            if not string match -q -- '*=*' $t; and __${bin}_takes_value "$path" $t
                set skip 1
            end
        else if test $nargs = 0; and contains -- $t (__${bin}_subcommands $path)
            set -a path $t
        else
            set nargs (math $nargs + 1)
        end
    end
    string join ' ' -- $path
end

# The choices in $argv as items of a comma-separated list: each after the items already written before the last
# comma of the token being completed (without an option's --name= part).
function __${bin}_list
    set -l done (string replace -r -- '^--[^=]*=' '' (commandline -ct))
    set -l prefix (string match -r -- '^.*,' $done)
    for v in $argv
        printf '%s%s\n' "$prefix" $v
    end
end

# Succeeds when the command path is exactly $argv.
function __${bin}_using
    set -l path (__${bin}_path)
    test "$path" = "$argv"
end

${lines.join('\n')}
`;
}
