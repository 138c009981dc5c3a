// The fast validation of a seed's big arrays (seed/schema.ts parseSeed) against zod's (seedSchema): the same
// value for every seed zod accepts, and zod's own issues, by path, for every seed it refuses.
import { describe, expect, it } from 'vitest';
import { demoSeed } from '../../src/sandbox/demo-seed.js';
import { parseSeed, seedSchema, type SeedInput } from '../../src/sandbox/seed/schema.js';
import { makeNote, makeWordMemory } from '../bench/world.js';
import { seededRandom } from '../../src/sandbox/faults.js';
import { formatPath } from '../../src/sandbox/seed/schema.js';

const zod = (input: unknown) => {
  const r = seedSchema.safeParse(input);
  return r.success ? { success: true, data: r.data } : { success: false, issues: r.error.issues.map((i) => ({ path: formatPath(i.path), message: i.message })) };
};

function base(): SeedInput {
  return {
    now: '2026-01-01T00:00:00Z',
    organizations: [{ id: 'org_a', name: 'A' }],
    workspaces: [{ guid: 'wsAAAAAAAAAAAAA1', organizationId: 'org_a', name: 'One' }],
    users: [{ id: 1, name: 'Ann', email: 'ann@example.com', organizationId: 'org_a', memberships: [{ workspaceGuid: 'wsAAAAAAAAAAAAA1' }] }],
    notes: [],
    wordMemories: [],
  };
}

