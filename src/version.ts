/** Sent in the User-Agent header; a test keeps it equal to package.json's version. */
export const ACTION_NAME = 'neon-operations-wait-action';
export const ACTION_VERSION = '0.1.0';
