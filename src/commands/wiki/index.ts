import { Command } from '@commander-js/extra-typings';
import { PAGE_SIZES } from '../../contract/limits.js';
import { isoInstant, nonBlank } from '../args.js';
import type { Registry } from '../registry.js';
import { listOptions } from '../shared.js';

const PAGE = 'wp_harbor_freight';
const { default: perPage, min, max } = PAGE_SIZES.wiki;
const limitNote = `--limit ${min}–${max}`;
const inWorkspace = <A extends unknown[]>(cmd: Command<A>) => cmd.option('--workspace <ws>', "workspace guid or exact name (default: the key's bound workspace)");

export const pages = () =>
  listOptions(
    inWorkspace(new Command('pages').description(`list wiki pages by name (${limitNote})`))
      .option('--type <type>', 'only pages of this type (e.g. person, project, feature)', nonBlank)
      .option('--since <time>', 'only pages updated at or after this ISO 8601 date or instant', isoInstant())
      .option('--search <text>', "only pages whose name, aliases or description contain the text (the API's q; not --query, which is the global JMESPath filter)", nonBlank),
    perPage,
    max,
  );
export const page = () => inWorkspace(new Command('page').argument('<pageGuid>', 'the page guid', nonBlank).description('show a page with its aliases and links'));
export const mentions = () =>
  listOptions(inWorkspace(new Command('mentions').argument('<pageGuid>', 'the page guid', nonBlank).description(`where notes mention a page (${limitNote}; --all follows every page)`)), perPage, max);
export const search = () => inWorkspace(new Command('search').argument('<text>', 'what to search for', nonBlank).description('pages matching a text, best matches first'));

/** `wiki pages|page|mentions|search`: a workspace's wiki (needs the wiki plan and activation). */
export function registerWiki(program: Command, r: Registry): void {
  const wiki = program.command('wiki').description("read a workspace's wiki: pages, their mentions in notes, search");
  if (!r.wants('wiki')) return;
  const load = () => import('./run.js');
  r.add(wiki, pages, load, 'pages', [
    'notevox wiki pages --workspace "Product Team"',
    'notevox wiki pages --workspace "Product Team" --type feature --since 2026-10-01',
    'notevox wiki pages --workspace wsProductTeam001 --search harbor --json',
    'notevox wiki pages --all -o ndjson                    # with a key bound to a workspace',
  ]);
  r.add(wiki, page, load, 'page', [`notevox wiki page ${PAGE} --workspace "Product Team"`, `notevox wiki page ${PAGE} --workspace "Product Team" --json --query links`]);
  r.add(wiki, mentions, load, 'mentions', [
    `notevox wiki mentions ${PAGE} --workspace "Product Team"`,
    `notevox wiki mentions ${PAGE} --workspace "Product Team" --all -o ndjson > mentions.ndjson`,
    `notevox wiki mentions ${PAGE} --workspace "Product Team" --limit 200 --cursor <nextCursor>`,
  ]);
  r.add(wiki, search, load, 'search', ['notevox wiki search "offline" --workspace "Product Team"', 'notevox wiki search HFL --workspace wsProductTeam001 --json']);
}