/** Notes and word memories in every shape the fast check takes, and some it leaves to zod. */
const NOTES: unknown[] = [
  { guid: 'nAAAAAAAAAAA1', title: 'Plain', ownerUserId: 1, sourceType: 'text' },
  { guid: 'nAAAAAAAAAAA2', title: 'Full', ownerUserId: 1, sourceType: 'recording', workspaceGuid: 'wsAAAAAAAAAAAAA1', id: 7, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-02T00:00:00+02:00', deleted: true },
  { guid: 'nAAAAAAAAAAA3', title: 'Folder as text', ownerUserId: 1, sourceType: 'text', folderId: '12', workspaceGuid: null },
  { guid: 'nAAAAAAAAAAA4', title: 'Folder null', ownerUserId: 1, sourceType: 'text', folderId: null, collaborators: [{ userId: 1, role: 'EDITOR' }] },
  { guid: 'nAAAAAAAAAAA5', title: 'Paragraphs', ownerUserId: 1, sourceType: 'text', paragraphs: [{ text: 'a' }, { speaker: null, text: 'b' }, { speaker: 'S', text: '' }, {}] },
  // left to zod: fields the fast check does not know
  { guid: 'nAAAAAAAAAAA6', title: 'Recording', ownerUserId: 1, sourceType: 'recording', recording: { durationSeconds: 3 }, participants: [{ name: 'P' }] },
  { guid: 'nAAAAAAAAAAA7', title: 'Locked', ownerUserId: 1, sourceType: 'text', paragraphs: [{ locked: true }], summaries: [{ locale: 'en_US', content: 'x' }] },
];
const WORD_MEMORIES: unknown[] = [
  { scope: 'user', scopeId: 1, entry: 'a' },
  { scope: 'user', scopeId: '1', entry: 'b', subEntry: null },
  { scope: 'workspace', scopeId: 'wsAAAAAAAAAAAAA1', entry: 'c', subEntry: 'C', id: 3 },
  { scope: 'organization', scopeId: 'org_a', entry: 'd', createdAt: '2026-01-01T00:00:00.000Z' },
];

describe('parseSeed', () => {
  it('gives what zod gives for valid seeds: the demo seed, a bench world, every fast shape', () => {
    const rand = seededRandom(1);
    const world = { ...base(), notes: Array.from({ length: 300 }, (_, i) => makeNote(i, rand)), wordMemories: Array.from({ length: 300 }, (_, j) => makeWordMemory(j)) };
    const mixed = { ...base(), notes: NOTES, wordMemories: WORD_MEMORIES };
    for (const seed of [demoSeed, world, mixed, base(), { organizations: [{ id: 'o', name: 'O' }] }]) {
      const fast = parseSeed(seed);
      expect(fast.success ? true : (fast as { issues: unknown }).issues).toBe(true);
      expect(fast).toEqual(zod(seed));
    }
  });

  it('does not change the seed it is given', () => {
    const seed = { ...base(), notes: structuredClone(NOTES), wordMemories: structuredClone(WORD_MEMORIES) };
    parseSeed(seed);
    expect(seed.notes).toEqual(NOTES);
    expect(seed.wordMemories).toEqual(WORD_MEMORIES);
  });

  // Each bad value of a field the fast check knows, deep in a big array: zod's issue, by its path.
  const bad: Array<[string, 'notes' | 'wordMemories', Record<string, unknown>]> = [
    ['unknown key', 'wordMemories', { scope: 'user', scopeId: 1, entry: 'x', extra: 1 }],
    ['id 0', 'wordMemories', { scope: 'user', scopeId: 1, entry: 'x', id: 0 }],
    ['id 1.5', 'wordMemories', { scope: 'user', scopeId: 1, entry: 'x', id: 1.5 }],
    ['scope', 'wordMemories', { scope: 'team', scopeId: 1, entry: 'x' }],
    ['scopeId', 'wordMemories', { scope: 'user', scopeId: 'a b', entry: 'x' }],
    ['scopeId -1', 'wordMemories', { scope: 'user', scopeId: -1, entry: 'x' }],
    ['entry blank', 'wordMemories', { scope: 'user', scopeId: 1, entry: '' }],
    ['entry long', 'wordMemories', { scope: 'user', scopeId: 1, entry: 'x'.repeat(64) }],
    ['subEntry', 'wordMemories', { scope: 'user', scopeId: 1, entry: 'x', subEntry: 'a b' }],
    ['createdAt', 'wordMemories', { scope: 'user', scopeId: 1, entry: 'x', createdAt: 'yesterday' }],
    ['not an object', 'wordMemories', ['user', 1, 'x'] as unknown as Record<string, unknown>],
    ['guid', 'notes', { guid: 'short', title: 'T', ownerUserId: 1, sourceType: 'text' }],
    ['title blank', 'notes', { guid: 'nBBBBBBBBBBB1', title: '  ', ownerUserId: 1, sourceType: 'text' }],
    ['title long', 'notes', { guid: 'nBBBBBBBBBBB1', title: 'x'.repeat(101), ownerUserId: 1, sourceType: 'text' }],
    ['owner', 'notes', { guid: 'nBBBBBBBBBBB1', title: 'T', ownerUserId: '1', sourceType: 'text' }],
    ['sourceType', 'notes', { guid: 'nBBBBBBBBBBB1', title: 'T', ownerUserId: 1, sourceType: 'fax' }],
    ['workspaceGuid', 'notes', { guid: 'nBBBBBBBBBBB1', title: 'T', ownerUserId: 1, sourceType: 'text', workspaceGuid: 'ws' }],
    ['folderId', 'notes', { guid: 'nBBBBBBBBBBB1', title: 'T', ownerUserId: 1, sourceType: 'text', folderId: '012' }],
    ['deleted', 'notes', { guid: 'nBBBBBBBBBBB1', title: 'T', ownerUserId: 1, sourceType: 'text', deleted: 'no' }],
    ['collaborator role', 'notes', { guid: 'nBBBBBBBBBBB1', title: 'T', ownerUserId: 1, sourceType: 'text', collaborators: [{ userId: 1, role: 'BOSS' }] }],
    ['paragraph key', 'notes', { guid: 'nBBBBBBBBBBB1', title: 'T', ownerUserId: 1, sourceType: 'text', paragraphs: [{ text: 'a', mood: 'x' }] }],
    ['paragraph text', 'notes', { guid: 'nBBBBBBBBBBB1', title: 'T', ownerUserId: 1, sourceType: 'text', paragraphs: [{ text: 3 }] }],
  ];
  it.each(bad)('reports a bad %s deep in %s as zod does', (_, array, item) => {
    const rand = seededRandom(2);
    const seed: Record<string, unknown> = {
      ...base(),
      notes: Array.from({ length: 1000 }, (_, i) => ({ ...makeNote(i, rand), folderId: undefined, workspaceGuid: 'wsAAAAAAAAAAAAA1', ownerUserId: 1 })).map((n) => JSON.parse(JSON.stringify(n))),
      wordMemories: Array.from({ length: 10_000 }, (_, j) => ({ scope: 'user', scopeId: 1, entry: `w${j}` })),
    };
    const items = seed[array] as unknown[];
    items[items.length - 7] = item;
    const fast = parseSeed(seed);
    expect(fast.success).toBe(false);
    expect(fast).toEqual(zod(seed));
    expect((fast as { issues: Array<{ path: string }> }).issues[0].path).toMatch(new RegExp(`^${array}\\[${items.length - 7}\\]`));
  });
});
