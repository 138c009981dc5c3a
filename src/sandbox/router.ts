import type { Result, Router } from 'hono/router';
import { TrieRouter } from 'hono/router/trie-router';

/** Paths whose matches are kept, and the longest path kept (longer ones are routed every time). */
const RECENT_PATHS = 1024;
const RECENT_PATH_MAX_LENGTH = 256;

/**
 * The sandbox's router: hono's TrieRouter, which takes every route of the contract (RegExpRouter refuses a static
 * segment beside a parameter, as `/workspaces/me` beside `/workspaces/{workspaceGuid}`), with the matches of recent
 * paths kept: a client asking for the same path again (polling a job or a live note, reading a note again) is routed
 * once, not through the trie each time. A match depends on the method and the path only, and hono only reads it, so
 * one match serves every request of that path. Bounded: cleared when full, and when a route is added.
 */
export class RecentPathsRouter<T> implements Router<T> {
  readonly name = 'TrieRouter, recent paths kept';
  private readonly trie = new TrieRouter<T>();
  /** method → path → match */
  private readonly recent = new Map<string, Map<string, Result<T>>>();
  private size = 0;

  add(method: string, path: string, handler: T): void {
    this.recent.clear();
    this.size = 0;
    this.trie.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    if (path.length > RECENT_PATH_MAX_LENGTH) return this.trie.match(method, path);
    let paths = this.recent.get(method);
    const kept = paths?.get(path);
    if (kept) return kept;
    const result = this.trie.match(method, path);
    if (this.size >= RECENT_PATHS) {
      this.recent.clear();
      this.size = 0;
      paths = undefined;
    }
    if (!paths) this.recent.set(method, (paths = new Map()));
    paths.set(path, result);
    this.size++;
    return result;
  }
}
