/** Local HTTP servers for tests and benchmarks: listening on a free port of 127.0.0.1, and closing without waiting. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Listening {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  origin: string;
  /** Drops open (keep-alive, streaming) connections, then stops the server. */
  close(): Promise<void>;
}

export async function listenLocal(server: Server): Promise<Listening> {
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((ok) => { server.closeAllConnections(); server.close(() => ok()); }),
  };
}
