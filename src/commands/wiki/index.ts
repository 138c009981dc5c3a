import type { Command } from 'commander';
import { PAGE_SIZES } from '../../contract/limits.js';
import { action, examples, listOptions, skipped } from '../shared.js';

const PAGE = 'wp_harbor_freight';

/** `wiki pages|page|mentions|search`: a workspace's wiki (needs the wiki plan and activation). */
export function registerWiki(program: Command): void {
  const load = () => import('./run.js');
  const { default: perPage, min, max } = PAGE_SIZES.wiki;
  const wiki = program.command('wiki').description("read a workspace's wiki: pages, their mentions in notes, search");
  if (skipped(wiki)) return;
  const withWorkspace = (cmd: Command) => cmd.option('--workspace <ws>', "workspace guid or exact name (default: the key's bound workspace)");
  const limitNote = `--limit ${min}–${max}`;

  examples(
    listOptions(
      withWorkspace(wiki.command('pages').description(`list wiki pages by name (${limitNote})`))
        .option('--type <type>', 'only pages of this type (e.g. person, project, feature)')
        .option('--since <time>', 'only pages updated at or after this ISO 8601 date or instant')
        .option('--search <text>', 'only pages whose name, aliases or description contain the text (the API\'s q; not --query, which is the global JMESPath filter)'),
      perPage,
    ).action(action(load, 'pages')),
    [
      'notevox wiki pages --workspace "Product Team"',
      'notevox wiki pages --workspace "Product Team" --type feature --since 2026-10-01',
      'notevox wiki pages --workspace wsProductTeam001 --search harbor --json',
      'notevox wiki pages --all -o ndjson                    # with a key bound to a workspace',
    ],
  );

  examples(withWorkspace(wiki.command('page <pageGuid>').description('show a page with its aliases and links')).action(action(load, 'page')), [
    `notevox wiki page ${PAGE} --workspace "Product Team"`,
    `notevox wiki page ${PAGE} --workspace "Product Team" --json --query links`,
  ]);

  examples(
    listOptions(withWorkspace(wiki.command('mentions <pageGuid>').description(`where notes mention a page (${limitNote}; --all follows every page)`)), perPage).action(
      action(load, 'mentions'),
    ),
    [
      `notevox wiki mentions ${PAGE} --workspace "Product Team"`,
      `notevox wiki mentions ${PAGE} --workspace "Product Team" --all -o ndjson > mentions.ndjson`,
      `notevox wiki mentions ${PAGE} --workspace "Product Team" --limit 200 --cursor <nextCursor>`,
    ],
  );

  examples(withWorkspace(wiki.command('search <text>').description('pages matching a text, best matches first')).action(action(load, 'search')), [
    'notevox wiki search "offline" --workspace "Product Team"',
    'notevox wiki search HFL --workspace wsProductTeam001 --json',
  ]);
}
