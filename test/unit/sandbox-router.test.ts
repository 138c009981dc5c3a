import { TrieRouter } from 'hono/router/trie-router';
import { describe, expect, it } from 'vitest';
import { RecentPathsRouter } from '../../src/sandbox/router.js';
import { inProcessSandbox } from '../helpers/sandbox.js';

type Route = { method: string; path: string; handler: unknown };

/** Paths to route: each route's own, with values for its parameters, and near misses of it. */
function pathsOf(routes: Route[]): string[] {
  const out = new Set<string>(['/', '', '//', '/v1', '/v1/', '/nothing/here', '/_sandbox', '/_sandbox/', '/openapi.json', '/openapi.json/x']);
  for (const r of routes) {
    for (const value of ['abc', 'me', '-', '12', 'a.b']) {
      const p = r.path.replace(/:\w+/g, value).replace(/\*$/, 'rest/of/it');
      out.add(p);
      out.add(p + '/');
      out.add(p + '/extra');
      out.add(p.slice(0, p.lastIndexOf('/')) || '/');
      out.add(p.replace(/\/[^/]*$/, '//'));
    }
  }
  return [...out];
}

describe('RecentPathsRouter', () => {
  it("matches every path of the sandbox's routes as hono's TrieRouter does, the same match again from its memory", async () => {
    const sb = await inProcessSandbox();
    try {
      const routes = (sb.app as unknown as { routes: Route[] }).routes;
      expect(routes.length).toBeGreaterThan(100);
      const trie = new TrieRouter<unknown>();
      const recent = new RecentPathsRouter<unknown>();
      for (const r of routes) {
        trie.add(r.method, r.path, r.handler);
        recent.add(r.method, r.path, r.handler);
      }
      const paths = pathsOf(routes);
      let matched = 0;
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'BREW']) {
        for (const path of paths) {
          const want = trie.match(method, path);
          const got = recent.match(method, path);
          expect(got, `${method} ${path}`).toEqual(want);
          expect(recent.match(method, path), `${method} ${path} again`).toBe(got);
          if (got[0].length > 0) matched++;
        }
      }
      expect(matched).toBeGreaterThan(routes.length);
    } finally {
      await sb.close();
    }
  });

  it('keeps a bounded number of paths, forgets them when a route is added, and routes long paths every time', () => {
    const router = new RecentPathsRouter<string>();
    router.add('GET', '/notes/:guid', 'note');
    const first = router.match('GET', '/notes/n0');
    for (let i = 1; i <= 1024; i++) router.match('GET', `/notes/n${i}`);
    // full: cleared, so the first path is routed again (an equal match, not the same object)
    const again = router.match('GET', '/notes/n0');
    expect(again).toEqual(first);
    expect(again).not.toBe(first);
    expect(router.match('GET', '/notes/n0')).toBe(again);
    router.add('GET', '/notes/:guid/*', 'below');
    expect(router.match('GET', '/notes/n0')).toEqual([[['note', { guid: 'n0' }], ['below', { guid: 'n0' }]]]);
    const long = `/notes/${'x'.repeat(300)}`;
    expect(router.match('GET', long)).not.toBe(router.match('GET', long));
    expect(router.match('GET', long)).toEqual([[['note', { guid: 'x'.repeat(300) }], ['below', { guid: 'x'.repeat(300) }]]]);
  });
});
