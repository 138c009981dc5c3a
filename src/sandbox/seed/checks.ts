import { LIMITS } from '../../contract/limits.js';
import { generatedParagraphs, liveSpecProblem, spokenSeconds as liveSpokenSeconds, DEFAULT_LIVE, type LiveSpec } from '../events/live.js';
import { NON_RECORDING_SOURCE_TYPES, parseSeed, RECORDING_SOURCE_TYPES, SeedError, type NoteSeed, type Seed, type SeedIssue } from './schema.js';

/**
 * The checks of a seed across its items (references, uniqueness, memberships, nesting), after the schema
 * has checked each item on its own. Every problem is reported with its JSON path, all of them at once.
 */

/** Lookups over a parsed seed, shared by the reference checks and the loader. */
export class SeedIndex {
  readonly organizations = new Map<string, Seed['organizations'][number]>();
  readonly workspaces = new Map<string, Seed['workspaces'][number]>();
  readonly users = new Map<number, Seed['users'][number]>();
  readonly folders = new Map<number, Seed['folders'][number]>();
  readonly templates = new Map<number, Seed['templates'][number]>();
  readonly notes = new Map<string, NoteSeed>();
  readonly keys = new Map<string, Seed['apiKeys'][number]>();
  readonly pages = new Map<string, Seed['wiki']['pages'][number]>();
  readonly issues: SeedIssue[] = [];

  constructor(readonly seed: Seed) {
    this.fill(this.organizations, seed.organizations, 'organizations', (o) => o.id);
    this.fill(this.workspaces, seed.workspaces, 'workspaces', (w) => w.guid, 'guid');
    this.fill(this.users, seed.users, 'users', (u) => u.id);
    this.fill(this.folders, seed.folders, 'folders', (f) => f.id);
    this.fill(this.templates, seed.templates, 'templates', (t) => t.id);
    this.fill(this.notes, seed.notes, 'notes', (n) => n.guid, 'guid');
    this.fill(this.keys, seed.apiKeys, 'apiKeys', (k) => k.id);
    this.fill(this.pages, seed.wiki.pages, 'wiki.pages', (p) => p.guid, 'guid');
  }

  private fill<K, T>(map: Map<K, T>, items: T[], path: string, key: (t: T) => K, field = 'id') {
    items.forEach((item, i) => {
      const k = key(item);
      if (map.has(k)) this.issue(`${path}[${i}].${field}`, `duplicate ${field} ${JSON.stringify(k)} (also at ${path}[${items.indexOf(map.get(k)!)}])`);
      else map.set(k, item);
    });
  }

  issue(path: string, message: string) {
    this.issues.push({ path, message });
  }

  /** Report `message` at `path` unless `ok`; returns ok. */
  check(ok: boolean, path: string, message: string): boolean {
    if (!ok) this.issue(path, message);
    return ok;
  }

  /** Check a reference exists; returns the target. */
  ref<K, T>(map: Map<K, T>, key: K | null | undefined, path: string, what: string): T | undefined {
    if (key === null || key === undefined) return undefined;
    const target = map.get(key);
    if (target === undefined) this.issue(path, `unknown ${what} ${JSON.stringify(key)}`);
    return target;
  }

  isMember(uid: number, ws: string): boolean {
    return this.users.get(uid)?.memberships.some((m) => m.workspaceGuid === ws) ?? false;
  }

  /** The workspace of a note: its own, else its folder's. */
  noteWorkspace(n: NoteSeed): string | null {
    if (n.workspaceGuid) return n.workspaceGuid;
    return n.folderId != null ? (this.folders.get(n.folderId)?.workspaceGuid ?? null) : null;
  }

  /** Organization of a key: its own, its user's, its issuer's or its workspace's; the only organization for an organization key. */
  keyOrganization(k: Seed['apiKeys'][number]): string | null {
    if (k.userId !== undefined) return this.users.get(k.userId)?.organizationId ?? null;
    if (k.issuedByUserId !== undefined) return this.users.get(k.issuedByUserId)?.organizationId ?? null;
    if (k.workspaceGuid) return this.workspaces.get(k.workspaceGuid)?.organizationId ?? null;
    if (k.organizationId) return k.organizationId;
    return k.type === 'ORGANIZATION' && this.organizations.size === 1 ? [...this.organizations.keys()][0] : null;
  }
}

