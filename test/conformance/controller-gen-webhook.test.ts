/**
 * Conformance of config/webhook/manifests.yaml: for every case in webhook/*.txt (marker
 * lines, `#` comments), kop and controller-gen v0.21.0's `webhook` generator give the same
 * Mutating/ValidatingWebhookConfigurations, in the same order — or, without webhook
 * markers, both give none. Needs Go, like controller-gen.test.ts.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { commentMarkersInText } from '../../src/markers/collect.js';
import {
  buildWebhookConfigurations,
  formatWebhookConfigurations,
} from '../../src/webhook-manifests/webhook-configuration.js';
import { parseWebhookMarkers, WEBHOOK_SCAN_PREFIX } from '../../src/webhook-manifests/webhook-markers.js';
import { controllerGenOnMarkers, goAvailable, parseDocuments } from './controller-gen-tool.js';

const CASES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'webhook');
const cases = (await fs.readdir(CASES)).filter((name) => name.endsWith('.txt')).sort();
const hasGo = await goAvailable();

describe.skipIf(!hasGo)('webhook conformance with controller-gen', () => {
  for (const name of cases) {
    it(name, { timeout: 300_000 }, async () => {
      const lines = (await fs.readFile(path.join(CASES, name), 'utf8'))
        .split('\n')
        .filter((line) => line.startsWith('+'));
      const found = commentMarkersInText(lines.map((line) => `// ${line}`).join('\n'), name, [WEBHOOK_SCAN_PREFIX]);
      const { webhooks, configurations } = parseWebhookMarkers(found.get(WEBHOOK_SCAN_PREFIX)!);
      const ours = formatWebhookConfigurations(buildWebhookConfigurations(webhooks, configurations));
      const theirs = await controllerGenOnMarkers(['webhook'], lines);
      expect(parseDocuments(ours)).toEqual(parseDocuments(theirs));
      if (webhooks.length === 0) expect(theirs.trim()).toBe('');
    });
  }
});
