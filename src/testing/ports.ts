import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';

/**
 * Finds `count` distinct free TCP ports on `host`, below the kernel's ephemeral range: a port
 * handed out by `listen(0)` is released before its user binds it, and meanwhile the kernel may
 * give it to any outgoing connection or to another `listen(0)` (seen: a webhook server's port
 * taken so). Ports below the range are never handed out that way, so only another process
 * choosing at random could take one first. The listeners are held open together (the ports
 * cannot coincide) and released before returning; the control plane retries a start that fails
 * with "address already in use".
 */
export async function findFreePorts(count: number, host = '127.0.0.1'): Promise<number[]> {
  const low = 20_000;
  const high = ephemeralRangeStart() - 1;
  const servers: Server[] = [];
  try {
    for (let attempts = 0; servers.length < count; attempts++) {
      if (attempts > 200 + count) throw new Error(`could not find ${count} free ports on ${host}`);
      const port = high > low ? low + Math.floor(Math.random() * (high - low)) : 0;
      const server = await listen(host, port).catch(() => undefined);
      if (server) servers.push(server);
    }
    return servers.map((server) => (server.address() as { port: number }).port);
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
}

/** The first port of the kernel's ephemeral range (Linux's `ip_local_port_range`); 32768 elsewhere. */
function ephemeralRangeStart(): number {
  try {
    const start = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(start) && start > 1024 ? start : 32_768;
  } catch {
    return 32_768;
  }
}

function listen(host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host, port, exclusive: true }, () => resolve(server));
  });
}