/** The collaborator guid a user is served with. */
const userGuid = (u: { id: number; guid?: string }) => u.guid ?? `user-${u.id}`;

function checkWorkspacesAndUsers(ix: SeedIndex) {
  ix.seed.workspaces.forEach((w, i) => {
    const at = `workspaces[${i}]`;
    ix.ref(ix.organizations, w.organizationId, `${at}.organizationId`, 'organization');
    ix.check(!w.wikiEnabled || w.wikiPlan, `${at}.wikiEnabled`, 'the wiki can only be activated on a workspace with the wiki plan (wikiPlan: true)');
  });
  const guids = new Map<string, string>();
  ix.seed.users.forEach((u, i) => {
    const at = `users[${i}]`;
    ix.ref(ix.organizations, u.organizationId, `${at}.organizationId`, 'organization');
    const guid = userGuid(u);
    ix.check(!guids.has(guid), `${at}.guid`, `duplicate user guid ${guid} (also the guid of ${guids.get(guid)}; users without one get user-<id>)`);
    guids.set(guid, at);
    const seen = new Set<string>();
    u.memberships.forEach((m, j) => {
      const mAt = `${at}.memberships[${j}].workspaceGuid`;
      const ws = ix.ref(ix.workspaces, m.workspaceGuid, mAt, 'workspace');
      if (ws) ix.check(ws.organizationId === u.organizationId, mAt, `workspace ${m.workspaceGuid} belongs to another organization than the user`);
      ix.check(!seen.has(m.workspaceGuid), mAt, `duplicate membership in ${m.workspaceGuid}`);
      seen.add(m.workspaceGuid);
    });
  });
}

function checkApiKeys(ix: SeedIndex) {
  ix.seed.apiKeys.forEach((k, i) => {
    const at = `apiKeys[${i}]`;
    const user = ix.ref(ix.users, k.userId, `${at}.userId`, 'user');
    const ws = ix.ref(ix.workspaces, k.workspaceGuid, `${at}.workspaceGuid`, 'workspace');
    ix.ref(ix.organizations, k.organizationId, `${at}.organizationId`, 'organization');
    const personal = k.type === 'USER' || k.type === 'LEGACY_PERSONAL';
    ix.check(!personal || k.userId !== undefined, `${at}.userId`, `a ${k.type} key needs the user it acts for`);
    ix.check(personal || k.userId === undefined, `${at}.userId`, `a ${k.type} key acts for no user: remove userId`);
    ix.check(k.type !== 'LEGACY_PERSONAL' || !k.workspaceGuid, `${at}.workspaceGuid`, 'a legacy personal key is bound to no workspace');
    ix.check(k.type !== 'ORGANIZATION' || !k.workspaceGuid, `${at}.workspaceGuid`, 'an organization key is bound to no workspace');
    ix.check(k.type === 'WORKSPACE' || !k.legacyScope, `${at}.legacyScope`, 'only workspace keys have the legacy note scope');
    if (k.issuedByUserId !== undefined) {
      const issuer = ix.ref(ix.users, k.issuedByUserId, `${at}.issuedByUserId`, 'user');
      ix.check(k.type === 'ORGANIZATION', `${at}.issuedByUserId`, `only ORGANIZATION keys have an issuer in the seed, not ${k.type} keys`);
      if (issuer) ix.check(issuer.orgAdmin, `${at}.issuedByUserId`, `user ${issuer.id} is not an organization admin (orgAdmin: true), who issue organization keys`);
    }
    if (k.type === 'USER' && user && ws)
      ix.check(ix.isMember(user.id, ws.guid), `${at}.workspaceGuid`, `user ${user.id} is not a member of workspace ${ws.guid}`);
    const org = ix.keyOrganization(k);
    if (k.type === 'ORGANIZATION' || (k.type === 'WORKSPACE' && !k.workspaceGuid))
      ix.check(org !== null, `${at}.organizationId`, `a ${k.type} key ${k.type === 'WORKSPACE' ? 'not bound to a workspace ' : ''}needs organizationId`);
    if (k.organizationId && org !== null)
      ix.check(org === k.organizationId, `${at}.organizationId`, `${org} is the organization of the key's ${user ? 'user' : k.issuedByUserId !== undefined ? 'issuer' : 'workspace'}`);
  });
}

