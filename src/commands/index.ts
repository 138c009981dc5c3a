import type { Command } from 'commander';
import { registerApi } from './api/index.js';
import { registerAuth } from './auth/index.js';
import { registerCompletion } from './completion/index.js';
import { registerConfig } from './config/index.js';
import { registerNotes } from './notes/index.js';
import { registerSandbox } from './sandbox/index.js';
import { registerFolders } from './folders/index.js';
import { registerTemplates } from './templates/index.js';
import { registerVoice } from './voice/index.js';
import { registerWebhooks } from './webhooks/index.js';
import { registerWiki } from './wiki/index.js';
import { registerWordMemories } from './wm/index.js';
import { registerWorkspaces } from './workspaces/index.js';

/** Every command, registered cheaply (each one's work is imported when it runs). */
export function registerCommands(program: Command): void {
  registerAuth(program);
  registerConfig(program);
  registerNotes(program);
  registerFolders(program);
  registerTemplates(program);
  registerWordMemories(program);
  registerVoice(program);
  registerWorkspaces(program);
  registerWiki(program);
  registerApi(program);
  registerWebhooks(program);
  registerSandbox(program);
  registerCompletion(program);
}
