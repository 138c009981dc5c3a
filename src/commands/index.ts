import type { Command } from '@commander-js/extra-typings';
import type { Registry } from './registry.js';
import { registerApi } from './api/index.js';
import { registerAuth } from './auth/index.js';
import { registerCompletion } from './completion/index.js';
import { registerMcp } from './mcp/index.js';
import { registerTree } from './tree/index.js';
import { registerConfig } from './config/index.js';
import { registerDoctor } from './doctor/index.js';
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
export function registerCommands(program: Command, r: Registry): void {
  registerAuth(program, r);
  registerConfig(program, r);
  registerNotes(program, r);
  registerFolders(program, r);
  registerTemplates(program, r);
  registerWordMemories(program, r);
  registerVoice(program, r);
  registerWorkspaces(program, r);
  registerWiki(program, r);
  registerApi(program, r);
  registerWebhooks(program, r);
  registerSandbox(program, r);
  registerMcp(program, r);
  registerTree(program, r);
  registerCompletion(program, r);
  registerDoctor(program, r);
}