function checkFolders(ix: SeedIndex) {
  ix.seed.folders.forEach((f, i) => {
    const at = `folders[${i}]`;
    const ws = ix.ref(ix.workspaces, f.workspaceGuid, `${at}.workspaceGuid`, 'workspace');
    if (ix.ref(ix.users, f.ownerUserId, `${at}.ownerUserId`, 'user') && ws)
      ix.check(ix.isMember(f.ownerUserId, f.workspaceGuid), `${at}.ownerUserId`, `user ${f.ownerUserId} is not a member of workspace ${f.workspaceGuid}`);
    const parent = ix.ref(ix.folders, f.parentId, `${at}.parentId`, 'folder');
    if (parent) ix.check(parent.workspaceGuid === f.workspaceGuid, `${at}.parentId`, `folder ${parent.id} is in another workspace`);
    ix.check(f.sharingType === 'LIMITED' || f.members.length === 0, `${at}.members`, 'only LIMITED folders have members');
    const seen = new Set<number>();
    f.members.forEach((m, j) => {
      const mAt = `${at}.members[${j}].userId`;
      if (ix.ref(ix.users, m.userId, mAt, 'user'))
        ix.check(ix.isMember(m.userId, f.workspaceGuid), mAt, `user ${m.userId} is not a member of workspace ${f.workspaceGuid}`);
      ix.check(!seen.has(m.userId), mAt, `duplicate member ${m.userId}`);
      seen.add(m.userId);
    });
    // Depth: a root-level folder is depth 1 (decisions.md §5.1).
    const chain = new Set<number>([f.id]);
    let cur = parent;
    while (cur) {
      if (!ix.check(!chain.has(cur.id), `${at}.parentId`, `the parent chain loops back to folder ${cur.id}`)) return;
      chain.add(cur.id);
      cur = cur.parentId != null ? ix.folders.get(cur.parentId) : undefined;
    }
    ix.check(
      chain.size <= LIMITS.folderMaxDepth,
      `${at}.parentId`,
      `folder ${f.id} would be at depth ${chain.size}: folders nest at most ${LIMITS.folderMaxDepth} deep (a root-level folder is depth 1)`,
    );
  });
}

function checkTemplates(ix: SeedIndex) {
  ix.seed.templates.forEach((t, i) => {
    const at = `templates[${i}]`;
    const owners = [['USER', 'ownerUserId'], ['WORKSPACE', 'workspaceGuid'], ['ORGANIZATION', 'organizationId']] as const;
    for (const [type, field] of owners) {
      const present = t[field] !== undefined;
      if (t.ownerType === type) ix.check(present, `${at}.${field}`, `a ${type} template needs ${field}`);
      else ix.check(!present, `${at}.${field}`, `a ${t.ownerType} template has no ${field}`);
    }
    ix.ref(ix.users, t.ownerUserId, `${at}.ownerUserId`, 'user');
    ix.ref(ix.workspaces, t.workspaceGuid, `${at}.workspaceGuid`, 'workspace');
    ix.ref(ix.organizations, t.organizationId, `${at}.organizationId`, 'organization');
    ix.check(t.kind !== 'one_pager' || t.ownerType === 'MANAGED', `${at}.kind`, 'only MANAGED templates can be one-pagers');
  });
}

