import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';

/** Every command path below `cmd`, e.g. `notes documents get`. */
const paths = (cmd: Command, prefix = ''): string[] => cmd.commands.flatMap((c) => [prefix + c.name(), ...paths(c, `${prefix}${c.name()} `)]);

describe('registering only the groups on the command line (a start-up shortcut)', () => {
  const full = buildProgram();

  it('leaves the top-level help exactly as it is with the whole tree', () => {
    expect(buildProgram(() => false).helpInformation()).toBe(full.helpInformation());
  });

  it('skips the sub-commands of the other groups', () => {
    const onlyNotes = buildProgram((g) => g === 'notes');
    expect(paths(onlyNotes).length).toBeLessThan(paths(full).length);
    expect(onlyNotes.commands.find((c) => c.name() === 'wm')!.commands).toEqual([]);
  });

  it.each(full.commands.map((c) => c.name()))('%s: the group named on the command line has its whole subtree and help', (name) => {
    const program = buildProgram((g) => g === name);
    const mine = program.commands.find((c) => c.name() === name)!;
    const theirs = full.commands.find((c) => c.name() === name)!;
    expect(paths(mine)).toEqual(paths(theirs));
    expect(mine.helpInformation()).toBe(theirs.helpInformation());
  });
});
