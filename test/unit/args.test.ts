import { InvalidArgumentError } from '@commander-js/extra-typings';
import { describe, expect, it } from 'vitest';
import { boundedText, commaList, folderId, integer, isoInstant, keyValue, locale, promptCheck, usageMessage } from '../../src/commands/args.js';
import { textProblem } from '../../src/commands/wm/rules.js';
import { charCount, LIMITS } from '../../src/contract/limits.js';
import { folderCreateInWorkspaceBody, workspaceCreateBody, noteUpdateBody, wmCreateBody } from '../../src/contract/schemas.js';

const emoji = (n: number) => '😀'.repeat(n);

describe('character limits count code points, in the CLI and in the contract', () => {
  it('charCount counts an emoji once', () => {
    expect(charCount(emoji(50))).toBe(50);
    expect(emoji(50).length).toBe(100);
  });

  it('a folder title, workspace name or note title of 50 emoji is 50 characters', () => {
    const title = boundedText('folder title', LIMITS.folderTitle);
    expect(title(emoji(LIMITS.folderTitle.max))).toBe(emoji(LIMITS.folderTitle.max));
    expect(() => title(emoji(LIMITS.folderTitle.max + 1))).toThrow(InvalidArgumentError);
    expect(folderCreateInWorkspaceBody.safeParse({ title: emoji(LIMITS.folderTitle.max) }).success).toBe(true);
    expect(folderCreateInWorkspaceBody.safeParse({ title: emoji(LIMITS.folderTitle.max + 1) }).success).toBe(false);
    expect(workspaceCreateBody.safeParse({ name: emoji(LIMITS.workspaceName.max) }).success).toBe(true);
    expect(workspaceCreateBody.safeParse({ name: emoji(LIMITS.workspaceName.max + 1) }).success).toBe(false);
    expect(noteUpdateBody.safeParse({ title: emoji(LIMITS.noteTitle.max) }).success).toBe(true);
    expect(noteUpdateBody.safeParse({ title: '   ' }).success).toBe(false);
  });

  it('a word-memory entry is counted in characters too', () => {
    const max = LIMITS.wordMemoryText.max;
    expect(textProblem('entry', emoji(max))).toBeUndefined();
    expect(textProblem('entry', emoji(max + 1))).toBe(`entry is ${max + 1} characters long (at most ${max})`);
    expect(wmCreateBody.safeParse({ entries: [{ entry: emoji(max) }] }).success).toBe(true);
    expect(wmCreateBody.safeParse({ entries: [{ entry: emoji(max + 1) }] }).success).toBe(false);
  });

  it('a prompt checks with the same parser', () => {
    const check = promptCheck(boundedText('folder title', LIMITS.folderTitle));
    expect(check(emoji(LIMITS.folderTitle.max))).toBe(true);
    expect(check('  ')).toMatch(/^The value is blank\. A folder title has 1 to 50 characters/);
  });
});

describe('argument parsers', () => {
  it('integers, ids, locales, instants, lists and pairs', () => {
    expect(integer(1, 10)('7')).toBe(7);
    for (const bad of ['0', '11', '1.5', 'x', '']) expect(() => integer(1, 10)(bad), bad).toThrow('must be a whole number from 1 to 10');
    expect(folderId('42')).toBe('42');
    expect(() => folderId('x1')).toThrow('is not a folder id');
    expect(locale('en_US')).toBe('en_US');
    expect(() => locale('english')).toThrow('is not a locale');
    expect(isoInstant('end')('2026-10-01')).toBe('2026-10-01T23:59:59.999Z');
    expect(() => isoInstant()('last week')).toThrow('is not an ISO 8601 date or instant');
    expect(commaList(locale, { max: 2 })('en_US, ko_KR,en_US')).toEqual(['en_US', 'ko_KR']);
    expect(() => commaList(locale, { max: 1 })('en_US,ko_KR')).toThrow('names 2 items, at most 1');
    expect(keyValue('a=b=c', [['x', '']])).toEqual([['x', ''], ['a', 'b=c']]);
    expect(() => keyValue('=b')).toThrow('is not key=value');
  });

  it("rewrites commander's refusals in the CLI's words: the option or argument, the value, the problem; the hint apart", () => {
    expect(usageMessage("error: option '--parent <id>' argument 'x1' is invalid. is not a folder id\nFolder ids are numbers.")).toEqual({
      message: '--parent "x1" is not a folder id',
      hint: 'Folder ids are numbers.',
    });
    expect(usageMessage("error: command-argument value '   ' is invalid for argument 'title'. is blank")).toEqual({ message: 'title "   " is blank' });
    expect(usageMessage("error: option '-o, --output <format>' argument 'xml' is invalid. Allowed choices are table, json.")).toEqual({
      message: '--output "xml" is not one of table, json',
    });
    expect(usageMessage("error: unknown option '--foo'")).toEqual({ message: "unknown option '--foo'" });
  });
});