function checkNotes(ix: SeedIndex) {
  const noteIds = new Map<number, string>();
  const summaryIds = new Map<number, string>();
  const documentIds = new Map<number, string>();
  const paragraphIds = new Map<number, string>();
  const paragraphUuids = new Map<string, string>();
  const unique = <K>(ids: Map<K, string>, id: K | undefined, path: string, what = 'id') => {
    if (id === undefined) return;
    ix.check(!ids.has(id), path, `duplicate ${what} ${id} (also at ${ids.get(id)})`);
    ids.set(id, path);
  };
  // The paths and messages of a note's problems are made only for the problems found (100k notes made every one of
  // them, and a JSON text of each reference, for nothing: measured, about a tenth of these checks' CPU).
  ix.seed.notes.forEach((n, i) => {
    const at = `notes[${i}]`;
    if (n.id !== undefined) unique(noteIds, n.id, `${at}.id`);
    const owner = ix.users.get(n.ownerUserId) ?? ix.ref(ix.users, n.ownerUserId, `${at}.ownerUserId`, 'user');
    if (n.workspaceGuid && !ix.workspaces.has(n.workspaceGuid)) ix.ref(ix.workspaces, n.workspaceGuid, `${at}.workspaceGuid`, 'workspace');
    const folder = n.folderId == null ? undefined : (ix.folders.get(n.folderId) ?? ix.ref(ix.folders, n.folderId, `${at}.folderId`, 'folder'));
    if (folder && n.workspaceGuid && folder.workspaceGuid !== n.workspaceGuid)
      ix.issue(`${at}.folderId`, `folder ${folder.id} is in workspace ${folder.workspaceGuid}, not ${n.workspaceGuid}`);
    const ws = ix.noteWorkspace(n);
    if (ws && owner && ix.workspaces.has(ws) && !ix.isMember(n.ownerUserId, ws)) ix.issue(`${at}.ownerUserId`, `user ${n.ownerUserId} is not a member of workspace ${ws}`);
    if (n.recording && NON_RECORDING_SOURCE_TYPES.has(n.sourceType)) ix.issue(`${at}.recording`, `a ${n.sourceType} note has no recording`);
    n.collaborators.forEach((c, j) => {
      const u = ix.users.get(c.userId) ?? ix.ref(ix.users, c.userId, `${at}.collaborators[${j}].userId`, 'user');
      if (u && owner && u.organizationId !== owner.organizationId) ix.issue(`${at}.collaborators[${j}].userId`, `user ${c.userId} is in another organization than the note's owner`);
      if (n.collaborators.findIndex((x) => x.userId === c.userId) !== j) ix.issue(`${at}.collaborators[${j}].userId`, `duplicate collaborator ${c.userId}`);
    });
    n.paragraphs.forEach((p, j) => {
      const pAt = `${at}.paragraphs[${j}]`;
      if (p.id !== undefined) unique(paragraphIds, p.id, `${pAt}.id`);
      if (p.uuid !== undefined) unique(paragraphUuids, p.uuid, `${pAt}.uuid`, 'uuid');
      if (p.locked) {
        // decisions.md §3.2: the plan hides a locked paragraph's content.
        ix.check(!p.text, `${pAt}.text`, 'a locked paragraph shows no text: leave text out (or empty)');
        ix.check(p.diarizedSegments.length === 0, `${pAt}.diarizedSegments`, 'a locked paragraph shows no speaker split: leave diarizedSegments out');
      } else {
        ix.check(
          (p.text !== undefined && p.text.trim() !== '') || p.diarizedSegments.length > 0,
          `${pAt}.text`,
          'must not be blank (give the text, or diarizedSegments to join, or mark the paragraph locked: true)',
        );
      }
    });
    n.summaries.forEach((s, j) => {
      unique(summaryIds, s.id, `${at}.summaries[${j}].id`);
      ix.ref(ix.templates, s.templateId, `${at}.summaries[${j}].templateId`, 'template');
      if (s.createdAt && s.updatedAt)
        ix.check(Date.parse(s.updatedAt) >= Date.parse(s.createdAt), `${at}.summaries[${j}].updatedAt`, 'must not be before createdAt');
    });
    n.documents.forEach((d, j) => {
      unique(documentIds, d.id, `${at}.documents[${j}].id`);
      ix.ref(ix.templates, d.templateId, `${at}.documents[${j}].templateId`, 'template');
    });
  });
}

