import { createServer, type Server } from 'node:net';

/**
 * Asks the kernel for `count` distinct free TCP ports on `host`. The listeners are held
 * open together (so the ports cannot coincide) and released before returning, so another
 * process may still take one first; the control plane retries a start that fails with
 * "address already in use".
 */
export async function findFreePorts(count: number, host = '127.0.0.1'): Promise<number[]> {
  const servers = await Promise.all(Array.from({ length: count }, () => listenOnAnyPort(host)));
  const ports = servers.map((server) => {
    const address = server.address();
    return typeof address === 'object' && address ? address.port : 0;
  });
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  if (ports.some((port) => port === 0)) throw new Error(`could not find ${count} free ports on ${host}`);
  return ports;
}

function listenOnAnyPort(host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host, port: 0, exclusive: true }, () => resolve(server));
  });
}
