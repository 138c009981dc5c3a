export * from './types.js';
export * from './scopes.js';
export * from './errors.js';
export * from './limits.js';
export * from './endpoints.js';
export * as schemas from './schemas.js';
export * from './events.js';
