import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { LeaderElectionLostError } from '../../../src/runtime/manager/index.js';
import { Manager } from '../../../src/runtime/index.js';
import { RestClient } from '../../../src/runtime/client/index.js';
import { coordinationV1LeaseType } from '../../../src/runtime/builtin/index.js';
import { ResourceClient } from '../../../src/runtime/client/resource/resource-client.js';
import { clientConfigFromString } from '../../../src/runtime/client/config/client-config.js';
import type { LeaseObject } from '../../../src/runtime/manager/leader-election.js';
import type { Widget } from './helpers.js';
import { TcpProxy, delay, waitFor, widgetResource } from './helpers.js';
import {
  FAST_LEASE as LEASE,
  electingManagerOptions,
  recordingLogger,
  startManager,
  useLiveCluster,
} from '../../helpers/live-cluster.js';

const live = useLiveCluster();

/** A candidate manager; records the reconciles it runs and its log messages with timestamps. */
function candidate(ns: string, identity: string, rest: RestClient = live.rest()) {
  // The elector's log lines mark the moments it acquires and loses the lease, more precisely
  // than polling the manager (start() rejects only after the shutdown that follows the loss).
  const { logger, loggedAt } = recordingLogger();
  const manager = new Manager(
    electingManagerOptions(
      rest,
      ns,
      { id: 'widgets-leader', identity },
      {
        logger,
        metricsBindAddress: '127.0.0.1:0',
        metricsSecure: false, // plain HTTP: these tests read the gauge, test/runtime/manager covers secure serving
        healthProbeBindAddress: '0',
      },
    ),
  );
  const reconciles: number[] = [];
  manager
    .controller('widget')
    .for(widgetResource)
    .complete(() => {
      reconciles.push(Date.now());
    });
  return { manager, reconciles, ...startManager(manager), loggedAt };
}

async function holder(ns: string): Promise<string | undefined> {
  const lease = await new ResourceClient<LeaseObject>(live.admin, coordinationV1LeaseType, ns).get('widgets-leader');
  return lease.spec?.holderIdentity || undefined;
}

