/**
 * A redis and a postgres for the tests that drive their clients, started side by side. Each goes
 * into `started` as soon as it runs, so a test's afterAll stops it even when the other failed.
 */
import { startPostgres, type PostgresServer } from "./postgres.ts";
import { startRedis, type RedisServer } from "./redis.ts";

export async function startDatabases(
  started: Array<{ stop(): Promise<void> }>,
): Promise<{ redis: RedisServer; postgres: PostgresServer }> {
  const keep = <T extends { stop(): Promise<void> }>(server: T): T => {
    started.push(server);
    return server;
  };
  const [redis, postgres] = await Promise.all([startRedis().then(keep), startPostgres().then(keep)]);
  return { redis, postgres };
}
