/** The enumerations of the service (service-interface.md, decisions.md §3–§4), free of any schema library so that commands can use them cheaply. */

/** A note collaborator's role, and a LIMITED folder member's. */
export const COLLABORATOR_ROLES = ['OWNER', 'EDITOR', 'VIEWER'] as const;
export const FOLDER_MEMBER_ROLES = ['VIEWER', 'EDITOR'] as const;

export const SOURCE_TYPES = ['onboarding', 'text', 'live-voice', 'recording', 'offline-mode', 'webpage', 'video'] as const;
export const SHARING_TYPES = ['PRIVATE', 'ALL_MEMBER_VIEWER', 'ALL_MEMBER_EDITOR', 'LIMITED'] as const;
export const CREATE_SHARING_TYPES = ['ALL_MEMBER_EDITOR', 'ALL_MEMBER_VIEWER', 'LIMITED'] as const;
export const MOVE_STRATEGIES = ['KEEP_EXISTING', 'INHERIT_FROM_PARENT'] as const;
export const JOB_STATUSES = ['CREATED', 'UPLOADED', 'PROCESSING', 'COMPLETED', 'FAILED'] as const;
export const TEMPLATE_OWNER_TYPES = ['MANAGED', 'USER', 'WORKSPACE', 'ORGANIZATION'] as const;
export const SUMMARY_FORMATS = ['text/markdown', 'text/plain'] as const;
export const DOCUMENT_FORMATS = ['json', 'markdown', 'html'] as const;
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];
