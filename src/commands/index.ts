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

/** Each group's registration, in the order of the top-level help. */
const REGISTER: ReadonlyArray<(program: Command, r: Registry) => void> = [
  registerAuth,
  registerConfig,
  registerNotes,
  registerFolders,
  registerTemplates,
  registerWordMemories,
  registerVoice,
  registerWorkspaces,
  registerWiki,
  registerApi,
  registerWebhooks,
  registerSandbox,
  registerMcp,
  registerTree,
  registerCompletion,
  registerDoctor,
];

/**
 * Every command, registered cheaply (each one's work is imported when it runs); with `only`, the registrations
 * whose index it accepts (main: the one that adds the command named on the command line, from the build's index).
 */
export function registerCommands(program: Command, r: Registry, only?: (registration: number) => boolean): void {
  REGISTER.forEach((register, i) => {
    if (!only || only(i)) register(program, r);
  });
}

/** The number of registrations (registerCommands' `only` takes 0 to this, exclusive). */
export const REGISTRATIONS = REGISTER.length;
