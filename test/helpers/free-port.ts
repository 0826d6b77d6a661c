import net from 'node:net'

/** A port nothing listens on now, on the loopback address, for a server a test starts. */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!
}

/** n different ports nothing listens on now: each stays bound until all are found, so none repeats. */
export async function freePorts(n: number): Promise<number[]> {
  const servers = Array.from({ length: n }, () => net.createServer())
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))))
  const ports = servers.map((server) => (server.address() as net.AddressInfo).port)
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))))
  return ports
}
