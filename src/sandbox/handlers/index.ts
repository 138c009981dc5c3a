import type { Hono } from 'hono';
import type { Handlers, SandboxRuntime } from '../types.js';
import { folderHandlers } from './folders.js';
import { metaHandlers } from './meta.js';
import { notesCoreHandlers } from './notes-core.js';
import { notesExtraHandlers } from './notes-extra.js';
import { templateHandlers } from './templates.js';
import { voiceHandlers, voiceRoutes } from './voice.js';
import { wikiHandlers } from './wiki.js';
import { wordMemoryHandlers } from './word-memories.js';
import { workspaceHandlers } from './workspaces.js';

/**
 * Every implemented endpoint, by contract id. An endpoint of the contract without a handler
 * answers 404001 (never a fake success).
 */
export const HANDLERS = {
  ...metaHandlers,
  ...notesCoreHandlers,
  ...notesExtraHandlers,
  ...templateHandlers,
  ...folderHandlers,
  ...wordMemoryHandlers,
  ...voiceHandlers,
  ...workspaceHandlers,
  ...wikiHandlers,
} satisfies Handlers;

/** Routes outside the service's API that the sandbox serves itself (e.g. the signed upload URL). */
export const EXTRA_ROUTES: Array<(app: Hono, rt: SandboxRuntime) => void> = [voiceRoutes];
