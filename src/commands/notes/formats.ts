/** `notes summaries get --format`: the names it takes, and the API's format each one asks for. */
export const SUMMARY_FORMATS = { markdown: 'text/markdown', plain: 'text/plain', 'text/markdown': 'text/markdown', 'text/plain': 'text/plain' } as const;
