import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';

/** A kubeconfig as it is written to disk (the `clientcmd` v1 file format). */
export interface Kubeconfig {
  apiVersion: 'v1';
  kind: 'Config';
  clusters: Array<{ name: string; cluster: KubeconfigCluster }>;
  users: Array<{ name: string; user: KubeconfigUser }>;
  contexts: Array<{ name: string; context: { cluster: string; user: string; namespace?: string } }>;
  'current-context': string;
}

/** The `cluster` entry of a kubeconfig. */
export interface KubeconfigCluster {
  server: string;
  /** Base64 of the CA certificate PEM. */
  'certificate-authority-data'?: string;
  'certificate-authority'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
}

/** The `user` entry of a kubeconfig; only the fields kop/testing writes are typed precisely. */
export interface KubeconfigUser {
  /** Base64 of the client certificate PEM. */
  'client-certificate-data'?: string;
  /** Base64 of the client private key PEM. */
  'client-key-data'?: string;
  token?: string;
  /** Impersonation (used for users added to an existing cluster). */
  as?: string;
  'as-groups'?: string[];
  [field: string]: unknown;
}

/** Builds a one-cluster, one-user, one-context kubeconfig. */
export function buildKubeconfig(options: {
  clusterName: string;
  server: string;
  caPem?: string;
  userName: string;
  user: KubeconfigUser;
}): Kubeconfig {
  const cluster: KubeconfigCluster = { server: options.server };
  if (options.caPem) cluster['certificate-authority-data'] = base64(options.caPem);
  const contextName = `${options.userName}@${options.clusterName}`;
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: options.clusterName, cluster }],
    users: [{ name: options.userName, user: options.user }],
    contexts: [{ name: contextName, context: { cluster: options.clusterName, user: options.userName } }],
    'current-context': contextName,
  };
}

/** A kubeconfig user entry for a client certificate. */
export function clientCertificateUser(certPem: string, keyPem: string): KubeconfigUser {
  return { 'client-certificate-data': base64(certPem), 'client-key-data': base64(keyPem) };
}

/** Writes a kubeconfig as YAML, readable only by the owner (it holds a private key). */
export function writeKubeconfig(path: string, kubeconfig: Kubeconfig): void {
  writeFileSync(path, stringify(kubeconfig), { mode: 0o600 });
}

function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}
