import { fileURLToPath } from 'node:url';

/**
 * `paths` that leave @kubernetes/client-node's index out of a TypeScript program a test builds
 * over src/ (the reason is in the file it points to).
 */
export const CLIENT_NODE_INDEX_LEFT_OUT: Record<string, string[]> = {
  '@kubernetes/client-node': [fileURLToPath(new URL('./client-node-index-left-out.d.ts', import.meta.url))],
};