describe('leader election through a Lease', () => {
  it('one leads, the standby never reconciles, and a graceful stop hands over at once', async () => {
    const ns = await live.namespace('leader');
    const widgets = new ResourceClient<Widget>(live.admin, widgetResource, ns);
    const a = candidate(ns, 'a');
    await waitFor(() => a.manager.isLeader, 15_000, 'a leads');
    const b = candidate(ns, 'b');
    await waitFor(async () => (await fetch(`http://${b.manager.metricsAddress}/metrics`)).ok, 10_000, 'b metrics');
    expect(await holder(ns)).toBe('a');
    for (let i = 0; i < 5; i++) await widgets.create({ metadata: { name: `w${i}` }, spec: { size: i } });
    await waitFor(() => a.reconciles.length >= 5, 10_000, 'a reconciles');
    await delay(LEASE.leaseDurationMs);
    expect(b.reconciles).toEqual([]);
    expect(b.manager.isLeader).toBe(false);
    const metricsB = await (await fetch(`http://${b.manager.metricsAddress}/metrics`)).text();
    expect(metricsB).toMatch(/leader_election_master_status\{name="widgets-leader"\} 0/);

    const stoppedAt = Date.now();
    await a.manager.stop();
    await a.done;
    await waitFor(() => b.manager.isLeader, LEASE.leaseDurationMs, 'b takes over within the lease duration');
    const takeover = Date.now() - stoppedAt;
    expect(takeover).toBeLessThan(LEASE.leaseDurationMs);
    expect(await holder(ns)).toBe('b');
    // The new leader reconciles everything from its warm cache.
    await waitFor(() => b.reconciles.length >= 5, 10_000, 'b reconciles');
    await b.manager.stop();
  });

  it('a leader that cannot renew stops reconciling before the standby takes over after the lease expires', async () => {
    const ns = await live.namespace('leader-cut');
    const proxy = await TcpProxy.start(live.plane.server);
    const a = candidate(ns, 'a', live.rest(proxy.url));
    await waitFor(() => a.manager.isLeader, 15_000, 'a leads');
    const b = candidate(ns, 'b');
    await delay(500);
    proxy.cut();
    const cutAt = Date.now();
    await waitFor(() => a.failure(), 10_000, 'a gives up');
    expect(a.failure()).toBeInstanceOf(LeaderElectionLostError);
    expect(a.manager.isLeader).toBe(false);
    await waitFor(() => b.manager.isLeader, 10_000, 'b leads');
    const aLostAt = a.loggedAt('lost the leader lease')!;
    const bLeadsAt = b.loggedAt('acquired the leader lease')!;
    // A steps down (renew deadline) before B can take the lease (lease duration): never two leaders.
    expect(aLostAt).toBeLessThan(bLeadsAt);
    expect(bLeadsAt - cutAt).toBeGreaterThanOrEqual(LEASE.leaseDurationMs - 500);
    await b.manager.stop();
    await proxy.close();
  });

  it('a leader whose credential plugin hangs steps down at the renew deadline, before the standby takes over', async () => {
    const ns = await live.namespace('leader-plugin');
    const user = await live.plane.addUser({ name: 'leader-a', groups: ['system:masters'] });
    const dir = await mkdtemp(path.join(tmpdir(), 'kop-hung-plugin-'));
    const hangFlag = path.join(dir, 'hang');
    // Hands out the user's certificate for 1.5 s at a time; once the flag file exists it never answers.
    const plugin = path.join(dir, 'plugin.mjs');
    await writeFile(
      plugin,
      [
        "import { existsSync } from 'node:fs';",
        `if (existsSync(${JSON.stringify(hangFlag)})) setInterval(() => undefined, 1000);`,
        'else process.stdout.write(JSON.stringify({',
        "  apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential',",
        `  status: { clientCertificateData: ${JSON.stringify(user.certData)}, clientKeyData: ${JSON.stringify(user.keyData)}, expirationTimestamp: new Date(Date.now() + 1500).toISOString() },`,
        '}));',
      ].join('\n'),
    );
    const kubeconfig = parseYaml(await readFile(live.plane.kubeconfigPath, 'utf8')) as {
      users: Array<{ user: unknown }>;
    };
    kubeconfig.users[0]!.user = {
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1',
        command: process.execPath,
        args: [plugin],
        interactiveMode: 'Never',
      },
    };
    try {
      const a = candidate(
        ns,
        'a',
        new RestClient(clientConfigFromString(JSON.stringify(kubeconfig)), { execPluginTimeoutMs: 30_000 }),
      );
      await waitFor(() => a.manager.isLeader, 15_000, 'a leads');
      const b = candidate(ns, 'b');
      await delay(500);
      await writeFile(hangFlag, '');
      const hungAt = Date.now();
      // The plugin hangs for 30 s; the leader must not wait for it.
      await waitFor(() => a.failure(), 10_000, 'a gives up');
      expect(a.failure()).toBeInstanceOf(LeaderElectionLostError);
      await waitFor(() => b.manager.isLeader, 10_000, 'b leads');
      const aLostAt = a.loggedAt('lost the leader lease')!;
      const bLeadsAt = b.loggedAt('acquired the leader lease')!;
      expect(aLostAt).toBeLessThan(bLeadsAt);
      // At most the credential's remaining life, then the renew deadline, after the hang began.
      expect(aLostAt - hungAt).toBeLessThan(1500 + LEASE.renewDeadlineMs + LEASE.retryPeriodMs + 1000);
      await b.manager.stop();
    } finally {
      // The hung plugin runs in its own process group until its timeout: end it with the test.
      for (const entry of await readdir('/proc').catch(() => [] as string[])) {
        if (!/^\d+$/.test(entry)) continue;
        const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
        if (cmdline.includes(plugin)) process.kill(Number(entry), 'SIGKILL');
      }
      await rm(dir, { recursive: true, force: true });
    }
  });
});