/** The live part of a note seed as the live engine takes it. */
export function liveSpecOf(live: NonNullable<NoteSeed['live']>): LiveSpec {
  const paragraphs = live.paragraphs
    ? live.paragraphs.map((p, i) => {
        const o = typeof p === 'string' ? { text: p } : p;
        return { speaker: o.speaker ?? `Speaker ${(i % 2) + 1}`, text: o.text, durationSeconds: o.durationSeconds ?? liveSpokenSeconds(o.text) };
      })
    : generatedParagraphs(live.count ?? DEFAULT_LIVE.count);
  return { paragraphs, intervalSeconds: live.paragraphIntervalSeconds, stops: live.stops };
}

function checkLiveNotes(ix: SeedIndex) {
  ix.seed.notes.forEach((n, i) => {
    if (!n.live) return;
    const at = `notes[${i}].live`;
    ix.check(RECORDING_SOURCE_TYPES.has(n.sourceType), `notes[${i}].sourceType`, `a ${n.sourceType} note cannot be live: use one of ${[...RECORDING_SOURCE_TYPES].join(', ')}`);
    ix.check(!n.deleted, `notes[${i}].deleted`, 'a deleted note cannot be live');
    if (!ix.check(!(n.live.paragraphs && n.live.count !== undefined), `${at}.count`, 'give either paragraphs or count, not both')) return;
    const problem = liveSpecProblem(liveSpecOf(n.live));
    if (problem) ix.issue(`${at}.${problem.slice(0, problem.indexOf(':'))}`, problem.slice(problem.indexOf(':') + 2));
  });
}

function checkWebhookEndpoints(ix: SeedIndex) {
  const seen = new Map<string, number>();
  ix.seed.webhookEndpoints.forEach((e, i) => {
    const at = `webhookEndpoints[${i}]`;
    ix.check(!seen.has(e.id), `${at}.id`, `duplicate id ${JSON.stringify(e.id)} (also at webhookEndpoints[${seen.get(e.id)}])`);
    seen.set(e.id, i);
    ix.ref(ix.organizations, e.organizationId, `${at}.organizationId`, 'organization');
    e.workspaceGuids.forEach((g, j) => ix.ref(ix.workspaces, g, `${at}.workspaceGuids[${j}]`, 'workspace'));
    ix.check(!(e.organizationId && e.workspaceGuids.length), `${at}.workspaceGuids`, 'give either organizationId (every workspace of it) or workspaceGuids, not both');
  });
}

/**
 * `entries`: also report an entry given twice in one scope. A first pass leaves that to the loader: the table's
 * UNIQUE (scope_type, scope_id, entry) finds it for free while the rows go in, where keeping a million entries in
 * maps here cost seconds on a big seed; when it does, or when another problem is found, the checks run again with
 * it, so the problems reported are the same, in the same order.
 */
function checkWordMemories(ix: SeedIndex, entries: boolean) {
  // A seed may hold millions: paths and messages are made only for a problem, entries are kept per scope in
  // maps keyed by the seed's own strings (no key string made per item), and whether a scope exists is
  // looked up once per scope, not once per item.
  type Scope = { scope: string; scopeId: string; key: string | number; known: boolean; entries: Map<string, number> };
  const scopes = new Map<string, Map<string, Scope>>();
  const ids = new Map<number, number>();
  const targets: Record<string, Map<string | number, unknown>> = { user: ix.users, workspace: ix.workspaces, organization: ix.organizations };
  const items = ix.seed.wordMemories;
  let scope: Scope | undefined;
  for (let i = 0; i < items.length; i++) {
    const w = items[i];
    if (w.id !== undefined) {
      const other = ids.get(w.id);
      if (other !== undefined) ix.issue(`wordMemories[${i}].id`, `duplicate id ${w.id} (also at wordMemories[${other}])`);
      ids.set(w.id, i);
    }
    if (!scope || scope.scope !== w.scope || scope.scopeId !== w.scopeId) {
      let byId = scopes.get(w.scope);
      if (!byId) scopes.set(w.scope, (byId = new Map()));
      scope = byId.get(w.scopeId);
      if (!scope) {
        const map = targets[w.scope];
        const key = w.scope === 'user' ? (/^\d+$/.test(w.scopeId) ? Number(w.scopeId) : -1) : w.scopeId;
        byId.set(w.scopeId, (scope = { scope: w.scope, scopeId: w.scopeId, key, known: !map || map.has(key), entries: new Map() }));
      }
    }
    if (!scope.known) ix.issue(`wordMemories[${i}].scopeId`, `unknown ${w.scope} ${JSON.stringify(scope.key)}`);
    if (!entries) continue;
    const other = scope.entries.get(w.entry);
    if (other !== undefined) ix.issue(`wordMemories[${i}].entry`, `duplicate entry ${JSON.stringify(w.entry)} in this scope (also at wordMemories[${other}])`);
    scope.entries.set(w.entry, i);
  }
}

