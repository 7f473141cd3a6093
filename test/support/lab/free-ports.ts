import { type AddressInfo, createServer, type Server } from 'node:net';

/**
 * `count` distinct free TCP ports on `host`, found by binding port 0. All listeners stay open until
 * every port is known, so no port repeats. Another process can still take one before etcd binds it;
 * startEtcdLab retries the whole start once for that reason.
 */
export async function allocateFreePorts(count: number, host: string): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) servers.push(await listenOnFreePort(host));
    return servers.map((server) => (server.address() as AddressInfo).port);
  } finally {
    await Promise.all(servers.map(closeServer));
  }
}

/** A port found free was bound by another process first (redis-server's and etcd's wording). */
export function isPortTaken(err: unknown): boolean {
  return /address already in use/i.test(err instanceof Error ? err.message : String(err));
}

/**
 * Runs `start` (which allocates its own ports) once more when a port it found free was taken before
 * its server bound it: free ports are found, not reserved, and parallel suites start servers too.
 */
export async function withFreshPortsOnce<T>(start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (err) {
    if (!isPortTaken(err)) throw err;
    return start();
  }
}

function listenOnFreePort(host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ port: 0, host, exclusive: true }, () => resolve(server));
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
