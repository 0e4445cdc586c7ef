// A manager watching a kind the apiserver does not serve says so in words (not "404 page not
// found" on every retry), keeps retrying, and syncs once the CRD is installed.
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Manager, type Logger } from '../../../src/runtime/index.js';
import { type LogFields } from '../../../src/runtime/manager/index.js';
import type { ControlPlane } from '../../../src/testing/index.js';
import { startControlPlane } from '../../../src/testing/index.js';
import { waitFor, widgetResource } from './helpers.js';

function recordingLogger(lines: { message: string; fields?: LogFields }[]): Logger {
  const logger: Logger = {
    debug: () => {},
    info: (message, fields) => void lines.push({ message, fields }),
    warn: (message, fields) => void lines.push({ message, fields }),
    error: (message, fields) => void lines.push({ message, fields }),
    child: () => logger,
  };
  return logger;
}

let plane: ControlPlane;
beforeAll(async () => {
  plane = await startControlPlane();
});
afterAll(async () => {
  await plane?.stop();
});

describe('a watched kind that is not served', () => {
  it('is named with the fix while the manager retries, and syncs once its CRD is installed', async () => {
    const lines: { message: string; fields?: LogFields }[] = [];
    const manager = new Manager({
      kubeconfig: plane.kubeconfigPath,
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      logger: recordingLogger(lines),
    });
    const informer = manager.informerFor(widgetResource);
    const running = manager.start();
    try {
      await waitFor(
        () => lines.some((l) => l.message.startsWith('the API test.kop.dev/v1 Widget is not served')),
        15_000,
        'the not-served warning',
      );
      const line = lines.find((l) => l.message.startsWith('the API test.kop.dev/v1 Widget is not served'))!;
      expect(line.message).toBe(
        'the API test.kop.dev/v1 Widget is not served by this cluster: install its CRD (kop install, or kubectl apply --server-side -k config/crd); retrying',
      );
      expect(line.fields?.retryInMs).toBeGreaterThan(0);
      expect(informer.hasSynced()).toBe(false);

      await plane.installCRDs(path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'widget-crd.yaml'));
      await waitFor(() => informer.hasSynced(), 60_000, 'the informer to sync after the CRD was installed');
    } finally {
      await manager.stop();
      await running.catch(() => undefined);
      manager.rest.close();
    }
  }, 120_000);
});