function checkWiki(ix: SeedIndex) {
  const { pages, mentions, generatedMentions } = ix.seed.wiki;
  pages.forEach((p, i) => {
    const at = `wiki.pages[${i}]`;
    ix.ref(ix.workspaces, p.workspaceGuid, `${at}.workspaceGuid`, 'workspace');
    p.links.forEach((l, j) => {
      const target = ix.ref(ix.pages, l, `${at}.links[${j}]`, 'wiki page');
      if (target) ix.check(target.workspaceGuid === p.workspaceGuid && target.guid !== p.guid, `${at}.links[${j}]`, 'links go to other pages of the same workspace');
    });
  });
  /** The note of a mention, checked to be in the page's workspace and to have paragraphs. */
  const mentionNote = (pageGuid: string, guid: string, at: string) => {
    const page = ix.pages.get(pageGuid);
    const note = ix.ref(ix.notes, guid, at, 'note');
    if (!note || !page) return undefined;
    if (!ix.check(ix.noteWorkspace(note) === page.workspaceGuid, at, `note ${guid} is not in the page's workspace ${page.workspaceGuid}`)) return undefined;
    return ix.check(note.paragraphs.length > 0, at, `note ${guid} has no paragraphs to mention`) ? note : undefined;
  };
  const guids = new Set<string>();
  mentions.forEach((m, i) => {
    const at = `wiki.mentions[${i}]`;
    ix.ref(ix.pages, m.pageGuid, `${at}.pageGuid`, 'wiki page');
    const note = mentionNote(m.pageGuid, m.noteGuid, `${at}.noteGuid`);
    if (note) ix.check(m.paragraphIndex < note.paragraphs.length, `${at}.paragraphIndex`, `note ${note.guid} has ${note.paragraphs.length} paragraphs`);
    ix.ref(ix.users, m.sourceUserId, `${at}.sourceUserId`, 'user');
    if (m.guid) ix.check(!guids.has(m.guid), `${at}.guid`, `duplicate guid ${m.guid}`);
    if (m.guid) guids.add(m.guid);
  });
  generatedMentions.forEach((g, i) => {
    const at = `wiki.generatedMentions[${i}]`;
    ix.ref(ix.pages, g.pageGuid, `${at}.pageGuid`, 'wiki page');
    g.noteGuids.forEach((guid, j) => mentionNote(g.pageGuid, guid, `${at}.noteGuids[${j}]`));
  });
}

export interface AnalyzeOptions {
  /** Also check that no entry of the word memories is given twice in a scope (see checkWordMemories). */
  wordMemoryEntries?: boolean;
}

export function analyze(input: unknown, source?: string, opts: AnalyzeOptions = {}): { seed: Seed; index: SeedIndex } {
  const parsed = parseSeed(input);
  if (!parsed.success) throw new SeedError(parsed.issues, source);
  const run = (entries: boolean) => {
    const index = new SeedIndex(parsed.data);
    for (const check of [checkWorkspacesAndUsers, checkApiKeys, checkFolders, checkTemplates, checkNotes, checkLiveNotes]) check(index);
    checkWordMemories(index, entries);
    for (const check of [checkWiki, checkWebhookEndpoints]) check(index);
    return index;
  };
  let index = run(opts.wordMemoryEntries ?? false);
  if (index.issues.length && !opts.wordMemoryEntries) index = run(true);
  if (index.issues.length) throw new SeedError(index.issues, source);
  return { seed: parsed.data, index };
}
