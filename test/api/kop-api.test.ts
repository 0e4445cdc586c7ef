import { describe, expect, it } from 'vitest';
import * as api from '../../src/api/index.js';
import * as builtin from '../../src/runtime/builtin/index.js';
import type { ResourceType } from '../../src/runtime/index.js';
import type {
  Condition,
  ConfigMap,
  Deployment,
  IntOrString,
  PodTemplateSpec,
  Quantity,
  Secret,
  Time,
  int32,
} from '../../src/api/index.js';

describe('kop/api', () => {
  it('has no run-time weight: it exports types only', () => {
    expect(Object.keys(api)).toEqual([]);
  });

  it('has a typed descriptor in kop/runtime/builtin for each built-in kind, named by group and version, as the apiserver serves it', () => {
    expect(builtin.appsV1DeploymentType).toEqual({
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
      listKind: 'DeploymentList',
      resource: 'deployments',
      namespaced: true,
    });
    expect(builtin.coreV1NamespaceType.namespaced).toBe(false);
    expect(builtin.eventsV1EventType.group).toBe('events.k8s.io');
    expect(builtin.coordinationV1LeaseType.resource).toBe('leases');
    // The descriptor carries the object type: this assignment is checked by tsc.
    const deployments: ResourceType<Deployment> = builtin.appsV1DeploymentType;
    expect(deployments.kind).toBe('Deployment');
  });

  it('types the JSON the API server returns (checked by tsc)', () => {
    // A Deployment as `kubectl get -o json` prints it: dates and quantities are strings.
    const deployment: Deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'web',
        namespace: 'default',
        creationTimestamp: '2026-01-02T03:04:05Z',
        labels: { app: 'web' },
        generation: 2,
      },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [
              {
                name: 'web',
                image: 'nginx:1.27',
                ports: [{ containerPort: 80, name: 'http', protocol: 'TCP' }],
                env: [{ name: 'MODE', valueFrom: { configMapKeyRef: { name: 'web', key: 'mode' } } }],
                resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: 1 } },
                readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 5 },
              },
            ],
            tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
          },
        },
      },
      status: {
        replicas: 3,
        readyReplicas: 3,
        conditions: [{ type: 'Available', status: 'True', lastTransitionTime: '2026-01-02T03:04:05Z' }],
      },
    };
    const template: PodTemplateSpec | undefined = deployment.spec?.template;
    const port: IntOrString | undefined = template?.spec?.containers[0]?.readinessProbe?.httpGet?.port;
    const cpu: Quantity | undefined = template?.spec?.containers[0]?.resources?.requests?.cpu;
    const replicas: int32 | undefined = deployment.spec?.replicas;
    expect([port, cpu, replicas]).toEqual(['http', '100m', 3]);

    const condition: Condition = {
      type: 'Ready',
      status: 'True',
      reason: 'Reconciled',
      message: '',
      lastTransitionTime: '2026-01-02T03:04:05Z' satisfies Time,
    };
    const configMap: ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data: { key: 'value' },
    };
    const secret: Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      stringData: { password: 'x' },
      type: 'Opaque',
    };
    expect([condition.type, configMap.data?.key, secret.type]).toEqual(['Ready', 'value', 'Opaque']);
  });
});
