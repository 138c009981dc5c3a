import { describe, expect, it } from 'vitest';
import type { Command } from '@commander-js/extra-typings';
import { CHANGES, describeTree } from '../../src/commands/tree/run.js';
import { commandTree } from '../../src/program.js';
import { EXIT_CODE_DOCS } from '../../src/errors.js';
import { runCommand } from '../helpers/run-command.js';

/** `notevox commands --json` is the tree --help prints: the same commands, arguments, flags, descriptions and examples. */

const program = commandTree() as unknown as Command<any, any, any>;
const tree = describeTree(program);

function find(path: string): Command<any, any, any> {
  let cmd = program;
  for (const word of path.split(' ')) cmd = cmd.commands.find((c) => c.name() === word)!;
  return cmd;
}

describe('notevox commands --json', () => {
  it('prints the tree as JSON', async () => {
    const r = await runCommand(['commands', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(JSON.stringify(tree)));
    const human = await runCommand(['commands']);
    expect(human.stdout).toMatch(/^notes list +notes list|notes list {2,}/m);
  });

  it('holds every command of the help, and what its help says', () => {
    const helpPaths: string[] = [];
    const walk = (cmd: Command<any, any, any>, prefix: string[]) => {
      for (const sub of cmd.commands) {
        helpPaths.push([...prefix, sub.name()].join(' '));
        walk(sub, [...prefix, sub.name()]);
      }
    };
    walk(program, []);
    expect(tree.commands.map((c) => c.path)).toEqual(helpPaths);
    for (const c of tree.commands) {
      const cmd = find(c.path);
      const help = cmd.helpInformation();
      expect(help, c.path).toContain(c.description.slice(0, 40));
      for (const a of c.arguments) expect(help, `${c.path} <${a.name}>`).toContain(a.name);
      for (const o of c.options) {
        expect(help, `${c.path} ${o.flags}`).toContain(o.flags);
        expect(help.replace(/\s+/g, ' '), `${c.path} ${o.flags}`).toContain(o.description.replace(/\s+/g, ' ').slice(0, 30));
        if (o.choices) expect(help.replace(/\s+/g, ' '), `${c.path} ${o.flags} choices`).toContain(`choices: ${o.choices.map((x) => `"${x}"`).join(', ')}`);
      }
      // Every option the help lists is in the JSON (commander lists -h, --help itself).
      const listed = [...help.matchAll(/^ {2}(-[^\s,]+(?:, --[^\s]+)?)/gm)].map((m) => m[1]!).filter((f) => f !== '-h,' && !f.startsWith('-h'));
      expect(listed.length, `${c.path}: ${listed.join(' ')}`).toBe(c.options.length);
      // The examples are those of the help's Examples section (shared.ts adds them to both).
      if (c.subcommands.length === 0) expect(c.examples.length, `${c.path} has examples`).toBeGreaterThan(0);
      for (const e of c.examples) expect(e, c.path).toContain('notevox');
    }
    expect(tree.globalOptions.map((o) => o.flags)).toEqual(program.options.map((o) => o.flags));
    expect(tree.exitCodes.map((e) => e.code)).toEqual(EXIT_CODE_DOCS.map(([c]) => c));
  });

  it('types flags from their parsers, and marks what changes something', () => {
    const limit = tree.commands.find((c) => c.path === 'notes list')!.options.find((o) => o.name === '--limit')!;
    expect(limit).toMatchObject({ type: 'number', default: 50 });
    expect(tree.commands.find((c) => c.path === 'notes list')!.options.find((o) => o.name === '--all')!.type).toBe('boolean');
    expect(tree.globalOptions.find((o) => o.name === '--output')!.choices).toContain('json');
    for (const path of CHANGES) expect(tree.commands.some((c) => c.path === path), `${path} is a command`).toBe(true);
    expect(tree.commands.find((c) => c.path === 'notes rename')!.readOnly).toBe(false);
    expect(tree.commands.find((c) => c.path === 'notes get')!.readOnly).toBe(true);
    expect(tree.commands.find((c) => c.path === 'voice upload')!.exitCodes).toContain(9);
    expect(tree.commands.find((c) => c.path === 'config get')!.exitCodes).not.toContain(4);
  });
});
